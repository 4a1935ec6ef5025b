package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.config.StreamFusionOptions;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * What the state tests share: table environments for jobs that fail, restore and rescale on a
 * MiniCluster (stock or native, heap or RocksDB, stable operator uids), a datagen sequence source,
 * and a UDF that fails the job once.
 */
final class StateJobs {
    private StateJobs() {}

    /** Fails the job once, at {@link #failAt}, while armed. */
    public static final class FailOnce extends ScalarFunction {
        static final AtomicBoolean ARMED = new AtomicBoolean();
        /** Calls per id, over all attempts of a job. */
        static final Map<Long, Integer> CALLS = new ConcurrentHashMap<>();
        /** The rows seen when the failure was injected (a restart from scratch replays them). */
        static volatile int seenAtFailure = -1;
        static volatile long failAt = -1;

        public Long eval(Long id) {
            if (id != null) {
                CALLS.merge(id, 1, Integer::sum);
            }
            if (id != null && id == failAt && ARMED.compareAndSet(true, false)) {
                seenAtFailure = CALLS.size();
                throw new IllegalStateException("injected failure at row " + id);
            }
            return id;
        }
    }

    /**
     * A table environment: stock or native (strict, batches and window buffers of 64 rows),
     * {@code backend} state,
     * restarts after a failure, {@code extra} configuration, and the fail_once function.
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

    /**
     * A datagen table {@code name} of ids 1..rows (each source subtask reads its own range), at
     * {@code rowsPerSecond} per subtask when positive, with {@code extraColumns} (", ..." or "").
     */
    static String sequenceSource(String name, int rows, int rowsPerSecond, String extraColumns) {
        String rate = rowsPerSecond > 0 ? "'rows-per-second'='" + rowsPerSecond + "'," : "";
        return "CREATE TEMPORARY TABLE " + name + " (id BIGINT" + extraColumns
                + ") WITH ('connector'='datagen', " + rate + "'number-of-rows'='" + rows
                + "', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='"
                + rows + "')";
    }

    /**
     * Runs {@code insert} (a query that calls fail_once on every source row) for two seconds,
     * then stops it with a savepoint in {@code dir} and returns the savepoint's path, asserting
     * that the job read some but not all of the source's {@code rows}.
     */
    static String savepointMidway(StreamTableEnvironment tEnv, String insert, Path dir, int rows)
            throws Exception {
        FailOnce.CALLS.clear();
        JobClient job = tEnv.executeSql(insert).getJobClient().get();
        Thread.sleep(2_000);
        String savepoint =
                job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        assertThat(FailOnce.CALLS.size())
                .as("rows read before the savepoint")
                .isPositive()
                .isLessThan(rows);
        return savepoint;
    }

    /**
     * The options of a job whose checkpoints (every 100 ms, into {@code dir}) outlive its
     * cancellation, for {@link #checkpointMidway}.
     */
    static Map<String, String> retainedCheckpoints(Path dir) {
        return Map.of(
                CheckpointingOptions.CHECKPOINTING_INTERVAL.key(), "100 ms",
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(), dir.toUri().toString(),
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key(),
                        "RETAIN_ON_CANCELLATION");
    }

    /**
     * Runs {@code insert} (configured with {@link #retainedCheckpoints}) for two seconds, cancels
     * it and returns the path of its latest completed checkpoint, asserting that the job read
     * some but not all of the source's {@code rows}.
     */
    static String checkpointMidway(StreamTableEnvironment tEnv, String insert, Path dir, int rows)
            throws Exception {
        FailOnce.CALLS.clear();
        JobClient job = tEnv.executeSql(insert).getJobClient().get();
        Thread.sleep(2_000);
        job.cancel().get();
        assertThat(FailOnce.CALLS.size())
                .as("rows read before the cancellation")
                .isPositive()
                .isLessThan(rows);
        Path jobDir = dir.resolve(job.getJobID().toString());
        try (Stream<Path> checkpoints = Files.list(jobDir)) {
            return checkpoints
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingInt(
                            p -> Integer.parseInt(p.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no completed checkpoint in " + jobDir))
                    .toUri()
                    .toString();
        }
    }

    /**
     * Asserts that fail_once failed the job and that the job restored from a completed
     * checkpoint: every one of the source's {@code rows} was seen, and the rows seen more often
     * than the least-seen one (the replay) are fewer than those seen when the failure was
     * injected - a restart from scratch replays them all (about 16,000: the two source subtasks'
     * rows before the failure, at the 8,000th row of the second), a restore from the last
     * checkpoint a few hundred. (A fixed bound of 6,000 failed once with RocksDB and FIRST_VALUE
     * over retraction, whose slow checkpoints left 7,204 rows to replay of more seen.)
     */
    static void assertRestoredFromCheckpoint(int rows) {
        assertThat(FailOnce.ARMED.get()).as("the injected failure happened").isFalse();
        int once = FailOnce.CALLS.values().stream().min(Integer::compare).orElse(0);
        long replayed = FailOnce.CALLS.values().stream().filter(c -> c > once).count();
        assertThat(FailOnce.CALLS).hasSize(rows);
        assertThat(replayed)
                .as("rows replayed, of %s seen at the failure", FailOnce.seenAtFailure)
                .isLessThan(FailOnce.seenAtFailure);
    }
}
