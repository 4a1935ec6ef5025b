package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The native watermark assigner (Flink's WatermarkAssignerOperator, planned where the source takes
 * no watermark push-down) runs inside an island between the Calcs around it, and emits the same
 * watermarks between the same rows as Flink's: event-time windows after it then drop exactly the
 * rows Flink drops as late, and fire the same windows.
 */
class WatermarkAssignerParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    /**
     * Rows one second apart in sequence order, up to 12 s out of order, with a watermark 2 s
     * behind: many rows arrive after a watermark that closed their window.
     */
    private static final String SHUFFLED =
            "CREATE TEMPORARY TABLE shuffled (seq BIGINT, ts AS TO_TIMESTAMP_LTZ((seq -"
                    + " MOD(seq * 7919, 13)) * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL '2'"
                    + " SECOND) WITH ('connector' = 'datagen', 'fields.seq.kind' = 'sequence',"
                    + " 'fields.seq.start' = '1', 'fields.seq.end' = '20000');"
                    + "CREATE TEMPORARY VIEW kept AS SELECT seq, ts FROM shuffled WHERE MOD(seq, 5)"
                    + " <> 0";

    private static final String SHUFFLED_WINDOWS =
            "SELECT window_start, COUNT(*) AS n, SUM(seq) AS s FROM TABLE(TUMBLE(TABLE kept,"
                    + " DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end";

    /** Nexmark's events, whose event time never goes back: no row is late. */
    private static final String NEXMARK =
            WatermarkFlushTest.DDL.replace("'300000'", "'200000'")
                    + ";CREATE TEMPORARY VIEW bids AS SELECT bid.auction AS auction, `dateTime`"
                    + " FROM events WHERE event_type = 2";

    private static final String NEXMARK_WINDOWS =
            "SELECT auction, window_start, COUNT(*) AS bids FROM TABLE(HOP(TABLE bids,"
                + " DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY"
                + " auction, window_start, window_end";

    private static StreamTableEnvironment environment(
            boolean streamFusion, int parallelism, long watermarkInterval, String ddl) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.getConfig().setAutoWatermarkInterval(watermarkInterval);
        StreamTableEnvironment tEnv =
                streamFusion
                        ? StreamFusion.create(env, EnvironmentSettings.inStreamingMode())
                        : StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        if (streamFusion) {
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "forbid");
        }
        for (String statement : ddl.split(";")) {
            tEnv.executeSql(statement);
        }
        return tEnv;
    }

    /** Runs {@code sql} on both engines; asserts the native run and returns the native report. */
    private static SupportReport assertParity(
            int parallelism, long watermarkInterval, String ddl, String sql, int minRows) {
        return assertParity(parallelism, watermarkInterval, ddl, sql, minRows, new ArrayList<>());
    }

    /** As above; adds the native rows to {@code nativeRows}. */
    private static SupportReport assertParity(
            int parallelism,
            long watermarkInterval,
            String ddl,
            String sql,
            int minRows,
            List<Row> nativeRows) {
        ParityHarness.Result stock =
                ParityHarness.run(environment(false, parallelism, watermarkInterval, ddl), sql);
        StreamTableEnvironment nat = environment(true, parallelism, watermarkInterval, ddl);
        long before = NativeMetrics.recordsIn();
        ParityHarness.Result actual = ParityHarness.run(nat, sql);
        assertThat(NativeMetrics.recordsIn() - before).isGreaterThan(0);
        assertThat(stock.rows.size()).isGreaterThanOrEqualTo(minRows);
        assertEquals(stock.schema, actual.schema);
        assertEquals(stock.rows, actual.rows);
        nativeRows.addAll(actual.rows);
        SupportReport report = StreamFusion.planner(nat).lastReport();
        assertThat(report.nativeCount()).isEqualTo(report.totalCount());
        return report;
    }

    private static long sum(List<Row> rows, int field) {
        return rows.stream().mapToLong(r -> ((Number) r.getField(field)).longValue()).sum();
    }

    /**
     * With an interval of 0 a watermark follows every row that raises it, so which rows are late
     * depends on each watermark's exact place: the native island (Calc, assigner, Calc, local
     * window phase) drops the same rows as Flink.
     */
    @Test
    void eagerWatermarksMakeTheSameRowsLate() {
        List<Row> nativeRows = new ArrayList<>();
        SupportReport report = assertParity(1, 0, SHUFFLED, SHUFFLED_WINDOWS, 100, nativeRows);
        assertThat(report.islands())
                .anySatisfy(
                        island -> {
                            assertThat(island.get(0)).startsWith("Calc(");
                            assertThat(island.get(1)).startsWith("WatermarkAssigner(");
                            assertThat(island.get(2)).startsWith("Calc(");
                            assertThat(island.get(3)).startsWith("LocalWindowAggregate(");
                        });
        // Rows were dropped as late (16000 rows pass the filter): the test sees where the
        // watermarks are.
        assertThat(sum(nativeRows, 1)).isLessThan(16_000);
    }

    /**
     * The eager rule with an interval: a watermark only after the row that raises it more than the
     * interval above the last one (periodic timers cannot fire in a run this short with an interval
     * of an hour... nor need to: the rows' event time spans hours).
     */
    @Test
    void theIntervalSpacesTheWatermarksAsFlinksDoes() {
        String ddl =
                "CREATE TEMPORARY TABLE shuffled (seq BIGINT, ts AS TO_TIMESTAMP_LTZ((seq * 60 -"
                        + " MOD(seq * 7919, 13) * 60) * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL"
                        + " '2' MINUTE) WITH ('connector' = 'datagen', 'fields.seq.kind' ="
                        + " 'sequence', 'fields.seq.start' = '1', 'fields.seq.end' = '20000');"
                        + "CREATE TEMPORARY VIEW kept AS SELECT seq, ts FROM shuffled WHERE"
                        + " MOD(seq, 3) <> 0";
        String sql =
                "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE kept, DESCRIPTOR(ts),"
                        + " INTERVAL '10' MINUTE)) GROUP BY window_start, window_end";
        assertParity(1, 3_600_000, ddl, sql, 100);
    }

    /**
     * Nexmark at parallelism 2 with Flink's default periodic interval: the assigner runs in an
     * island with the Calcs around it and the local window phase, and the results match.
     */
    @Test
    void nexmarkWindowsMatchWithTheAssignerInAnIsland() {
        SupportReport report = assertParity(2, 200, NEXMARK, NEXMARK_WINDOWS, 100);
        assertThat(report.islands()).anySatisfy(island -> assertThat(island).hasSize(4));
        assertThat(report.toExplainString()).doesNotContain("fallback");
    }

    /**
     * A table whose rowtime is a physical column (a CSV file, the rows of {@link #SHUFFLED}): no
     * Calc stands between the assigner and the local window phase, and the two run as one island
     * (formed by the nodes' roles, not by a rule for this pair), with Flink's results.
     */
    @Test
    void anAssignerFeedingTheLocalWindowPhaseRunsInItsIsland(@TempDir Path dir) throws Exception {
        StringBuilder rows = new StringBuilder();
        for (long seq = 1; seq <= 20_000; seq++) {
            long seconds = seq - Math.floorMod(seq * 7919, 13);
            rows.append(seq)
                    .append(',')
                    .append(
                            LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC)
                                    .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")))
                    .append('\n');
        }
        Path csv = dir.resolve("direct.csv");
        Files.writeString(csv, rows.toString());
        String ddl =
                "CREATE TEMPORARY TABLE direct (seq BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts"
                        + " - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' ="
                        + " 'file://"
                        + csv
                        + "', 'format' = 'csv')";
        String sql =
                "SELECT window_start, COUNT(*) AS n, SUM(seq) AS s FROM TABLE(TUMBLE(TABLE direct,"
                    + " DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end";
        SupportReport report = assertParity(1, 200, ddl, sql, 100);
        assertThat(report.islands())
                .anySatisfy(
                        island ->
                                assertThat(island)
                                        .hasSize(2)
                                        .satisfies(
                                                members ->
                                                        assertThat(members.get(0))
                                                                .startsWith("WatermarkAssigner("),
                                                members ->
                                                        assertThat(members.get(1))
                                                                .startsWith(
                                                                        "LocalWindowAggregate(")));
        assertThat(report.toExplainString()).doesNotContain("fallback");
    }

    /** Flink's error for a NULL rowtime, from the native assigner too. */
    @Test
    void aNullRowtimeFailsAsInFlink() {
        String ddl =
                "CREATE TEMPORARY TABLE gaps (seq BIGINT, ts AS CASE WHEN seq = 500 THEN CAST(NULL"
                    + " AS TIMESTAMP_LTZ(3)) ELSE TO_TIMESTAMP_LTZ(seq * 1000, 3) END, WATERMARK"
                    + " FOR ts AS ts) WITH ('connector' = 'datagen', 'fields.seq.kind' ="
                    + " 'sequence', 'fields.seq.start' = '1', 'fields.seq.end' = '1000')";
        String sql = "SELECT seq, ts FROM gaps WHERE seq > 10";
        for (boolean streamFusion : new boolean[] {false, true}) {
            StreamTableEnvironment tEnv = environment(streamFusion, 1, 200, ddl);
            assertThatThrownBy(() -> ParityHarness.run(tEnv, sql))
                    .satisfies(
                            e ->
                                    assertThat(ExceptionUtils.stringifyException(e))
                                            .contains(
                                                    "RowTime field should not be null, please"
                                                            + " convert it to a non-null long"
                                                            + " value."));
            if (streamFusion) {
                assertThat(StreamFusion.planner(tEnv).lastReport().islands())
                        .anySatisfy(
                                island ->
                                        assertThat(island)
                                                .anyMatch(
                                                        op -> op.startsWith("WatermarkAssigner(")));
            }
        }
    }

    /** Where the assigner cannot be native, EXPLAIN says why and Flink's operator runs. */
    @Test
    void refusalsAreExplained() {
        StreamTableEnvironment tEnv = environment(true, 1, 200, SHUFFLED);
        tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "allow");
        tEnv.getConfig().set("table.exec.source.idle-timeout", "1 s");
        assertThat(tEnv.explainSql(SHUFFLED_WINDOWS))
                .contains("fallback  WatermarkAssigner(")
                .contains("table.exec.source.idle-timeout = 1000 ms");
        tEnv.getConfig().set("table.exec.source.idle-timeout", "0 s");
        tEnv.getConfig().set("streamfusion.islands", "false");
        assertThat(tEnv.explainSql(SHUFFLED_WINDOWS))
                .contains("The native watermark assigner runs only in an island");
        tEnv.getConfig().set("streamfusion.islands", "true");
        tEnv.getConfig().set("streamfusion.operators.excluded", "Calc");
        assertThat(tEnv.explainSql(SHUFFLED_WINDOWS))
                .contains(
                        "A watermark assigner with no native operator next to it on a forward edge"
                                + " stays Flink's")
                // Flink's own node is back in the plan.
                .doesNotContain("NativeWatermarkAssigner(");
    }
}
