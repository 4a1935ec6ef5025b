package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.util.ExceptionUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import javax.annotation.Nullable;

/**
 * What the state tests share: table environments for jobs that fail, restore and rescale on a
 * MiniCluster (stock or native, heap or RocksDB, stable operator uids), a datagen sequence source,
 * and a UDF that fails the job once.
 */
final class StateJobs {
    private StateJobs() {}

    /**
     * Fails the job once, only after a checkpoint is known to be complete, and holds a job back so
     * that a test can stop it mid-way. From the row at which the job is held on (while armed: the
     * first of id {@link #failAt} or above; else: the {@link #holdAfter}th distinct id), every row
     * waits {@link #HOLD_MILLIS} before it goes on, which leaves the task free to take checkpoints
     * between rows and keeps the rest of the input back, until the test {@link #release}s the rows;
     * the first row after that fails the job, while armed. With a source whose rows the task's own
     * thread emits ({@link Ids#MAILBOX}), a checkpoint waits for one held batch at most, so what
     * happens does not depend on how fast the machine is.
     */
    public static final class FailOnce extends ScalarFunction {
        static final long HOLD_MILLIS = 5;
        static final AtomicBoolean ARMED = new AtomicBoolean();

        /** Calls per id, over all attempts of a job. */
        static final Map<Long, Integer> CALLS = new ConcurrentHashMap<>();

        /** The rows seen when the failure was injected (a restart from scratch replays them). */
        static volatile int seenAtFailure = -1;

        static volatile long failAt = Long.MAX_VALUE;
        static volatile int holdAfter = Integer.MAX_VALUE;

        /** The wall-clock time at which the first row was held, 0 before. */
        static final AtomicLong HELD_SINCE = new AtomicLong();

        private static volatile boolean released;

        public Long eval(Long id) {
            if (id != null) {
                CALLS.merge(id, 1, Integer::sum);
            }
            boolean held = (ARMED.get() && id != null && id >= failAt) || CALLS.size() >= holdAfter;
            if (held && !released) {
                HELD_SINCE.compareAndSet(0, System.currentTimeMillis());
                try {
                    Thread.sleep(HOLD_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while held", e);
                }
            } else if (held && ARMED.compareAndSet(true, false)) {
                seenAtFailure = CALLS.size();
                throw new IllegalStateException("injected failure at row " + id);
            }
            return id;
        }

        /** Lets the held rows go on (and fail the job, while armed). */
        static void release() {
            released = true;
        }

        /** Disarmed, nothing held, no calls recorded. */
        static void reset() {
            ARMED.set(false);
            failAt = Long.MAX_VALUE;
            holdAfter = Integer.MAX_VALUE;
            HELD_SINCE.set(0);
            released = false;
            seenAtFailure = -1;
            CALLS.clear();
        }

        /** Armed to fail once, after a checkpoint, from id {@code at} on. */
        static void arm(long at) {
            reset();
            failAt = at;
            ARMED.set(true);
        }
    }

