package io.streamfusion.bench.nexmark;

import io.streamfusion.bench.Engines;
import io.streamfusion.bench.Engines.Engine;
import io.streamfusion.bench.Trials;
import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.annotation.Nullable;

/**
 * {@code ./sf bench nexmark}: every selected Nexmark query on stock Flink and on StreamFusion, with
 * the same generated events, parallelism, memory and options. Per query: a results check on a
 * smaller run (SELECT of the INSERT collected, changelogs folded and compared), warmups, then
 * trials that alternate which engine goes first, each job on a fresh MiniCluster in this warm JVM.
 * Each query's record is appended to {@code results.jsonl} as soon as it finishes ({@link
 * ResultsLog}); {@code --resume} skips the queries already there; a matrix of state backends and
 * mini-batch settings runs its configurations in turn. Prints a table and writes {@code
 * report.html} ({@link SuiteReport}). A benchmark, not a test: it reports, it asserts nothing.
 */
public final class NexmarkBenchmark {
    /** {@code INSERT INTO sink [(columns)]}, the part of an INSERT before its query. */
    private static final Pattern INSERT_TARGET =
            Pattern.compile("(?is)^INSERT\\s+INTO\\s+\\S+\\s*(\\([^)]*\\))?\\s*");

    /** What runs a query: stock Flink, StreamFusion, or StreamFusion without islands. */
    enum Arm {
        STOCK("stock", Engine.STOCK),
        NATIVE("native", Engine.NATIVE),
        NATIVE_ISLANDS_OFF("native_islands_off", Engine.NATIVE);

        final String key;
        final Engine engine;

        Arm(String key, Engine engine) {
            this.key = key;
            this.engine = engine;
        }
    }

    private final NexmarkConfig config;
    private final Path sideInput;
    private final long startNanos = System.nanoTime();
    private final Profiles profiles;

    /** The job the current query runs now; the query's watchdog cancels it at the deadline. */
    private JobClient currentJob;

    /** Set by the watchdog when the current query ran past --query-timeout. */
    private volatile boolean timedOut;

    /**
     * Applied to the native engine's collected rows before the results check (query, rows → rows):
     * lets a test plant a wrong result and see the check catch it.
     */
    @VisibleForTesting
    BiFunction<String, List<Row>, List<Row>> nativeResultsHook = (q, rows) -> rows;

    /** Called before each timed job (query, arm): lets a test make a query slow. */
    @VisibleForTesting BiConsumer<String, Arm> beforeTimedJob = (q, arm) -> {};

