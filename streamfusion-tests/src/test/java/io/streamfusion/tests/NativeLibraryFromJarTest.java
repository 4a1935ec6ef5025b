package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.runtime.jni.NativeLib;

import org.junit.jupiter.api.Test;

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
 * The deployable jar carries the native library and the Arrow library it needs: a fresh JVM with
 * only that jar (no -Dstreamfusion.native.dir, no build tree) loads and calls it.
 */
class NativeLibraryFromJarTest {

    /** Entry point of the child JVM. */
    public static void main(String[] args) throws Exception {
        long functions = NativeLib.listFunctions().lines().count();
        System.out.println("functions=" + functions + " memory=" + NativeLib.globalMemoryBytes());
        // Which files the dynamic linker mapped for the bundled libraries.
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            if (line.contains("libarrow.so") || line.contains("libprotobuf.so")) {
                System.out.println("mapped " + line.substring(line.indexOf('/')));
            }
        }
    }

    @Test
    void loadsFromTheDistJar() throws Exception {
        Path target = Paths.get("..", "streamfusion-dist", "target").toAbsolutePath().normalize();
        List<Path> jars;
        try (Stream<Path> files = Files.list(target)) {
            jars =
                    files.filter(
                                    p ->
                                            p.getFileName()
                                                    .toString()
                                                    .matches("flink-streamfusion-.*\\.jar"))
                            .filter(p -> !p.getFileName().toString().startsWith("original-"))
                            .collect(Collectors.toList());
        }
        assertEquals(1, jars.size(), "expected the dist jar in " + target + " (run ./sf build)");
        String classpath =
                jars.get(0)
                        + File.pathSeparator
                        + Paths.get("target", "test-classes").toAbsolutePath();
        Process process =
                new ProcessBuilder(
                                Paths.get(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-cp",
                                classpath,
                                NativeLibraryFromJarTest.class.getName())
                        .redirectErrorStream(true)
                        .start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertThat(output).containsPattern("functions=[1-9][0-9]* memory=0");
        List<String> mapped =
                output.lines().filter(l -> l.startsWith("mapped ")).collect(Collectors.toList());
        assertThat(mapped).anyMatch(l -> l.contains("libarrow.so.2200"));
        assertThat(mapped).anyMatch(l -> l.contains("libprotobuf.so.32"));
        assertThat(mapped)
                .allMatch(
                        l -> l.contains("/streamfusion-native"), "bundled copies, not the host's");
    }
}