    /**
     * A table environment: stock or native (strict, batches and window buffers of 64 rows), {@code
     * backend} state, restarts after a failure, {@code extra} configuration, and the fail_once
     * function.
     */
    static StreamTableEnvironment env(
            boolean nativeEngine, int parallelism, String backend, Map<String, String> extra) {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, backend);
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", "3");
        conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
        extra.forEach(conf::setString);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        EnvironmentSettings settings = EnvironmentSettings.inStreamingMode();
        StreamTableEnvironment tEnv =
                nativeEngine
                        ? StreamFusion.create(env, settings)
                        : StreamTableEnvironment.create(env, settings);
        if (nativeEngine) {
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "forbid");
            tEnv.getConfig().set(StreamFusionOptions.BATCH_SIZE.key(), "64");
            tEnv.getConfig().set(StreamFusionOptions.WINDOW_BUFFER_ROWS.key(), "64");
        }
        // Table options given in extra (they also reach the configuration above).
        extra.forEach(
                (k, v) -> {
                    if (k.startsWith("table.") || k.startsWith("streamfusion.")) {
                        tEnv.getConfig().set(k, v);
                    }
                });
        // Operator uids from the ExecNode ids, which are reset before each planning: the same SQL
        // gets the same uids in every job, whatever its parallelism and chaining.
        tEnv.getConfig().set("table.exec.uid.generation", "ALWAYS");
        tEnv.createTemporarySystemFunction("fail_once", FailOnce.class);
        return tEnv;
    }

    /** Where the ids of {@link #sequenceSource} come from. */
    enum Ids {
        /**
         * Flink's datagen connector (a legacy source). The savepoint fixtures were written with it,
         * so whatever restores them reads it.
         */
        DATAGEN,
        /**
         * A FLIP-27 source ({@link MailboxSequenceTableFactory}): a checkpoint is taken between any
         * two rows, which a job failed after a checkpoint taken while its rows are held needs.
         */
        MAILBOX
    }

    /**
     * A table {@code name} of ids 1..rows from {@code ids} (each source subtask reads its own
     * range), at {@code rowsPerSecond} over all subtasks when positive, with {@code extraColumns}
     * (", ..." or "").
     */
    static String sequenceSource(
            String name, int rows, int rowsPerSecond, String extraColumns, Ids ids) {
        String rate = rowsPerSecond > 0 ? "'rows-per-second'='" + rowsPerSecond + "'," : "";
        String connector =
                ids == Ids.DATAGEN
                        ? "'connector'='datagen', 'fields.id.kind'='sequence',"
                                + " 'fields.id.start'='1', 'fields.id.end'='"
                                + rows
                                + "',"
                        : "'connector'='" + MailboxSequenceTableFactory.IDENTIFIER + "',";
        return "CREATE TEMPORARY TABLE "
                + name
                + " (id BIGINT"
                + extraColumns
                + ") WITH ("
                + connector
                + rate
                + "'number-of-rows'='"
                + rows
                + "')";
    }

    /** {@link #sequenceSource(String, int, int, String, Ids)} from Flink's datagen connector. */
    static String sequenceSource(String name, int rows, int rowsPerSecond, String extraColumns) {
        return sequenceSource(name, rows, rowsPerSecond, extraColumns, Ids.DATAGEN);
    }

    /**
     * Asserts that a job restored from a savepoint taken mid-way read only the rest of its source's
     * {@code rows} (counted by fail_once since its last reset): it resumed from the savepoint's
     * positions rather than starting over.
     */
    static void assertResumedFromSavepoint(int rows) {
        assertThat(FailOnce.CALLS.size())
                .as("source rows read after the restore")
                .isPositive()
                .isLessThan(rows);
    }

    /**
     * Runs {@code insert} (a query that calls fail_once on every source row) until a quarter of the
     * source's {@code rows} were read and the rest are held back, then stops it with a savepoint in
     * {@code dir} and returns the savepoint's path, asserting that the job read some but not all of
     * them.
     */
    static String savepointMidway(StreamTableEnvironment tEnv, String insert, Path dir, int rows)
            throws Exception {
        FailOnce.reset();
        FailOnce.holdAfter = rows / 4;
        try {
            return stopWithSavepointWhenHeld(
                    tEnv.executeSql(insert).getJobClient().get(), dir, rows);
        } finally {
            FailOnce.reset();
        }
    }

    /**
     * Waits until fail_once holds rows of {@code job} back ({@link FailOnce#holdAfter} set before
     * it started), then stops it with a savepoint in {@code dir} and returns the savepoint's path,
     * asserting that the job read some but not all of the source's {@code rows}.
     */
    static String stopWithSavepointWhenHeld(JobClient job, Path dir, int rows) throws Exception {
        awaitHeld(job);
        String savepoint;
        while (true) {
            try {
                savepoint =
                        job.stopWithSavepoint(
                                        false,
                                        dir.toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get();
                break;
            } catch (ExecutionException e) {
                // The source can be held before every task runs (a RocksDB task still opening
                // its state): Flink refuses the savepoint then; the held job waits for a retry.
                boolean notAllRunning =
                        ExceptionUtils.findThrowable(e, CheckpointException.class)
                                .map(
                                        c ->
                                                c.getCheckpointFailureReason()
                                                        == CheckpointFailureReason
                                                                .NOT_ALL_REQUIRED_TASKS_RUNNING)
                                .orElse(false);
                if (!notAllRunning || job.getJobStatus().get().isTerminalState()) {
                    throw e;
                }
                Thread.sleep(POLL_MILLIS);
            }
        }
        assertThat(FailOnce.CALLS.size())
                .as("rows read before the savepoint")
                .isPositive()
                .isLessThan(rows);
        return savepoint;
    }

    /** The options of a job that checkpoints every 100 ms into {@code dir}. */
    static Map<String, String> checkpointing(Path dir) {
        return Map.of(
                CheckpointingOptions.CHECKPOINTING_INTERVAL.key(),
                "100 ms",
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(),
                dir.toUri().toString());
    }

    /**
     * As {@link #checkpointing}, with operator chaining off, so that a sink is a task of its own
     * (CheckpointAbortingTables fails its snapshot after the operators before it took theirs).
     */
    static Map<String, String> checkpointingUnchained(Path dir) {
        Map<String, String> options = new HashMap<>(checkpointing(dir));
        options.put("pipeline.operator-chaining.enabled", "false");
        return options;
    }

    /**
     * Asserts that the job restored from the checkpoint before the one CheckpointAbortingTables
     * aborted, taken after rows had gone through: of the rows fail_once had seen at the abort, some
     * were read again, not all (as a restart from scratch would).
     */
    static void assertRestoredFromTheCheckpointBeforeTheAbort() {
        assertThat(CheckpointAbortingTables.ABORTED.get())
                .as("the aborted checkpoint")
                .isPositive();
        int once = FailOnce.CALLS.values().stream().min(Integer::compare).orElse(0);
        long replayed = FailOnce.CALLS.values().stream().filter(c -> c > once).count();
        assertThat(replayed)
                .as(
                        "rows read again, of %s read at the abort",
                        CheckpointAbortingTables.seenAtAbort)
                .isPositive()
                .isLessThan(CheckpointAbortingTables.seenAtAbort);
    }

    /**
     * {@link #checkpointing} with the checkpoints retained when the job is cancelled, for {@link
     * #checkpointMidway}.
     */
    static Map<String, String> retainedCheckpoints(Path dir) {
        Map<String, String> options = new HashMap<>(checkpointing(dir));
        options.put(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key(),
                "RETAIN_ON_CANCELLATION");
        return options;
    }

    /**
     * Runs {@code insert} (configured with {@link #retainedCheckpoints}) until a quarter of the
     * source's {@code rows} were read and the rest are held back, waits for a checkpoint taken
     * after that to complete, cancels the job and returns the path of its latest completed
     * checkpoint, asserting that the job read some but not all of the rows.
     */
    static String checkpointMidway(
            MiniCluster mini, StreamTableEnvironment tEnv, String insert, Path dir, int rows)
            throws Exception {
        FailOnce.reset();
        FailOnce.holdAfter = rows / 4;
        JobClient job;
        try {
            job = tEnv.executeSql(insert).getJobClient().get();
            awaitCheckpointAfter(mini, job.getJobID(), awaitHeld(job));
            job.cancel().get();
            // Cancelled once every task has closed (its native resources freed).
            while (!job.getJobStatus().get().isGloballyTerminalState()) {
                Thread.sleep(20);
            }
            assertThat(FailOnce.CALLS.size())
                    .as("rows read before the cancellation")
                    .isPositive()
                    .isLessThan(rows);
        } finally {
            FailOnce.reset();
        }
        Path jobDir = dir.resolve(job.getJobID().toString());
        try (Stream<Path> checkpoints = Files.list(jobDir)) {
            return checkpoints
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(
                            Comparator.comparingInt(
                                    p -> Integer.parseInt(p.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no completed checkpoint in " + jobDir))
                    .toUri()
                    .toString();
        }
    }

    /**
     * Runs {@code job} (which starts one job that calls fail_once on every source row), armed to
     * fail at the first row of id {@code failAt} or above once a checkpoint taken after that row
     * has completed, and returns what it returns.
     */
    static <T> T failingAfterCheckpoint(MiniCluster mini, long failAt, Callable<T> job)
            throws Exception {
        FailOnce.arm(failAt);
        AtomicReference<Throwable> watchError = new AtomicReference<>();
        Thread watcher =
                new Thread(
                        () -> {
                            try {
                                while (FailOnce.HELD_SINCE.get() == 0) {
                                    Thread.sleep(POLL_MILLIS);
                                }
                                awaitCheckpointAfter(mini, null, FailOnce.HELD_SINCE.get());
                                FailOnce.release();
                            } catch (InterruptedException e) {
                                // The job ended first: the test's assertions say how.
                            } catch (Throwable t) {
                                watchError.set(t);
                            }
                        },
                        "checkpoint-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try {
            T result = job.call();
            if (watchError.get() != null) {
                throw new AssertionError("watching the checkpoints failed", watchError.get());
            }
            return result;
        } finally {
            watcher.interrupt();
            watcher.join();
            FailOnce.ARMED.set(false);
        }
    }

    private static final long POLL_MILLIS = 20;

    /** Waits until fail_once holds rows of {@code job} back; returns when it began (wall clock). */
    private static long awaitHeld(JobClient job) throws Exception {
        while (FailOnce.HELD_SINCE.get() == 0) {
            if (job.getJobStatus().get().isTerminalState()) {
                throw new AssertionError(
                        "the job ended before its rows were held: " + job.getJobStatus().get());
            }
            Thread.sleep(POLL_MILLIS);
        }
        return FailOnce.HELD_SINCE.get();
    }

    /**
     * Waits until job {@code jobId} (null: the cluster's one running job) has completed a
     * checkpoint that was triggered after {@code since} (wall clock, as Flink's trigger times).
     */
    static void awaitCheckpointAfter(MiniCluster mini, @Nullable JobID jobId, long since)
            throws Exception {
        while (true) {
            for (JobStatusMessage job : mini.listJobs().get()) {
                if ((jobId == null && job.getJobState().isGloballyTerminalState())
                        || (jobId != null && !job.getJobId().equals(jobId))) {
                    continue;
                }
                CheckpointStatsSnapshot stats =
                        mini.getExecutionGraph(job.getJobId()).get().getCheckpointStatsSnapshot();
                CompletedCheckpointStats latest =
                        stats == null ? null : stats.getHistory().getLatestCompletedCheckpoint();
                if (latest != null && latest.getTriggerTimestamp() > since) {
                    return;
                }
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /**
     * The native stores opened since {@code before} ({@link NativeMetrics#storeDirectories}): at
     * least one, and none of their directories left once the jobs that opened them ended, failed
     * over or were cancelled.
     */
    static void assertStoreDirectoriesDeleted(List<String> before) {
        List<String> opened = new ArrayList<>(NativeMetrics.storeDirectories());
        opened.removeAll(before);
        assertThat(opened).as("native stores opened").isNotEmpty();
        assertThat(opened)
                .as("native store directories left behind")
                .noneMatch(dir -> Files.exists(Path.of(dir)));
    }

    /**
     * Asserts that fail_once failed the job ({@link #failingAfterCheckpoint}) and that the job
     * restored from a completed checkpoint: every one of the source's {@code rows} was seen, and
     * the rows seen more often than the least-seen one (the replay) are fewer than those seen when
     * the failure was injected - a restart from scratch replays them all, a restore from a
     * checkpoint taken after the rows were held only those read since.
     */
    static void assertRestoredFromCheckpoint(int rows) {
        assertThat(FailOnce.seenAtFailure)
                .as("rows seen when the injected failure happened (-1: it never happened)")
                .isPositive();
        int once = FailOnce.CALLS.values().stream().min(Integer::compare).orElse(0);
        long replayed = FailOnce.CALLS.values().stream().filter(c -> c > once).count();
        assertThat(FailOnce.CALLS).hasSize(rows);
        assertThat(replayed)
                .as("rows replayed, of %s seen at the failure", FailOnce.seenAtFailure)
                .isLessThan(FailOnce.seenAtFailure);
    }
}
