package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A native Calc between a watermark assigner and an event-time window must process its buffered
 * rows before it forwards a watermark: otherwise those rows reach the window after the watermark
 * that closes it and are dropped as late. A batch here spans ~10 s of event time against a 4 s
 * watermark delay, and watermarks come every millisecond, so any overtaking loses rows.
 */
class WatermarkFlushTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    /**
     * Nexmark's events from our connector, with Nexmark's watermark (no push-down: Flink's
     * assigner).
     */
    static final String DDL =
            "CREATE TEMPORARY TABLE events (event_type INT, person ROW<id BIGINT, name VARCHAR,"
                + " emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR,"
                + " `dateTime` TIMESTAMP(3), extra VARCHAR>, auction ROW<id BIGINT, itemName"
                + " VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime`"
                + " TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra"
                + " VARCHAR>, bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR,"
                + " url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>, `dateTime` AS CASE WHEN"
                + " event_type = 0 THEN person.`dateTime` WHEN event_type = 1 THEN"
                + " auction.`dateTime` ELSE bid.`dateTime` END, WATERMARK FOR `dateTime` AS"
                + " `dateTime` - INTERVAL '4' SECOND) WITH ('connector' = 'nexmark', 'events.num' ="
                + " '300000')";

    private static final String QUERY =
            "SELECT window_start, COUNT(*) AS bids, SUM(price) AS volume FROM TABLE(TUMBLE("
                    + "TABLE bids, DESCRIPTOR(`dateTime`), INTERVAL '1' SECOND)) "
                    + "GROUP BY window_start, window_end";

    private static StreamTableEnvironment environment(boolean streamFusion) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.getConfig().setAutoWatermarkInterval(1);
        StreamTableEnvironment tEnv =
                streamFusion
                        ? StreamFusion.create(env, EnvironmentSettings.inStreamingMode())
                        : StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("streamfusion.batch.size", "100000");
        tEnv.getConfig().set("streamfusion.batch.max-delay", "1 h");
        tEnv.executeSql(DDL);
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW bids AS SELECT bid.auction AS auction, bid.price AS price, "
                        + "`dateTime` FROM events WHERE event_type = 2");
        return tEnv;
    }

    @Test
    void bufferedRowsAreProcessedBeforeTheWatermark() {
        ParityHarness.Result stock = ParityHarness.run(environment(false), QUERY);
        StreamTableEnvironment nat = environment(true);
        long before = NativeMetrics.recordsIn();
        ParityHarness.Result actual = ParityHarness.run(nat, QUERY);
        assertThat(NativeMetrics.recordsIn() - before).isGreaterThanOrEqualTo(300_000);
        SupportReport report = StreamFusion.planner(nat).lastReport();
        assertThat(report.decisions())
                .anyMatch(d -> d.isNative && d.operator.contains("event_type = 2"));
        assertThat(stock.rows.size()).isGreaterThan(10);
        assertEquals(stock.rows, actual.rows);
    }
}
