package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.TimeUnit;

/**
 * The test cluster replaces a TaskManager killed by FLINK-39330 and only that. Each test kills or
 * reports within itself and calls the recovery that runs before every test of a parity class, so no
 * test depends on another having run first.
 */
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
    void aTaskManagerKilledByTheCollectSinkBugIsReplaced() throws Exception {
        MiniCluster mini = MINI_CLUSTER.miniCluster();
        // What MiniCluster's fatal error handler does when the bug strikes: log, then terminate.
        LogManager.getLogger(MiniCluster.class).error("TaskManager #0 failed.", collectSinkNpe());
        mini.terminateTaskManager(0).get();

        MINI_CLUSTER.recover();
        ParityHarness harness = new ParityHarness();
        assertThat(ParityHarness.run(harness.stock(), "SELECT id FROM t").rows)
                .hasSize(TestData.rows().size());
        // The dead TaskManager leaves the resource manager asynchronously.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (mini.getResourceOverview().join().getNumberTaskManagers() != 1
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(mini.getResourceOverview().join().getNumberTaskManagers()).isEqualTo(1);
    }

    @Test
    void anyOtherTaskManagerDeathFailsTheRecovery() {
        LogManager.getLogger(MiniCluster.class)
                .error("TaskManager #0 failed.", new IllegalStateException("a fatal error"));
        assertThatThrownBy(MINI_CLUSTER::recover)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("a TaskManager of the test cluster died")
                .hasRootCauseMessage("a fatal error");
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
