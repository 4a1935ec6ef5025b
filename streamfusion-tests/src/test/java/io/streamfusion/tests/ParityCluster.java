package io.streamfusion.tests;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.resourcemanager.ResourceOverview;
import org.apache.flink.runtime.testutils.InternalMiniClusterExtension;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test classes' MiniCluster (one TaskManager, four slots) that survives one known Flink bug.
 *
 * <p>FLINK-39330: Flink 2.2.1's collect sink throws a NullPointerException from {@code
 * CollectSinkFunction.accumulateFinalResults} when its task is cancelled before the sink was
 * initialized ({@code bufferLock} is still null). The task's exception handler escalates it to a
 * fatal error and the MiniCluster terminates its only TaskManager, so every later job of the class
 * waits five minutes for a slot and fails. A job that fails within milliseconds of starting can hit
 * it, on stock Flink as natively: the tests that fail a job on purpose (a memory budget, a division
 * by zero) race the sink task's start.
 *
 * <p>Before each test this extension waits for the previous jobs to end and checks every
 * TaskManager death logged since: one killed by exactly that error is replaced (and a warning
 * printed); any other death fails the test with its cause, so a fatal error of our own is never
 * absorbed.
 */
public final class ParityCluster
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private static final int SLOTS = 4;
    private static final DeathLog DEATHS = DeathLog.install();

    private final InternalMiniClusterExtension cluster;

    public ParityCluster() {
        this(new Configuration());
    }

    /** A cluster whose TaskManager has {@code configuration} (e.g. its managed memory). */
    public ParityCluster(Configuration configuration) {
        cluster =
                new InternalMiniClusterExtension(
                        new MiniClusterResourceConfiguration.Builder()
                                .setConfiguration(configuration)
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(SLOTS)
                                .build());
    }

    /** The cluster of the test class running now, for recoveries within a test. */
    private static volatile ParityCluster active;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster.beforeAll(context);
        DEATHS.drain();
        active = this;
    }

    /**
     * Called by the harnesses when a job failed, so that a test that fails jobs on purpose and then
     * runs more does not meet a TaskManager that FLINK-39330 killed meanwhile (each test recovers
     * only before it starts). A TaskManager death of any other cause fails the test, with the job's
     * failure attached.
     */
    public static void afterFailedJob(Throwable jobFailure) {
        ParityCluster cluster = active;
        if (cluster == null) {
            return;
        }
        try {
            cluster.recover();
        } catch (AssertionError death) {
            death.addSuppressed(jobFailure);
            throw death;
        } catch (Exception e) {
            jobFailure.addSuppressed(e);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        recover();
        TestStreamEnvironment.setAsContext(cluster.getMiniCluster(), SLOTS);
    }

    /**
     * Waits for the previous jobs to end, replaces each TaskManager that FLINK-39330 killed since
     * the last call, fails on any other death, and waits until every slot is free.
     */
    void recover() throws Exception {
        MiniCluster mini = cluster.getMiniCluster();
        awaitNoRunningJobs(mini);
        // A TaskManager the bug kills may be logged only after its job is reported failed: the
        // deaths are read again while waiting for the slots.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        ResourceOverview overview;
        while (true) {
            for (Throwable death : DEATHS.drain()) {
                if (!isFlink39330(death)) {
                    throw new AssertionError("a TaskManager of the test cluster died", death);
                }
                System.err.println(
                        "ParityCluster: a TaskManager died of FLINK-39330 (collect sink closed"
                                + " before it was initialized, after a job failed fast); starting a"
                                + " new one");
                mini.startTaskManager();
            }
            overview = mini.getResourceOverview().get(10, TimeUnit.SECONDS);
            if (overview.getNumberFreeSlots() >= SLOTS || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(20);
        }
        if (overview.getNumberTaskManagers() == 0) {
            throw new AssertionError("the test cluster has no TaskManager and no death was logged");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        TestStreamEnvironment.unsetAsContext();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        active = null;
        cluster.afterAll(context);
    }

    MiniCluster miniCluster() {
        return cluster.getMiniCluster();
    }

    /** The Flink bug's signature: the NPE thrown by the collect sink's final accumulation. */
    static boolean isFlink39330(Throwable death) {
        for (Throwable t = death; t != null; t = t.getCause()) {
            if (t instanceof NullPointerException) {
                for (StackTraceElement frame : t.getStackTrace()) {
                    if (frame.getClassName().endsWith("collect.CollectSinkFunction")
                            && frame.getMethodName().equals("accumulateFinalResults")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static void awaitNoRunningJobs(MiniCluster mini) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            boolean running = false;
            for (JobStatusMessage job : mini.listJobs().get(10, TimeUnit.SECONDS)) {
                running |= !job.getJobState().isGloballyTerminalState();
            }
            if (!running) {
                return;
            }
            Thread.sleep(20);
        }
        // A job a test left running keeps its slots; the slot check below names the effect.
    }

    /** Records the throwables of "TaskManager #n failed." that the MiniCluster logs at ERROR. */
    private static final class DeathLog extends AbstractAppender {
        private final List<Throwable> deaths = new ArrayList<>();

        private DeathLog() {
            super("taskmanager-deaths", null, null, true, Property.EMPTY_ARRAY);
        }

        static DeathLog install() {
            DeathLog log = new DeathLog();
            log.start();
            LoggerContext context = (LoggerContext) LogManager.getContext(false);
            context.getConfiguration().getRootLogger().addAppender(log, Level.ERROR, null);
            context.updateLoggers();
            return log;
        }

        @Override
        public void append(LogEvent event) {
            if (event.getLoggerName().equals(MiniCluster.class.getName())
                    && event.getMessage().getFormattedMessage().startsWith("TaskManager #")
                    && event.getThrown() != null) {
                synchronized (deaths) {
                    deaths.add(event.getThrown());
                }
            }
        }

        List<Throwable> drain() {
            synchronized (deaths) {
                List<Throwable> drained = new ArrayList<>(deaths);
                deaths.clear();
                return drained;
            }
        }
    }
}
