package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Cluster use: with the StreamFusion jar ahead of Flink's planner jar on the class path (as in a
 * Flink lib/ folder, where jars load in name order), a plain {@code TableEnvironment.create} plans
 * with StreamFusion: no StreamFusion API is called.
 */
class ClusterPlannerFactoryTest {

    /** Entry point of the child JVM: stock Flink API only. */
    public static void main(String[] args) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        System.out.println(
                "planner=" + ((TableEnvironmentImpl) tEnv).getPlanner().getClass().getName());
        tEnv.executeSql(
                "CREATE TABLE src (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows'"
                        + " = '5')");
        System.out.println(tEnv.explainSql("SELECT a * 2, b FROM src WHERE a > 0"));
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void distJarReplacesThePlannerFactory() throws Exception {
        Path target = Paths.get("..", "streamfusion-dist", "target").toAbsolutePath().normalize();
        List<Path> jars;
        try (Stream<Path> files = Files.list(target)) {
            jars =
                    files.filter(
                                    p ->
                                            p.getFileName()
                                                    .toString()
                                                    .matches("flink-streamfusion-.*\\.jar"))
                            .collect(Collectors.toList());
        }
        assertEquals(1, jars.size(), "expected the dist jar in " + target + " (run ./sf build)");
        // The dist jar first, then the test class path (Flink's planner jar among it).
        String classpath = jars.get(0) + File.pathSeparator + System.getProperty("java.class.path");
        Process process =
                new ProcessBuilder(
                                Paths.get(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "--add-opens=java.base/java.util=ALL-UNNAMED",
                                "-cp",
                                classpath,
                                ClusterPlannerFactoryTest.class.getName())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish");
        assertEquals(0, process.exitValue(), output);
        assertThat(output).contains("planner=io.streamfusion.planner.NativeStreamPlanner");
        assertThat(output).contains("NativeCalc(").contains("1 of 1 operators native");
    }
}
