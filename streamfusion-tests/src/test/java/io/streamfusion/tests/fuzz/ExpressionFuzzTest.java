package io.streamfusion.tests.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.tests.ParityCluster;
import io.streamfusion.tests.ParityHarness;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The fixed-seed portion of the differential expression fuzzer run by {@code ./sf test} (2,000
 * expressions); {@code ./sf fuzz --expressions N --seed S} runs it with other settings through the
 * system properties fuzz.expressions and fuzz.seed.
 */
class ExpressionFuzzTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    /**
     * Loggers that print a stack trace for every fuzzed expression that fails on purpose (both
     * engines must fail alike) or cannot be constant-folded, and every long operator name: tens of
     * megabytes of log per run. The fuzzer reports what matters (mismatches, summary) itself.
     */
    private static final String[] NOISY = {
        "org.apache.flink.runtime.taskmanager.Task",
        "org.apache.flink.runtime.executiongraph.ExecutionGraph",
        "org.apache.flink.table.planner.codegen.ExpressionReducer",
        "org.apache.flink.runtime.metrics.util.MetricUtils"
    };

    private static final Map<String, Level> SAVED = new HashMap<>();

    @BeforeAll
    static void quietExpectedFailures() {
        for (String logger : NOISY) {
            SAVED.put(logger, LogManager.getLogger(logger).getLevel());
            Configurator.setLevel(logger, Level.ERROR);
        }
    }

    @AfterAll
    static void restoreLogLevels() {
        SAVED.forEach(Configurator::setLevel);
    }

    @Test
    void nativeExpressionsMatchStockFlink() throws IOException {
        // 1,000 in ./sf test (about two minutes on 2 cores); ./sf test --full and ./sf fuzz more.
        int count = Integer.getInteger("fuzz.expressions", 1000);
        long seed = Long.getLong("fuzz.seed", 20261130L);
        ExpressionFuzzer fuzzer = new ExpressionFuzzer(seed, 40, 48, System.out);
        fuzzer.run(count);
        String summary = fuzzer.summary();
        Path report = Path.of(System.getProperty("fuzz.report", "target/fuzz-report.txt"));
        Files.createDirectories(report.toAbsolutePath().getParent());
        // getBytes replaces unpaired surrogates (fuzzed strings hold some) instead of failing.
        Files.write(report, (summary + "\n").getBytes(StandardCharsets.UTF_8));
        System.out.println(summary);
        assertTrue(fuzzer.mismatches.isEmpty(), summary);
        // Most generated expressions must really run natively, or the fuzzer proves little.
        assertTrue(
                fuzzer.compared * 2 >= fuzzer.expressions - fuzzer.unplannable,
                "only "
                        + fuzzer.compared
                        + " of "
                        + fuzzer.expressions
                        + " expressions ran natively\n"
                        + summary);
    }
}
