package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A savepoint moves between stock Flink and StreamFusion under Flink's default uid setting ({@code
 * table.exec.uid.generation=PLAN_ONLY}), where a job planned from SQL has no uids and Flink derives
 * each operator's id from the job graph's shape, and under a compiled plan (COMPILE PLAN, then
 * EXECUTE PLAN of its JSON), whose operators get uids from the plan's ExecNode ids. The case that
 * matters: a user turns StreamFusion on for a running stock job and restores it from its last
 * savepoint, or turns it off again.
 *
 * <p>Job 1 runs at parallelism 2 on one engine until a quarter of the source was read and is
 * stopped with a savepoint; job 2, the same statement on the other engine, restores it, reads the
 * rest and ends. Both write one row log through the same sink, so the two jobs' graphs have the
 * same shape. Job 2 may ignore state it cannot map ({@code ignore-unclaimed-state}), so state
 * dropped on the way would show in the results, which must equal an uninterrupted stock run's: the
 * window aggregation's rows, or the group aggregation's folded changelog. The source holds the job
 * itself (no user-defined function in a Calc, which would stay out of the islands), and the Calcs
 * are in the islands: the Calc computing the event time with the watermark assigner, the filter
 * with the local window phase, the projection with the global one.
 */
class DefaultUidSavepointTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final int ROWS = 8_000;

    private static final String SOURCE =
            "CREATE TEMPORARY TABLE src (id BIGINT, k AS id % 20, v AS id * 3,"
                    + " ts AS TO_TIMESTAMP_LTZ(id * 10, 3), WATERMARK FOR ts AS ts - INTERVAL '1'"
                    + " SECOND) WITH ('connector' = '"
                    + MailboxSequenceTableFactory.IDENTIFIER
                    + "', 'number-of-rows' = '"
                    + ROWS
                    + "', 'fail-once' = 'true')";

    /** A Calc, a TUMBLE window aggregation (two phases), a Calc. */
    private static final String WINDOW =
            "INSERT INTO out_sink SELECT k, window_end, c * 2, s FROM (SELECT k, window_start,"
                    + " window_end, COUNT(*) AS c, SUM(v) AS s FROM TABLE(TUMBLE(TABLE src,"
                    + " DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE v % 7 <> 3 GROUP BY k,"
                    + " window_start, window_end)";

    private static final String WINDOW_SINK = "(k BIGINT, we TIMESTAMP_LTZ(3), c BIGINT, s BIGINT)";

    /** A Calc, then a group aggregation. */
    private static final String GROUP =
            "INSERT INTO out_sink SELECT k, COUNT(*), SUM(v), MAX(v) FROM src WHERE v % 7 <> 3"
                    + " GROUP BY k";

    private static final String GROUP_SINK = "(k BIGINT, c BIGINT, s BIGINT, mx BIGINT)";

    @TempDir Path dir;

    private static StreamTableEnvironment env(
            boolean nativeEngine,
            String backend,
            String sinkColumns,
            String log,
            Map<String, String> extra) {
        ExecNodeContext.resetIdCounter();
        StreamTableEnvironment tEnv = StateJobs.env(nativeEngine, 2, backend, extra);
        // Flink's default: no uids for a job planned from SQL, uids from a compiled plan's ids.
        tEnv.getConfig().set("table.exec.uid.generation", "PLAN_ONLY");
        tEnv.executeSql(SOURCE);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE out_sink "
                        + sinkColumns
                        + " WITH ('connector' = '"
                        + RowLogTables.IDENTIFIER
                        + "', 'name' = '"
                        + log
                        + "')");
        return tEnv;
    }

    /** Runs {@code insert} as SQL, or compiled (its plan compiled on the same engine first). */
    private static TableResult execute(StreamTableEnvironment tEnv, String insert, String json) {
        return json == null
                ? tEnv.executeSql(insert)
                : tEnv.loadPlan(PlanReference.fromJsonString(json)).execute();
    }

    @ParameterizedTest(name = "{0} as {1}, {2}, {3}")
    @CsvSource({
        "WINDOW, sql, stock-to-native, hashmap",
        "WINDOW, sql, native-to-stock, hashmap",
        "WINDOW, sql, stock-to-native, rocksdb",
        "WINDOW, sql, native-to-stock, rocksdb",
        "WINDOW, plan, stock-to-native, hashmap",
        "WINDOW, plan, native-to-stock, rocksdb",
        "GROUP, sql, stock-to-native, hashmap",
        "GROUP, sql, native-to-stock, hashmap",
        "GROUP, sql, stock-to-native, rocksdb",
        "GROUP, sql, native-to-stock, rocksdb",
        "GROUP, plan, stock-to-native, rocksdb",
        "GROUP, plan, native-to-stock, hashmap",
    })
    void stateMovesBetweenEngines(String query, String mode, String direction, String backend)
            throws Exception {
        boolean window = query.equals("WINDOW");
        String insert = window ? WINDOW : GROUP;
        String sink = window ? WINDOW_SINK : GROUP_SINK;
        boolean firstNative = direction.equals("native-to-stock");

        // The uninterrupted stock run.
        StateJobs.FailOnce.reset();
        RowLogTables.clear("expected");
        env(false, backend, sink, "expected", Map.of()).executeSql(insert).await();
        List<String> expected = RowLogTables.rows("expected");

        String json = null;
        if (mode.equals("plan")) {
            CompiledPlan plan =
                    env(firstNative, backend, sink, "split", Map.of()).compilePlanSql(insert);
            json = plan.asJsonString();
        }

        // Job 1, stopped with a savepoint when the source has read a quarter of its rows.
        RowLogTables.clear("split");
        long before = NativeMetrics.recordsIn();
        StreamTableEnvironment first = env(firstNative, backend, sink, "split", Map.of());
        StateJobs.FailOnce.reset();
        StateJobs.FailOnce.holdAfter = ROWS / 4;
        String savepoint;
        try {
            JobClient job = execute(first, insert, json).getJobClient().orElseThrow();
            savepoint = StateJobs.stopWithSavepointWhenHeld(job, dir, ROWS);
        } finally {
            StateJobs.FailOnce.reset();
        }
        assertNativeOrNot(first, firstNative, before);

        // Job 2, restored on the other engine.
        StateJobs.FailOnce.reset();
        before = NativeMetrics.recordsIn();
        StreamTableEnvironment second =
                env(
                        !firstNative,
                        backend,
                        sink,
                        "split",
                        Map.of(
                                StateRecoveryOptions.SAVEPOINT_PATH.key(),
                                savepoint,
                                StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key(),
                                "true"));
        execute(second, insert, json).await();
        StateJobs.assertResumedFromSavepoint(ROWS);
        assertNativeOrNot(second, !firstNative, before);

        List<String> split = RowLogTables.rows("split");
        if (window) {
            // Windows are emitted once each, by one of the two jobs.
            assertThat(sorted(split)).isEqualTo(sorted(expected));
        } else {
            assertThat(fold(split)).isEqualTo(fold(expected));
        }
    }

    private static void assertNativeOrNot(
            StreamTableEnvironment tEnv, boolean nativeEngine, long recordsBefore) {
        if (nativeEngine) {
            assertThat(NativeMetrics.recordsIn()).as("native records").isGreaterThan(recordsBefore);
            assertThat(StreamFusion.planner(tEnv).lastReport().islands())
                    .as("islands")
                    .isNotEmpty();
        }
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        copy.sort(null);
        return copy;
    }

    /** A changelog of rows keyed by their first field, folded into each key's last row. */
    private static Map<String, String> fold(List<String> changelog) {
        Map<String, String> state = new TreeMap<>();
        for (String row : changelog) {
            String kind = row.substring(0, 2);
            String values = row.substring(3, row.length() - 1);
            String key = values.split(", ", 2)[0];
            if (kind.equals("+I") || kind.equals("+U")) {
                state.put(key, values);
            } else {
                assertThat(state.remove(key)).as("retracted " + row).isEqualTo(values);
            }
        }
        return state;
    }
}
