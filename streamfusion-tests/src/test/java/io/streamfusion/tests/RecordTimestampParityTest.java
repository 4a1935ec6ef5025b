package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

/**
 * The timestamp of each record leaving an island is the one stock Flink's operators give it, as a
 * Sink V2 writer sees it. Flink's generated Calc emits its rows in records of its own, without a
 * timestamp, while GroupAggFunction emits in the record it processes, keeping its timestamp; an
 * island kept its input records' timestamps through a Calc. The sources mix records without a
 * timestamp, with Long.MIN_VALUE and with real ones (a writer sees null for the first two; {@link
 * NativeIslandOperatorTest} checks Long.MIN_VALUE itself).
 */
class RecordTimestampParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static List<String> run(boolean nativeEngine, String kind, String query) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = ParityHarness.tableEnvironment(env, nativeEngine, "forbid");
        env.setParallelism(1);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE src (f0 BIGINT) WITH ('connector' = '"
                        + RecordTimestampTables.IDENTIFIER
                        + "', 'kind' = '"
                        + kind
                        + "')");
        String sink = "ts_" + kind.replace('-', '_') + (nativeEngine ? "_native" : "_stock");
        RowLogTables.clear(sink);
        String columns = query.contains("f0, COUNT") ? "v BIGINT, c BIGINT" : "v BIGINT";
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE out_sink ("
                        + columns
                        + ") WITH ('connector' = '"
                        + RowLogTables.IDENTIFIER
                        + "', 'name' = '"
                        + sink
                        + "', 'record-timestamps' = 'true')");
        try {
            tEnv.executeSql("INSERT INTO out_sink " + query).await();
        } catch (Exception e) {
            ParityCluster.afterFailedJob(e);
            throw new RuntimeException(e);
        }
        return RowLogTables.rows(sink);
    }

    /** {@code stamped}: whether stock's records carry real timestamps (no Calc on the way). */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "flip27|SELECT f0 * 10 FROM src WHERE f0 <> 2|false",
                "flip27-assigned|SELECT f0 * 10 FROM src WHERE f0 <> 2|false",
                "legacy-mixed|SELECT f0 * 10 FROM src WHERE f0 <> 2|false",
                "flip27-assigned|SELECT f0, COUNT(*) FROM src GROUP BY f0|true",
                "legacy-mixed|SELECT f0, COUNT(*) FROM src GROUP BY f0|true",
                "legacy-mixed|SELECT SUM(f0) FROM src GROUP BY f0 % 2|false",
                "flip27-assigned|SELECT COUNT(*) FROM src WHERE f0 <> 2 GROUP BY f0 % 2|false",
            })
    void recordsCarryStocksTimestampsOutOfAnIsland(String kind, String query, boolean stamped) {
        List<String> stock = run(false, kind, query);
        long before = NativeMetrics.recordsIn();
        List<String> nat = run(true, kind, query);
        assertThat(NativeMetrics.recordsIn()).as("native records").isGreaterThan(before);
        assertThat(stock).as("stock's records").isNotEmpty();
        // Each case shows what it is about on stock Flink: real timestamps (and none for the
        // records that had none or Long.MIN_VALUE), or none at all after a Calc.
        long none = stock.stream().filter(r -> r.endsWith(" @ null")).count();
        if (stamped) {
            assertThat(stock).as("stock's records").anyMatch(r -> r.endsWith(" @ 2000"));
            assertThat(none).as("stock's records without a timestamp").isPositive();
        } else {
            assertThat(none).as("stock's records without a timestamp").isEqualTo(stock.size());
        }
        assertThat(nat).as("%s on %s", query, kind).isEqualTo(stock);
    }
}
