package io.streamfusion.bench.nexmark;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code results.jsonl}: one line per measured query, appended (and synced) as soon as the query
 * finishes, so that a run killed midway loses at most the query in progress. Every line is whole by
 * itself: the revision, the options that shaped the measurement ({@link NexmarkConfig#identity()}),
 * the rest of the run's settings, machine facts, and the query's trials, check, coverage and
 * profiles. {@code ./sf bench report} composes any set of these files.
 */
final class ResultsLog {
    static final String FILE = "results.jsonl";

    /** The version of a record's layout; {@code ./sf bench report} reads this version. */
    static final int FORMAT = 1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NexmarkConfig config;
    private final Path file;
    private final String revision;
    private final boolean dirty;

    ResultsLog(NexmarkConfig config) {
        this.config = config;
        this.file = config.out.resolve(FILE);
        this.revision = git("rev-parse", "HEAD");
        this.dirty = !git("status", "--porcelain", "--untracked-files=no").isEmpty();
    }

    Path file() {
        return file;
    }

    /**
     * The queries this file already holds for this revision (clean or dirty alike) and exactly
     * these options, except those whose run ended in an error (a job failure may be transient; a
     * TIMEOUT is kept: it would time out again).
     */
    Set<String> measured() throws IOException {
        Set<String> done = new HashSet<>();
        JsonNode identity = identityOf(config);
        for (JsonNode r : read(file)) {
            if (r.path("revision").asText().equals(revision)
                    && r.path("revision_dirty").asBoolean() == dirty
                    && r.path("options").equals(identity)
                    && !r.path("status").asText().equals("error")) {
                done.add(r.path("query").asText());
            }
        }
        return done;
    }

    /**
     * A configuration's options as they read back from a record (numbers typed as the parser types
     * them, so that equality with a record's "options" is by value).
     */
    static JsonNode identityOf(NexmarkConfig config) throws IOException {
        return JSON.readTree(JSON.writeValueAsString(config.identity()));
    }

    /**
     * Appends the record of one query and forces it to disk. After a torn last line (a run killed
     * while writing it) the record starts on a line of its own.
     */
    void append(NexmarkResults.QueryResult result) throws IOException {
        Files.createDirectories(file.getParent());
        String prefix = endsInsideALine(file) ? "\n" : "";
        byte[] line =
                (prefix + JSON.writeValueAsString(record(result)) + "\n")
                        .getBytes(StandardCharsets.UTF_8);
        try (FileOutputStream out = new FileOutputStream(file.toFile(), true)) {
            out.write(line);
            out.getFD().sync();
        }
    }

    private static boolean endsInsideALine(Path file) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            return false;
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(f.length() - 1);
            return f.read() != '\n';
        }
    }

    /**
     * The records of a results file in order; a line that does not parse (the last line of a run
     * killed while writing it) is skipped with a warning.
     */
    static List<JsonNode> read(Path file) throws IOException {
        List<JsonNode> records = new ArrayList<>();
        if (!Files.exists(file)) {
            return records;
        }
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            try {
                records.add(JSON.readTree(line));
            } catch (IOException e) {
                System.err.printf("%s:%d: skipped, not a whole record%n", file, n);
            }
        }
        return records;
    }

    Map<String, Object> record(NexmarkResults.QueryResult r) {
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("format", FORMAT);
        q.put("query", r.query);
        q.put("configuration", config.name());
        q.put("revision", revision);
        q.put("revision_dirty", dirty);
        q.put("finished_at", Instant.now().toString());
        q.put("options", config.identity());
        q.put("settings", config.describe());
        q.put("machine", machine());
        q.put("status", r.status());
        q.put("results_match", r.skipped() || r.error != null ? null : r.resultsMatch());
        q.put("skip_reason", r.skipReason);
        q.put("error", r.error);
        if (r.check != null) {
            Map<String, Object> check = new LinkedHashMap<>();
            check.put("events", config.checkEvents);
            check.put("stock_changes", r.check.stockChanges);
            check.put("native_changes", r.check.nativeChanges);
            check.put("stock_final_rows", r.check.stockFinalRows);
            check.put("native_final_rows", r.check.nativeFinalRows);
            check.put("differences", r.check.differences);
            if (r.stockSelfCheck != null) {
                check.put("stock_agrees_with_itself", r.stockSelfCheck.match);
            }
            if (r.noIslandsCheck != null) {
                check.put("islands_off_match", r.noIslandsCheck.match);
                check.put("islands_off_differences", r.noIslandsCheck.differences);
            }
            q.put("results_check", check);
        }
        q.put("native_operators", r.nativeOperators);
        q.put("total_operators", r.totalOperators);
        // Operators between the sources and the sinks are counted above; no source or sink is
        // native yet, these fields say so explicitly.
        q.put("native_source", false);
        q.put("native_sink", false);
        q.put("islands", r.islands);
        q.put("fallback_reasons", r.fallbackReasons);
        q.put("stock", engine(r.stock));
        q.put("native", engine(r.nativeRuns));
        q.put("native_islands_off", engine(r.noIslands));
        q.put("speedup", r.speedup());
        Map<String, Object> profiles = new LinkedHashMap<>();
        r.profiles.forEach((arm, p) -> profiles.put(arm, p.toMap()));
        q.put("profiles", profiles);
        return q;
    }

    private Map<String, Object> engine(NexmarkResults.EngineRuns runs) {
        if (runs.isEmpty()) {
            return null;
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("trials_s", runs.seconds());
        e.put("median_s", runs.medianSeconds());
        e.put("min_s", runs.minSeconds());
        e.put("max_s", runs.maxSeconds());
        e.put("events_per_s", config.events / runs.medianSeconds());
        e.put("cpu_s", runs.medianCpuSeconds());
        e.put("cpu_s_per_million_events", runs.medianCpuSeconds() * 1e6 / config.events);
        e.put("events_per_cpu_s", config.events / runs.medianCpuSeconds());
        e.put("peak_heap_bytes", runs.peakHeapBytes());
        e.put("peak_native_bytes", runs.peakNativeBytes());
        e.put("jni_crossings_per_input_batch", runs.medianCrossingsPerInputBatch());
        List<Object> trials = new ArrayList<>();
        for (NexmarkResults.Trial t : runs.trials) {
            Map<String, Object> trial = new LinkedHashMap<>();
            trial.put("trial", t.index);
            trial.put("ran_first", t.ranFirst);
            trial.put("profiled", t.profiled);
            trial.put("net_runtime_s", t.netRuntimeSeconds);
            trial.put("wall_s", t.wallSeconds);
            trial.put("cpu_s", t.cpuSeconds);
            trial.put("peak_heap_bytes", t.peakHeapBytes);
            trial.put("peak_native_bytes", t.peakNativeBytes);
            trial.put("native_records_in", t.nativeRecordsIn);
            trial.put("jni_crossings", t.jniCrossings);
            trial.put("native_input_batches", t.nativeInputBatches);
            if (config.checkpointInterval != null) {
                trial.put("checkpoints", t.checkpoints.completed());
                trial.put("max_checkpoint_full_bytes", t.checkpoints.maxFullBytes());
                trial.put("max_checkpoint_ms", t.checkpoints.maxMillis());
            }
            trials.add(trial);
        }
        e.put("trials", trials);
        return e;
    }

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("nproc", Runtime.getRuntime().availableProcessors());
        m.put("cpu_model", procField("/proc/cpuinfo", "model name"));
        String memTotal = procField("/proc/meminfo", "MemTotal");
        m.put(
                "memory_bytes",
                memTotal == null ? null : Long.parseLong(memTotal.replaceAll("\\D", "")) * 1024);
        m.put(
                "os",
                System.getProperty("os.name")
                        + " "
                        + System.getProperty("os.version")
                        + " "
                        + System.getProperty("os.arch"));
        m.put(
                "jvm",
                System.getProperty("java.vm.name")
                        + " "
                        + System.getProperty("java.runtime.version"));
        m.put("jvm_max_heap_bytes", Runtime.getRuntime().maxMemory());
        m.put("jvm_arguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
        return m;
    }

    /** The value after the first "key :" line of a /proc file, or null. */
    private static String procField(String file, String key) {
        try {
            for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                    return line.substring(colon + 1).trim();
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /**
     * The trimmed output of a read-only git command run in the checkout these classes were built
     * from (the runner may be started from anywhere), or "unknown" when it fails.
     */
    static String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", codeDirectory()));
        command.addAll(List.of(args));
        try {
            Process p =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
            String out =
                    new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "unknown";
            }
            return out;
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String codeDirectory() {
        try {
            return Paths.get(
                            ResultsLog.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI())
                    .toAbsolutePath()
                    .getParent()
                    .toString();
        } catch (Exception e) {
            return ".";
        }
    }
}
