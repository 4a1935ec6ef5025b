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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code ./sf bench nexmark}: every selected Nexmark query on stock Flink and on StreamFusion, with
 * the same generated events, parallelism, memory and options. Per query: a results check on a
 * smaller run (SELECT of the INSERT collected, changelogs folded and compared), warmups, then
 * trials that alternate which engine goes first, each job on a fresh MiniCluster in this warm JVM.
 * Prints a table and writes {@code results.json} and {@code report.html}. A benchmark, not a test:
 * it reports, it asserts nothing.
 */
public final class NexmarkBenchmark {
    /** {@code INSERT INTO sink [(columns)]}, the part of an INSERT before its query. */
    private static final Pattern INSERT_TARGET =
            Pattern.compile("(?is)^INSERT\\s+INTO\\s+\\S+\\s*(\\([^)]*\\))?\\s*");

    private final NexmarkConfig config;
    private final Path sideInput;
    private final long startNanos = System.nanoTime();

    /**
     * Applied to the native engine's collected rows before the results check (query, rows → rows):
     * lets a test plant a wrong result and see the check catch it.
     */
    @VisibleForTesting
    BiFunction<String, List<Row>, List<Row>> nativeResultsHook = (q, rows) -> rows;

    NexmarkBenchmark(NexmarkConfig config) {
        this.config = config;
        this.sideInput = config.out.resolve("side_input.txt").toAbsolutePath();
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args) ? 0 : 1);
    }

    /**
     * Parses {@code args} (later options override earlier ones), runs the benchmark and returns
     * whether every query that ran produced the same results on both engines. Exits with status 2
     * on a bad argument.
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
        for (NexmarkResults.QueryResult r : new NexmarkBenchmark(config).run()) {
            allMatch &= r.skipped() || r.status().equals("ok");
        }
        return allMatch;
    }

    /** Runs every selected query, prints the table and writes the report files. */
    List<NexmarkResults.QueryResult> run() throws Exception {
        Files.createDirectories(config.out);
        NexmarkQueries.writeSideInput(sideInput);
        System.out.printf(
                "Nexmark: %,d events per job (TPS %,d), parallelism %d, %s state, mini-batch %s, "
                        + "%d warmup(s) of %,d events, %d trial(s) alternating; results check on "
                        + "%,d events%n",
                config.events,
                config.tps,
                config.parallelism,
                config.state,
                config.miniBatch ? "on" : "off",
                config.warmups,
                config.warmupEvents(),
                config.trials,
                config.checkEvents);
        List<NexmarkResults.QueryResult> results = new ArrayList<>();
        Path json = config.out.resolve("results.json");
        Path html = config.out.resolve("report.html");
        for (String query : config.queries) {
            results.add(runQuery(query));
            // Written after every query, so that a long run stopped midway keeps what it measured.
            NexmarkReport partial = new NexmarkReport(config, results);
            partial.writeJson(json);
            partial.writeHtml(html);
        }
        System.out.println();
        NexmarkReport report = new NexmarkReport(config, results);
        report.printTable(System.out);
        System.out.println();
        System.out.println("wrote " + json.toAbsolutePath() + " and " + html.toAbsolutePath());
        return results;
    }

    private NexmarkResults.QueryResult runQuery(String query) {
        NexmarkResults.QueryResult result = new NexmarkResults.QueryResult(query);
        String skip = NexmarkQueries.SKIPPED.get(query);
        if (skip != null) {
            result.skipReason = skip;
            progress("%s skipped: %s", query, skip);
            return result;
        }
        try {
            progress("%s results check (%,d events)", query, config.checkEvents);
            List<Row> stock = collect(Engine.STOCK, query);
            List<Row> nativeRows = nativeResultsHook.apply(query, collect(Engine.NATIVE, query));
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
                        ResultsCheck.compare(stock, collect(Engine.STOCK, query), ties, key);
            }
            progress(
                    "%s results %s (%d stock changes, %d native changes, %d final rows)",
                    query,
                    result.check.match ? "match" : "DIFFER",
                    result.check.stockChanges,
                    result.check.nativeChanges,
                    result.check.stockFinalRows);
            for (int i = 0; i < config.warmups; i++) {
                progress("%s warmup %d/%d", query, i + 1, config.warmups);
                time(Engine.STOCK, query, config.warmupEvents(), i, false, null);
                time(Engine.NATIVE, query, config.warmupEvents(), i, false, null);
            }
            for (int i = 0; i < config.trials; i++) {
                // Alternate which engine goes first so that drift favours neither.
                boolean stockFirst = i % 2 == 0;
                Engine first = stockFirst ? Engine.STOCK : Engine.NATIVE;
                Engine second = stockFirst ? Engine.NATIVE : Engine.STOCK;
                NexmarkResults.Trial a = time(first, query, config.events, i, true, result);
                NexmarkResults.Trial b = time(second, query, config.events, i, false, result);
                NexmarkResults.Trial s = stockFirst ? a : b;
                NexmarkResults.Trial n = stockFirst ? b : a;
                result.stock.trials.add(s);
                result.nativeRuns.trials.add(n);
                progress(
                        "%s trial %d/%d: stock %.3fs, native %.3fs",
                        query, i + 1, config.trials, s.netRuntimeSeconds, n.netRuntimeSeconds);
            }
        } catch (Exception e) {
            // Which engine's job failed, and the deepest cause (a job failure's top exception
            // only says "Job execution failed").
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
            progress("%s error: %s", query, result.error);
        }
        return result;
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

    private StreamTableEnvironment environment(Engine engine, boolean check) {
        StreamTableEnvironment tEnv =
                Engines.create(
                        engine,
                        config.parallelism,
                        check ? config.checkCluster() : config.cluster(),
                        config.tableOptions());
        if (check) {
            tEnv.getConfig()
                    .set(
                            NexmarkConfig.CHECK_WATERMARK_INTERVAL_KEY,
                            NexmarkConfig.CHECK_WATERMARK_INTERVAL);
        }
        if (engine == Engine.NATIVE) {
            // Most Nexmark operators are not native yet; they fall back to Flink, with reasons.
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "allow");
        }
        return tEnv;
    }

    /**
     * Runs the SELECT of the query's INSERT (its sink replaced by a collecting one; for q10 the
     * filesystem sink is skipped the same way) and returns the changelog.
     */
    private List<Row> collect(Engine engine, String query) throws Exception {
        StreamTableEnvironment tEnv = environment(engine, true);
        Path output = Files.createTempDirectory(config.out, query + "-check-");
        try {
            String insert = prepare(tEnv, query, config.checkEvents, config.checkTps, output);
            List<Row> rows = new ArrayList<>();
            try (CloseableIterator<Row> it = tEnv.executeSql(selectOf(insert)).collect()) {
                it.forEachRemaining(rows::add);
            }
            return rows;
        } finally {
            deleteRecursively(output);
        }
    }

    /** The query of an {@code INSERT INTO sink [columns] query} statement. */
    static String selectOf(String insert) {
        Matcher m = INSERT_TARGET.matcher(insert);
        if (!m.find()) {
            throw new IllegalArgumentException("not an INSERT INTO statement: " + insert);
        }
        return insert.substring(m.end());
    }

    private NexmarkResults.Trial time(
            Engine engine,
            String query,
            long events,
            int index,
            boolean ranFirst,
            NexmarkResults.QueryResult result)
            throws Exception {
        try {
            return timeOnce(engine, query, events, index, ranFirst, result);
        } catch (Exception e) {
            throw new Exception(engine.name().toLowerCase() + " job failed", e);
        }
    }

    private NexmarkResults.Trial timeOnce(
            Engine engine,
            String query,
            long events,
            int index,
            boolean ranFirst,
            NexmarkResults.QueryResult result)
            throws Exception {
        Trials.settle();
        StreamTableEnvironment tEnv = environment(engine, false);
        Path output = Files.createTempDirectory(config.out, query + "-output-");
        try {
            String insert = prepare(tEnv, query, events, config.tps, output);
            long nativeRecordsBefore = NativeMetrics.recordsIn();
            long crossingsBefore = engine == Engine.NATIVE ? NativeLib.jniCrossings() : 0;
            long inputBatchesBefore = NativeMetrics.inputBatches();
            ResourceSampler sampler = new ResourceSampler();
            long wallStart = System.nanoTime();
            JobExecutionResult job;
            double wallSeconds;
            double cpuSeconds;
            try {
                TableResult submitted = tEnv.executeSql(insert);
                JobClient client = submitted.getJobClient().get();
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
                }
                wallSeconds = (System.nanoTime() - wallStart) / 1e9;
                cpuSeconds = sampler.cpuSeconds();
            } finally {
                sampler.close();
            }
            if (engine == Engine.NATIVE && result != null) {
                SupportReport report = StreamFusion.planner(tEnv).lastReport();
                result.nativeOperators = report.nativeCount();
                result.totalOperators = report.totalCount();
                result.fallbackReasons = report.fallbackReasons();
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
                    engine == Engine.NATIVE ? NativeLib.jniCrossings() - crossingsBefore : 0,
                    NativeMetrics.inputBatches() - inputBatchesBefore);
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
