package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.Map;

/**
 * Native window state (the hashmap backend's default) is bounded by streamfusion.memory.budget when
 * a job sets it, and otherwise by its default or, when larger, the operator's share of the slot's
 * managed memory, which Flink declares for the window aggregation and the hashmap backend leaves
 * unused.
 */
class NativeMemoryBudgetTest {

    /** 1 GB per slot (four slots), of which the window aggregation's share is above 256 MB. */
    private static final MemorySize MANAGED = MemorySize.parse("4gb");

    @RegisterExtension static final ParityCluster MINI_CLUSTER = new ParityCluster(managed());

    private static Configuration managed() {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MANAGED);
        return conf;
    }

    private static final long DEFAULT_BUDGET = MemorySize.parse("256mb").getBytes();

    private static void runWindowAggregation(Map<String, String> options) throws Exception {
        Map<String, String> all = new HashMap<>(options);
        // The source's WatermarkAssigner stays on Flink.
        all.put("streamfusion.fallback", "allow");
        StreamTableEnvironment tEnv = StateJobs.env(true, 1, "hashmap", all);
        tEnv.executeSql(
                StateJobs.sequenceSource(
                        "ev",
                        2_000,
                        0,
                        ", k AS id % 10, ts AS TIMESTAMPADD(MILLISECOND, CAST(id AS INT),"
                                + " TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts -"
                                + " INTERVAL '1' SECOND"));
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE out_sink (k BIGINT, ws TIMESTAMP(3), c BIGINT)"
                        + " WITH ('connector'='blackhole')");
        long before = NativeMetrics.nativeStateRows();
        NativeMetrics.setWindowStateBudget(0);
        tEnv.executeSql(
                        "INSERT INTO out_sink SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE("
                                + "TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k,"
                                + " window_start, window_end")
                .await();
        assertThat(NativeMetrics.nativeStateRows()).as("native window state").isGreaterThan(before);
    }

    @Test
    void nativeWindowStateTakesTheManagedMemoryShare() throws Exception {
        runWindowAggregation(Map.of());
        assertThat(NativeMetrics.windowStateBudget())
                .isGreaterThan(DEFAULT_BUDGET)
                .isLessThanOrEqualTo(MANAGED.getBytes());
    }

    @Test
    void aConfiguredBudgetIsKept() throws Exception {
        runWindowAggregation(Map.of("streamfusion.memory.budget", "64mb"));
        assertThat(NativeMetrics.windowStateBudget())
                .isEqualTo(MemorySize.parse("64mb").getBytes());
    }
}
