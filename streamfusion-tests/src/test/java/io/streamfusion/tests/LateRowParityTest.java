package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows behind the watermark, with watermarks that depend on the data alone: one source subtask, the
 * table's own WATERMARK (its assigner native, in the island of the Calcs around it) and {@code
 * pipeline.auto-watermark-interval} 0, so Flink emits a watermark after every row that raises it.
 * Every fifth row is 9 s older than its neighbours, so most of those are late: dropped, counted in
 * Flink's {@code numLateRecordsDropped}, or (HOP, CUMULATE, sessions) still in windows that have
 * not fired. Each window kind runs with a Calc before and after it; results, and the late rows
 * counted over the whole job, must equal stock Flink's, on heap and RocksDB, and stock must have
 * dropped some. (Window Top-N and interval joins are not native yet.)
 */
class LateRowParityTest {

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final ParityCluster MINI_CLUSTER =
            new ParityCluster(METRICS.addToConfiguration(new Configuration()));

    private static final int ROWS = 600;

    /** Event time: row id at id * 700 ms, every fifth 9 s earlier; NULL keys every 11th row. */
    private static final String EVENTS =
            "CREATE TEMPORARY TABLE ev (id BIGINT,"
                    + " k AS CASE WHEN id % 11 = 0 THEN CAST(NULL AS BIGINT) ELSE id % 7 END,"
                    + " v AS id * 3,"
                    + " ts AS TIMESTAMPADD(MILLISECOND, CAST(id * 700 - CASE WHEN id % 5 = 3"
                    + " THEN 9000 ELSE 0 END AS INT), TIMESTAMP '2024-01-01 00:00:00'),"
                    + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = '"
                    + MailboxSequenceTableFactory.IDENTIFIER
                    + "', 'number-of-rows' = '"
                    + ROWS
                    + "')";

    /** What a run gave: its rows (sorted), the late rows its operators dropped, its plan. */
    private static final class Run {
        final List<String> rows = new ArrayList<>();
        long lateDropped;
        List<SupportReport.Decision> decisions = List.of();
        List<List<String>> islands = List.of();
    }

