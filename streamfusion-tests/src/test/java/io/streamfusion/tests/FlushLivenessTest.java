package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A trickle of records is never held back in a partly filled batch: rows come out through the
 * processing-time flush, or through the flush before a checkpoint barrier. The source emits a few
 * rows per second of a million, so a batch of 4096 rows would not fill for hours; the test only
 * completes if the flush rules work (its timeout is a hang guard, not a timing check).
 */
class FlushLivenessTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static List<Long> firstRows(
            StreamTableEnvironment tEnv, StreamExecutionEnvironment env, int n) throws Exception {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(
                        i -> i, 1_000_000, RateLimiterStrategy.perSecond(20), Types.LONG);
        tEnv.createTemporaryView(
                "trickle",
                tEnv.fromDataStream(
                        env.fromSource(source, WatermarkStrategy.noWatermarks(), "trickle")));
        TableResult result = tEnv.executeSql("SELECT f0 * 2 FROM trickle WHERE f0 % 2 = 0");
        List<Long> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (rows.size() < n && it.hasNext()) {
                rows.add((Long) it.next().getField(0));
            }
        }
        return rows;
    }

    private static StreamTableEnvironment nativeEnv(StreamExecutionEnvironment env) {
        StreamTableEnvironment tEnv =
                StreamFusion.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("streamfusion.fallback", "forbid");
        tEnv.getConfig().set("streamfusion.batch.size", "4096");
        return tEnv;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void processingTimeDelayFlushesATrickle() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = nativeEnv(env);
        tEnv.getConfig().set("streamfusion.batch.max-delay", "50 ms");
        assertEquals(List.of(0L, 4L, 8L, 12L, 16L), firstRows(tEnv, env, 5));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void checkpointBarrierFlushesTheBatch() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        StreamTableEnvironment tEnv = nativeEnv(env);
        // The delay timer alone would hold rows for an hour: only the barrier flush helps.
        tEnv.getConfig().set("streamfusion.batch.max-delay", "1 h");
        assertEquals(List.of(0L, 4L, 8L, 12L, 16L), firstRows(tEnv, env, 5));
    }
}
