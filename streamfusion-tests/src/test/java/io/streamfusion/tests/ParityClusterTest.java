package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The test cluster replaces a TaskManager killed by FLINK-39330 and only that: the first test kills
 * the only TaskManager the way the bug does, the second must still get slots.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ParityClusterTest {
    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static StackTraceElement frame(String className, String method) {
        return new StackTraceElement(className, method, className + ".java", 1);
    }

    private static NullPointerException collectSinkNpe() {
        NullPointerException npe = new NullPointerException("\"this.bufferLock\" is null");
        npe.setStackTrace(
                new StackTraceElement[] {
                    frame(
                            "org.apache.flink.streaming.api.operators.collect.CollectSinkFunction",
                            "accumulateFinalResults"),
                    frame(
                            "org.apache.flink.streaming.api.operators.collect.CollectSinkOperator",
                            "close")
                });
        return npe;
    }

    @Test
    @Order(1)
    void aTaskManagerKilledByTheCollectSinkBugIsReplaced() throws Exception {
        MiniCluster mini = MINI_CLUSTER.miniCluster();
        // What MiniCluster's fatal error handler does when the bug strikes: log, then terminate.
        LogManager.getLogger(MiniCluster.class).error("TaskManager #0 failed.", collectSinkNpe());
        mini.terminateTaskManager(0).get();
    }

    @Test
    @Order(2)
    void theNextTestStillRunsJobs() {
        ParityHarness harness = new ParityHarness();
        assertThat(ParityHarness.run(harness.stock(), "SELECT id FROM t").rows)
                .hasSize(TestData.rows().size());
        assertThat(MINI_CLUSTER.miniCluster().getResourceOverview().join().getNumberTaskManagers())
                .isEqualTo(1);
    }

    @Test
    void onlyThatBugIsRecognized() {
        assertThat(ParityCluster.isFlink39330(collectSinkNpe())).isTrue();
        assertThat(ParityCluster.isFlink39330(new RuntimeException("wrapped", collectSinkNpe())))
                .isTrue();
        NullPointerException other = new NullPointerException("elsewhere");
        other.setStackTrace(new StackTraceElement[] {frame("io.streamfusion.X", "close")});
        assertThat(ParityCluster.isFlink39330(other)).isFalse();
        assertThat(ParityCluster.isFlink39330(new IllegalStateException("fatal"))).isFalse();
    }
}