    private static Run run(
            boolean nativeEngine, String backend, String query, Map<String, String> options)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, backend);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        StreamTableEnvironment tEnv = ParityHarness.tableEnvironment(env, nativeEngine, "forbid");
        tEnv.getConfig().set(StateBackendOptions.STATE_BACKEND, backend);
        env.setParallelism(1);
        env.getConfig().setAutoWatermarkInterval(0);
        tEnv.getConfig().set("pipeline.auto-watermark-interval", "0 ms");
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        options.forEach((key, value) -> tEnv.getConfig().set(key, value));
        tEnv.executeSql(EVENTS);
        Run run = new Run();
        TableResult result = tEnv.executeSql(query);
        JobClient client = result.getJobClient().orElseThrow();
        try (CloseableIterator<Row> rows = result.collect()) {
            rows.forEachRemaining(row -> run.rows.add(row.getKind().shortString() + row));
            client.getJobExecutionResult().get();
        } catch (Exception e) {
            ParityCluster.afterFailedJob(e);
            throw e;
        }
        run.rows.sort(null);
        run.lateDropped = lateRecordsDropped(client.getJobID());
        if (nativeEngine) {
            SupportReport report = StreamFusion.planner(tEnv).lastReport();
            run.decisions = report.decisions();
            run.islands = report.islands();
        }
        return run;
    }

    /** Flink's numLateRecordsDropped, summed over the job's operators. */
    private static long lateRecordsDropped(JobID job) {
        long dropped = 0;
        for (Map.Entry<String, Metric> metric : METRICS.getMetricsByIdentifiers(job).entrySet()) {
            if (metric.getKey().endsWith(".numLateRecordsDropped")) {
                dropped += ((Counter) metric.getValue()).getCount();
            }
        }
        return dropped;
    }

    /**
     * Stock Flink on heap state, then StreamFusion on heap (windows kept natively in memory), on
     * RocksDB (the windows' accumulators in the native store) and on RocksDB with
     * streamfusion.window.state=FLINK (windows in Flink state, read through the state port).
     */
    private static void assertParity(String query, Map<String, String> options) throws Exception {
        Run stock = run(false, "hashmap", query, options);
        assertThat(stock.rows).as("stock's windows").isNotEmpty();
        assertThat(stock.lateDropped).as("late rows stock dropped").isPositive();
        for (String backend : List.of("hashmap", "rocksdb", "rocksdb+flink")) {
            long before = NativeMetrics.recordsIn();
            Map<String, String> nativeOptions = new HashMap<>(options);
            if (backend.endsWith("+flink")) {
                nativeOptions.put("streamfusion.window.state", "FLINK");
            }
            Run nat = run(true, backend.replace("+flink", ""), query, nativeOptions);
            String what = query + " on " + backend;
            assertThat(NativeMetrics.recordsIn())
                    .as("native records, " + what)
                    .isGreaterThan(before);
            assertThat(nat.rows).as(what).containsExactlyElementsOf(stock.rows);
            assertThat(nat.lateDropped)
                    .as("late rows dropped, " + what)
                    .isEqualTo(stock.lateDropped);
            assertThat(nat.decisions)
                    .as("the watermark assigner and the window natively, " + what)
                    .anyMatch(d -> d.isNative && d.operator.startsWith("WatermarkAssigner("))
                    .anyMatch(d -> d.isNative && d.operator.contains("WindowAggregate("));
            // The Calcs around the window share its islands: the Calc that computes the event
            // time with the assigner, and a window aggregation (or its local phase) with a Calc.
            assertThat(nat.islands)
                    .as("islands, " + what)
                    .anySatisfy(
                            island ->
                                    assertThat(island)
                                            .anyMatch(op -> op.startsWith("WatermarkAssigner("))
                                            .anyMatch(op -> op.startsWith("Calc(")))
                    .anySatisfy(
                            island ->
                                    assertThat(island)
                                            .anyMatch(op -> op.contains("WindowAggregate("))
                                            .anyMatch(op -> op.startsWith("Calc(")));
        }
    }

    private static final String FILTER = " WHERE v % 4 <> 1 ";

    /** Window TVFs, in Flink's default two phases and in one, each with Calcs around it. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)|TWO_PHASE",
                "TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)|ONE_PHASE",
                "HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)|TWO_PHASE",
                "CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '4' SECOND,"
                        + " INTERVAL '12' SECOND)|TWO_PHASE",
                "SESSION(TABLE ev PARTITION BY (k), DESCRIPTOR(ts), INTERVAL '6' SECOND)|ONE_PHASE",
            })
    void windowTvfsDropLateRowsAsFlinkDoes(String spec) throws Exception {
        String[] parts = spec.split("\\|");
        String query =
                "SELECT k, window_end, c * 10, s FROM (SELECT k, window_start, window_end,"
                        + " COUNT(*) AS c, SUM(v) AS s FROM TABLE("
                        + parts[0]
                        + ")"
                        + FILTER
                        + "GROUP BY k, window_start, window_end) WHERE c > 1";
        assertParity(query, Map.of("table.optimizer.agg-phase-strategy", parts[1]));
    }

    /** Legacy group windows, each with Calcs around it. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "TUMBLE(ts, INTERVAL '10' SECOND)|TUMBLE_END(ts, INTERVAL '10' SECOND)",
                "HOP(ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND)"
                        + "|HOP_END(ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
                "SESSION(ts, INTERVAL '6' SECOND)|SESSION_END(ts, INTERVAL '6' SECOND)",
            })
    void groupWindowsDropLateRowsAsFlinkDoes(String spec) throws Exception {
        String[] parts = spec.split("\\|");
        String query =
                "SELECT k, "
                        + parts[1]
                        + ", COUNT(*) * 10, SUM(v) FROM ev"
                        + FILTER
                        + "GROUP BY k, "
                        + parts[0]
                        + " HAVING COUNT(*) > 1";
        assertParity(query, Map.of());
    }
}