    NexmarkBenchmark(NexmarkConfig config) {
        this.config = config;
        this.sideInput = config.out.resolve("side_input.txt").toAbsolutePath();
        this.profiles = new Profiles(config.out);
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args) ? 0 : 1);
    }

    /**
     * Parses {@code args} (later options override earlier ones), runs every configuration of the
     * matrix and returns whether every query that ran produced the same results on both engines.
     * Exits with status 2 on a bad argument.
     */
    public static boolean run(String[] args) throws Exception {
        NexmarkConfig config;
        try {
            config = NexmarkConfig.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return false;
        }
        boolean allMatch = true;
        List<NexmarkConfig> cells = config.configurations();
        for (NexmarkConfig cell : cells) {
            for (NexmarkResults.QueryResult r : new NexmarkBenchmark(cell).run()) {
                allMatch &= r.skipped() || r.status().equals("ok");
            }
        }
        if (cells.size() > 1) {
            // One table and one report over the whole matrix, this revision's records only.
            SuiteReport report = SuiteReport.of(List.of(config.out), SuiteReport.currentOf(cells));
            System.out.println();
            report.printTables(System.out);
            Path html = config.out.resolve("report.html");
            report.writeHtml(html);
            System.out.println("wrote " + html.toAbsolutePath());
        }
        return allMatch;
    }

    /**
     * Runs every selected query of this configuration (except those already measured, with
     * --resume), appending each one's record as it finishes; prints the table and writes the report
     * of this configuration's records.
     */
    List<NexmarkResults.QueryResult> run() throws Exception {
        Files.createDirectories(config.out);
        NexmarkQueries.writeSideInput(sideInput);
        System.out.printf(
                "Nexmark %s: %,d events per job (TPS %,d), parallelism %d, %s state, mini-batch"
                        + " %s, %d warmup(s) of %,d events, %d trial(s) alternating%s; results"
                        + " check on %,d events; at most %d s per query%n",
                config.name(),
                config.events,
                config.tps,
                config.parallelism,
                config.state,
                config.miniBatch ? "on" : "off",
                config.warmups,
                config.warmupEvents(),
                config.trials,
                config.compareIslands ? " (with islands off where there are islands)" : "",
                config.checkEvents,
                config.queryTimeoutSeconds);
        ResultsLog log = new ResultsLog(config);
        Set<String> measured = config.resume ? log.measured() : Set.of();
        List<NexmarkResults.QueryResult> results = new ArrayList<>();
        for (String query : config.queries) {
            if (measured.contains(query)) {
                progress(
                        "%s already in %s for this revision and options (--resume)",
                        query, log.file());
                continue;
            }
            NexmarkResults.QueryResult result = runQuery(query);
            log.append(result);
            results.add(result);
        }
        SuiteReport report =
                SuiteReport.of(List.of(config.out), SuiteReport.currentOf(List.of(config)));
        System.out.println();
        report.printTables(System.out);
        Path html = config.out.resolve("report.html");
        report.writeHtml(html);
        System.out.println();
        System.out.println("appended to " + log.file().toAbsolutePath() + "; wrote " + html);
        return results;
    }

    /** The arms of a query's trials: stock, StreamFusion, and islands off when compared. */
    private List<Arm> arms(NexmarkResults.QueryResult result) {
        return config.compareIslands && !result.islands.isEmpty()
                ? List.of(Arm.STOCK, Arm.NATIVE, Arm.NATIVE_ISLANDS_OFF)
                : List.of(Arm.STOCK, Arm.NATIVE);
    }

    private static NexmarkResults.EngineRuns runsOf(NexmarkResults.QueryResult r, Arm arm) {
        switch (arm) {
            case STOCK:
                return r.stock;
            case NATIVE:
                return r.nativeRuns;
            default:
                return r.noIslands;
        }
    }

    private NexmarkResults.QueryResult runQuery(String query) {
        NexmarkResults.QueryResult result = new NexmarkResults.QueryResult(query);
        String skip = NexmarkQueries.SKIPPED.get(query);
        if (skip != null) {
            result.skipReason = skip;
            progress("%s skipped: %s", query, skip);
            return result;
        }
        timedOut = false;
        ScheduledExecutorService watchdog =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "nexmark-query-timeout");
                            t.setDaemon(true);
                            return t;
                        });
        watchdog.schedule(this::timeOut, config.queryTimeoutSeconds, TimeUnit.SECONDS);
        try {
            progress("%s results check (%,d events)", query, config.checkEvents);
            List<Row> stock = collect(Arm.STOCK, query, result);
            List<Row> nativeRows =
                    nativeResultsHook.apply(query, collect(Arm.NATIVE, query, result));
            List<String> ties = NexmarkQueries.TIE_BROKEN_COLUMNS.getOrDefault(query, List.of());
            List<String> key = NexmarkQueries.UPSERT_KEYS.getOrDefault(query, List.of());
            result.check = ResultsCheck.compare(stock, nativeRows, ties, key);
            if (!result.check.match) {
                // Before blaming StreamFusion, see whether stock Flink agrees with itself.
                progress(
                        "%s results differ; running stock again to see whether it agrees with"
                                + " itself",
                        query);
                result.stockSelfCheck =
                        ResultsCheck.compare(stock, collect(Arm.STOCK, query, result), ties, key);
            }
            List<Arm> arms = arms(result);
            if (arms.contains(Arm.NATIVE_ISLANDS_OFF)) {
                result.noIslandsCheck =
                        ResultsCheck.compare(
                                stock, collect(Arm.NATIVE_ISLANDS_OFF, query, result), ties, key);
            }
            progress(
                    "%s results %s (%d stock changes, %d native changes, %d final rows)%s",
                    query,
                    result.check.match ? "match" : "DIFFER",
                    result.check.stockChanges,
                    result.check.nativeChanges,
                    result.check.stockFinalRows,
                    result.noIslandsCheck == null
                            ? ""
                            : result.noIslandsCheck.match
                                    ? "; islands off match too"
                                    : "; islands off DIFFER");
            for (int i = 0; i < config.warmups; i++) {
                progress("%s warmup %d/%d", query, i + 1, config.warmups);
                for (Arm arm : arms) {
                    time(arm, query, config.warmupEvents(), i, false, null);
                }
            }
            for (int i = 0; i < config.trials; i++) {
                // Rotate which arm goes first so that drift favours none.
                StringBuilder line = new StringBuilder();
                for (int j = 0; j < arms.size(); j++) {
                    Arm arm = arms.get((i + j) % arms.size());
                    NexmarkResults.Trial t = time(arm, query, config.events, i, j == 0, result);
                    runsOf(result, arm).trials.add(t);
                    line.append(String.format(" %s %.3fs", arm.key, t.netRuntimeSeconds));
                    if (config.checkpointInterval != null) {
                        line.append(
                                String.format(
                                        " (%d checkpoints, largest %.1f MB, longest %d ms)",
                                        t.checkpoints.completed(),
                                        t.checkpoints.maxFullBytes() / 1e6,
                                        t.checkpoints.maxMillis()));
                    }
                }
                progress("%s trial %d/%d:%s", query, i + 1, config.trials, line);
            }
        } catch (Exception e) {
            if (timedOut) {
                result.timedOut = true;
                result.error =
                        String.format(
                                "still running after %d s (--query-timeout), cancelled",
                                config.queryTimeoutSeconds);
            } else {
                // Which engine's job failed, and the deepest cause (a job failure's top
                // exception only says "Job execution failed").
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                result.error =
                        e.getMessage()
                                + ": "
                                + root.getClass().getSimpleName()
                                + ": "
                                + root.getMessage();
            }
            progress("%s %s: %s", query, result.status(), result.error);
        } finally {
            watchdog.shutdownNow();
        }
        return result;
    }

    /**
     * The watchdog's action at a query's deadline: cancel whatever job the query runs. A test calls
     * it to reach the deadline without waiting for it.
     */
    @VisibleForTesting
    synchronized void timeOut() {
        timedOut = true;
        if (currentJob != null) {
            currentJob.cancel();
        }
    }

    /**
     * Registers the job the query runs now (null when it ended); cancels it at once when the
     * query's deadline has already passed.
     */
    private synchronized void watch(@Nullable JobClient job) {
        currentJob = job;
        if (job != null && timedOut) {
            job.cancel();
        }
    }

    /** Fails before a job starts when the query's deadline has passed. */
    private void checkDeadline() throws TimeoutException {
        if (timedOut) {
            throw new TimeoutException("--query-timeout reached");
        }
    }

    /** {@code SET 'key' = 'value'} in a query's file. */
    private static final Pattern SET =
            Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'\\s*");

    /**
     * A table environment of {@code engine} with the query's tables, views and functions
     * registered; returns the query's INSERT statement, not yet executed.
     */
    private String prepare(
            StreamTableEnvironment tEnv, String query, long events, long tps, Path output) {
        return prepare(tEnv, query, NexmarkQueries.variables(events, tps, output, sideInput));
    }

    /**
     * Registers the query's tables, views and functions and applies its own SET options in {@code
     * tEnv}; returns the query's INSERT statement, not yet executed.
     */
    static String prepare(StreamTableEnvironment tEnv, String query, Map<String, String> vars) {
        String insert = null;
        for (String statement : NexmarkQueries.statements(query, vars)) {
            Matcher set = SET.matcher(statement);
            if (statement.regionMatches(true, 0, "INSERT INTO", 0, 11)) {
                insert = statement;
            } else if (set.matches()) {
                // A query's own option (the SQL client's SET, which executeSql does not take).
                tEnv.getConfig().getConfiguration().setString(set.group(1), set.group(2));
            } else {
                tEnv.executeSql(statement);
            }
        }
        if (insert == null) {
            throw new IllegalStateException(query + " has no INSERT INTO statement");
        }
        return insert;
    }

    private StreamTableEnvironment environment(Arm arm, boolean check) {
        StreamTableEnvironment tEnv =
                Engines.create(
                        arm.engine,
                        config.parallelism,
                        check ? config.checkCluster() : config.cluster(),
                        config.tableOptions());
        if (check) {
            tEnv.getConfig()
                    .set(
                            NexmarkConfig.CHECK_WATERMARK_INTERVAL_KEY,
                            NexmarkConfig.CHECK_WATERMARK_INTERVAL);
        }
        if (arm.engine == Engine.NATIVE) {
            // Most Nexmark operators are not native yet; they fall back to Flink, with reasons.
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "allow");
        }
        if (arm == Arm.NATIVE_ISLANDS_OFF) {
            tEnv.getConfig().set(StreamFusionOptions.ISLANDS.key(), "false");
        }
        return tEnv;
    }

    /**
     * Runs the SELECT of the query's INSERT (its sink replaced by a collecting one; for q10 the
     * filesystem sink is skipped the same way) and returns the changelog. StreamFusion's plan gives
     * the query its coverage and islands.
     */
    private List<Row> collect(Arm arm, String query, NexmarkResults.QueryResult result)
            throws Exception {
        checkDeadline();
        StreamTableEnvironment tEnv = environment(arm, true);
        Path output = Files.createTempDirectory(config.out, query + "-check-");
        try {
            String insert = prepare(tEnv, query, config.checkEvents, config.checkTps, output);
            List<Row> rows = new ArrayList<>();
            TableResult submitted = tEnv.executeSql(selectOf(insert));
            watch(submitted.getJobClient().orElse(null));
            try (CloseableIterator<Row> it = submitted.collect()) {
                it.forEachRemaining(rows::add);
            } finally {
                watch(null);
            }
            if (arm == Arm.NATIVE) {
                noteCoverage(tEnv, result);
            }
            return rows;
        } finally {
            deleteRecursively(output);
        }
    }

    private static void noteCoverage(StreamTableEnvironment tEnv, NexmarkResults.QueryResult r) {
        SupportReport report = StreamFusion.planner(tEnv).lastReport();
        r.nativeOperators = report.nativeCount();
        r.totalOperators = report.totalCount();
        r.fallbackReasons = report.fallbackReasons();
        r.islands = report.islands();
    }

    /** The query of an {@code INSERT INTO sink [columns] query} statement. */
    static String selectOf(String insert) {
        Matcher m = INSERT_TARGET.matcher(insert);
        if (!m.find()) {
            throw new IllegalArgumentException("not an INSERT INTO statement: " + insert);
        }
        return insert.substring(m.end());
    }

    /**
     * Times one job of {@code arm}; with {@code result} (a timed trial, not a warmup) its native
     * coverage is noted, and with --profile the first trial of each arm is profiled.
     */
    private NexmarkResults.Trial time(
            Arm arm,
            String query,
            long events,
            int index,
            boolean ranFirst,
            NexmarkResults.QueryResult result)
            throws Exception {
        checkDeadline();
        beforeTimedJob.accept(query, arm);
        try {
            return timeOnce(arm, query, events, index, ranFirst, result);
        } catch (Exception e) {
            throw new Exception(arm.key + " job failed", e);
        }
    }

    private NexmarkResults.Trial timeOnce(
            Arm arm,
            String query,
            long events,
            int index,
            boolean ranFirst,
            NexmarkResults.QueryResult result)
            throws Exception {
        Trials.settle();
        StreamTableEnvironment tEnv = environment(arm, false);
        Path output = Files.createTempDirectory(config.out, query + "-output-");
        boolean profiled = config.profile && result != null && index == 0;
        try {
            String insert = prepare(tEnv, query, events, config.tps, output);
            long nativeRecordsBefore = NativeMetrics.recordsIn();
            long crossingsBefore = arm.engine == Engine.NATIVE ? NativeLib.jniCrossings() : 0;
            long inputBatchesBefore = NativeMetrics.inputBatches();
            if (profiled) {
                profiles.start();
            }
            ResourceSampler sampler = new ResourceSampler();
            long wallStart = System.nanoTime();
            JobExecutionResult job;
            double wallSeconds;
            double cpuSeconds;
            CheckpointStats.Job checkpoints;
            try {
                TableResult submitted = tEnv.executeSql(insert);
                JobClient client = submitted.getJobClient().get();
                watch(client);
                try {
                    job =
                            client.getJobExecutionResult()
                                    .get(config.jobTimeoutSeconds, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    client.cancel().get();
                    throw new TimeoutException(
                            String.format(
                                    "job still running after %d s (--job-timeout), cancelled",
                                    config.jobTimeoutSeconds));
                } finally {
                    watch(null);
                }
                wallSeconds = (System.nanoTime() - wallStart) / 1e9;
                cpuSeconds = sampler.cpuSeconds();
                checkpoints = CheckpointStats.take(client.getJobID());
            } finally {
                sampler.close();
                if (profiled) {
                    Profiles.Summary summary = profiles.stop(query + "-" + arm.key);
                    result.profiles.put(arm.key, summary);
                }
            }
            if (arm == Arm.NATIVE && result != null) {
                noteCoverage(tEnv, result);
            }
            return new NexmarkResults.Trial(
                    index,
                    ranFirst,
                    job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0,
                    wallSeconds,
                    cpuSeconds,
                    sampler.peakHeapBytes(),
                    sampler.peakNativeBytes(),
                    NativeMetrics.recordsIn() - nativeRecordsBefore,
                    arm.engine == Engine.NATIVE ? NativeLib.jniCrossings() - crossingsBefore : 0,
                    NativeMetrics.inputBatches() - inputBatchesBefore,
                    profiled,
                    checkpoints);
        } finally {
            deleteRecursively(output);
        }
    }

    private void progress(String format, Object... args) {
        long elapsed = (System.nanoTime() - startNanos) / 1_000_000_000L;
        System.err.printf(
                "[nexmark %02d:%02d:%02d] %s%n",
                elapsed / 3600, elapsed / 60 % 60, elapsed % 60, String.format(format, args));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
