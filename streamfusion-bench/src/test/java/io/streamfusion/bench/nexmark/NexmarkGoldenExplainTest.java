package io.streamfusion.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.bench.Engines;
import io.streamfusion.runtime.config.StreamFusionOptions;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Golden EXPLAIN outputs of every Nexmark query and every own query (x1–x8), as the runner plans
 * them with StreamFusion (fallback allowed), in three configurations: heap and RocksDB state with
 * mini-batch off (the benchmark's default), and heap with mini-batch on. The whole EXPLAIN is kept:
 * Flink's plans, the native operators that replace Flink's, and the StreamFusion section with each
 * operator's verdict and fallback reason.
 *
 * <p>They guard refactors of the engine that must not change what is planned: a change that means
 * to change a plan regenerates them ({@code -Dgolden.update=true}, which writes the files under
 * {@code src/test/resources/golden/explain/}) and shows the difference in its commit.
 */
class NexmarkGoldenExplainTest {
    private static final Path GOLDEN = Paths.get("src/test/resources/golden/explain");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    @TempDir Path temp;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (String config : List.of("heap", "rocksdb", "heap-minibatch")) {
            for (String query : NexmarkQueries.ALL) {
                cases.add(Arguments.of(config, query));
            }
            for (String query : NexmarkQueries.EXTRA) {
                cases.add(Arguments.of(config, query));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void explainMatchesTheGoldenOutput(String config, String query) throws IOException {
        String actual = explain(config, query);
        Path golden = GOLDEN.resolve(config).resolve(query + ".txt");
        if (UPDATE) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
            return;
        }
        assertThat(golden).as("golden file (write it with -Dgolden.update=true)").exists();
        assertThat(actual)
                .as("EXPLAIN of %s (%s) against %s", query, config, golden)
                .isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }

    /** The EXPLAIN of the query's INSERT, or the error Flink's planner gives for it. */
    private String explain(String config, String query) {
        NexmarkConfig c =
                NexmarkConfig.parse(
                        new String[] {
                            "--state",
                            config.startsWith("rocksdb") ? "rocksdb" : "heap",
                            "--minibatch",
                            config.endsWith("minibatch") ? "on" : "off",
                            "--parallelism",
                            "2"
                        });
        StreamTableEnvironment tEnv =
                Engines.create(Engines.Engine.NATIVE, c.parallelism, c.cluster(), c.tableOptions());
        tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "allow");
        Path sideInput = temp.resolve("side_input.txt");
        NexmarkQueries.writeSideInput(sideInput);
        String text;
        try {
            String insert =
                    NexmarkBenchmark.prepare(
                            tEnv,
                            query,
                            NexmarkQueries.variables(1000, 1000, temp.resolve("out"), sideInput));
            text = tEnv.explainSql(insert);
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            text = "planning failed: " + root.getClass().getName() + ": " + root.getMessage();
        }
        // The temporary folder's name changes from run to run.
        return text.replace(temp.toAbsolutePath().toString(), "${TMP}").strip() + "\n";
    }
}
