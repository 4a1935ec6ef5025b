package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Nexmark queries whose work is scalar (projections, filters, functions and a UDF) plan every
 * Calc natively: EXPLAIN's StreamFusion section marks each Calc native. Their results are checked
 * against stock Flink by the Nexmark runner's results check.
 */
class NexmarkNativeCalcTest {

    @TempDir Path temp;

    @ParameterizedTest
    @ValueSource(strings = {"q0", "q1", "q2", "q14", "q21", "q22"})
    void everyCalcIsNative(String query) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv =
                StreamFusion.create(env, EnvironmentSettings.inStreamingMode());
        Path sideInput = temp.resolve("side_input.txt");
        NexmarkQueries.writeSideInput(sideInput);
        String insert = null;
        for (String statement :
                NexmarkQueries.statements(
                        query,
                        NexmarkQueries.variables(1000, 1000, temp.resolve("out"), sideInput))) {
            if (statement.startsWith("INSERT INTO")) {
                insert = statement;
            } else {
                tEnv.executeSql(statement);
            }
        }
        String explain = tEnv.explainSql(insert);
        SupportReport report = StreamFusion.planner(tEnv).lastReport();
        List<String> calcs = new ArrayList<>();
        for (SupportReport.Decision d : report.decisions()) {
            if (d.operator.startsWith("Calc")) {
                calcs.add(d.operator);
                assertTrue(
                        d.isNative,
                        query + ": " + d.operator + " fell back: " + d.reason + "\n" + explain);
            }
        }
        assertFalse(calcs.isEmpty(), query + " has no Calc:\n" + explain);
        assertTrue(explain.contains("== StreamFusion =="), explain);
    }
}
