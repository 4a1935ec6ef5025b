package io.streamfusion.bench.nexmark;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The outputs of a run: the console table, {@code results.json} (every trial, the configuration,
 * machine facts, git revision) and a self-contained {@code report.html} (inline SVG charts).
 */
final class NexmarkReport {
    private final NexmarkConfig config;
    private final List<NexmarkResults.QueryResult> results;

    NexmarkReport(NexmarkConfig config, List<NexmarkResults.QueryResult> results) {
        this.config = config;
        this.results = results;
    }

    // --- console table ----------------------------------------------------------------------

    void printTable(PrintStream out) {
        String format = "%-5s | %-32s | %-32s | %-8s | %-8s | %-9s | %s%n";
        out.printf(
                format,
                "query",
                "stock median [range]",
                "native median [range]",
                "speedup",
                "native",
                "JNI/batch",
                "results");
        for (NexmarkResults.QueryResult r : results) {
            if (r.skipped()) {
                out.printf(format, r.query, "-", "-", "-", "-", "-", "skipped: " + r.skipReason);
                continue;
            }
            Double speedup = r.speedup();
            out.printf(
                    format,
                    r.query,
                    describe(r.stock),
                    describe(r.nativeRuns),
                    speedup == null ? "-" : String.format(Locale.ROOT, "%.2fx", speedup),
                    r.totalOperators == 0 ? "-" : r.nativeOperators + "/" + r.totalOperators,
                    crossings(r.nativeRuns),
                    resultsColumn(r));
            if (r.check != null && !r.check.match) {
                for (String d : r.check.differences) {
                    out.println("        differs: " + d);
                }
            }
        }
        List<String> reasons = distinctReasons();
        if (!reasons.isEmpty()) {
            out.println();
            out.println("fallback reasons (operator: reason), over all queries:");
            for (String reason : reasons) {
                out.println("  " + reason);
            }
        }
    }

    /**
     * JNI crossings per batch of rows entering native operators, the median over the trials; "-"
     * without native input.
     */
    private static String crossings(NexmarkResults.EngineRuns runs) {
        Double perBatch = runs.medianCrossingsPerInputBatch();
        return perBatch == null ? "-" : String.format(Locale.ROOT, "%.2f", perBatch);
    }

    private String describe(NexmarkResults.EngineRuns runs) {
        if (runs.isEmpty()) {
            return "-";
        }
        return String.format(
                Locale.ROOT,
                "%.2fs [%.2f-%.2f] %s ev/s",
                runs.medianSeconds(),
                runs.minSeconds(),
                runs.maxSeconds(),
                human(config.events / runs.medianSeconds()));
    }

    private static String resultsColumn(NexmarkResults.QueryResult r) {
        switch (r.status()) {
            case "ok":
                if (r.check.stockChanges == 0) {
                    return "match (empty: nothing compared)";
                }
                List<String> ties = NexmarkQueries.TIE_BROKEN_COLUMNS.get(r.query);
                return ties == null
                        ? "match"
                        : "match (tie-broken " + String.join(", ", ties) + " ignored)";
            case "FAILED":
                return "FAILED (results differ)";
            case "UNVERIFIED":
                return "UNVERIFIED (differ, but stock differs from itself too)";
            default:
                return "error: " + r.error;
        }
    }

    private List<String> distinctReasons() {
        List<String> reasons = new ArrayList<>();
        for (NexmarkResults.QueryResult r : results) {
            for (String reason : r.fallbackReasons) {
                if (!reasons.contains(reason)) {
                    reasons.add(reason);
                }
            }
        }
        return reasons;
    }

    static String human(double value) {
        if (value >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", value / 1e6);
        }
        if (value >= 1e3) {
            return String.format(Locale.ROOT, "%.1fK", value / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", value);
    }

    // --- results.json -----------------------------------------------------------------------

    void writeJson(Path file) throws IOException {
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(file.toFile(), document());
    }

    Map<String, Object> document() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("config", config.describe());
        doc.put("machine", machine());
        doc.put("revision", git("rev-parse", "HEAD"));
        doc.put("revision_dirty", !git("status", "--porcelain", "--untracked-files=no").isEmpty());
        doc.put("finished_at", Instant.now().toString());
        List<Object> queries = new ArrayList<>();
        for (NexmarkResults.QueryResult r : results) {
            queries.add(query(r));
        }
        doc.put("queries", queries);
        return doc;
    }

    private Map<String, Object> query(NexmarkResults.QueryResult r) {
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("query", r.query);
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
            q.put("results_check", check);
        }
        q.put("native_operators", r.nativeOperators);
        q.put("total_operators", r.totalOperators);
        // Operators between the sources and the sinks are counted above; no source or sink is
        // native yet, these fields say so explicitly.
        q.put("native_source", false);
        q.put("native_sink", false);
        q.put("fallback_reasons", r.fallbackReasons);
        q.put("stock", engine(r.stock));
        q.put("native", engine(r.nativeRuns));
        q.put("speedup", r.speedup());
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
        e.put("events_per_cpu_s", config.events / runs.medianCpuSeconds());
        e.put("peak_heap_bytes", runs.peakHeapBytes());
        e.put("peak_native_bytes", runs.peakNativeBytes());
        List<Object> trials = new ArrayList<>();
        for (NexmarkResults.Trial t : runs.trials) {
            Map<String, Object> trial = new LinkedHashMap<>();
            trial.put("trial", t.index);
            trial.put("ran_first", t.ranFirst);
            trial.put("net_runtime_s", t.netRuntimeSeconds);
            trial.put("wall_s", t.wallSeconds);
            trial.put("events_per_s", config.events / t.netRuntimeSeconds);
            trial.put("cpu_s", t.cpuSeconds);
            trial.put("events_per_cpu_s", config.events / t.cpuSeconds);
            trial.put("peak_heap_bytes", t.peakHeapBytes);
            trial.put("peak_native_bytes", t.peakNativeBytes);
            trial.put("native_records_in", t.nativeRecordsIn);
            trial.put("jni_crossings", t.jniCrossings);
            trial.put("native_input_batches", t.nativeInputBatches);
            trial.put(
                    "jni_crossings_per_input_batch",
                    t.nativeInputBatches == 0
                            ? 0.0
                            : (double) t.jniCrossings / t.nativeInputBatches);
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
    private static String git(String... args) {
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
                            NexmarkReport.class
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

    // --- report.html ------------------------------------------------------------------------

    void writeHtml(Path file) throws IOException {
        Files.writeString(file, html(), StandardCharsets.UTF_8);
    }

    private String html() {
        StringBuilder h = new StringBuilder();
        h.append(
                        "<!DOCTYPE html>\n"
                                + "<html><head><meta charset=\"utf-8\"><title>StreamFusion"
                                + " Nexmark</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em;color:#222}")
                .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;")
                .append("padding:4px 8px;text-align:left;vertical-align:top;font-size:13px}")
                .append("th{background:#f0f0f0}.failed{color:#b00;font-weight:bold}")
                .append("svg text{font-size:11px}</style></head><body>\n")
                .append("<h1>StreamFusion vs stock Flink: Nexmark</h1>\n<p>")
                .append(
                        escape(
                                String.format(
                                        Locale.ROOT,
                                        "%,d events per job (TPS %,d), parallelism %d, %s state,"
                                                + " mini-batch %s, %d warmup(s) of %,d events, %d"
                                                + " trial(s); results check on %,d events. ",
                                        config.events,
                                        config.tps,
                                        config.parallelism,
                                        config.state,
                                        config.miniBatch ? "on" : "off",
                                        config.warmups,
                                        config.warmupEvents(),
                                        config.trials,
                                        config.checkEvents)))
                .append(escape(String.valueOf(machine().get("cpu_model"))))
                .append(", ")
                .append(machine().get("nproc"))
                .append(" cores; revision ")
                .append(escape(git("rev-parse", "--short", "HEAD")))
                .append(".</p>\n");
        h.append("<h2>Speedup per query (stock median / native median)</h2>\n")
                .append(speedupChart());
        h.append("<h2>Events per CPU-second</h2>\n").append(cpuChart());
        h.append("<h2>Coverage and results</h2>\n").append(coverageTable());
        return h.append("</body></html>\n").toString();
    }

    private List<NexmarkResults.QueryResult> ran() {
        List<NexmarkResults.QueryResult> ran = new ArrayList<>();
        for (NexmarkResults.QueryResult r : results) {
            if (!r.skipped()) {
                ran.add(r);
            }
        }
        return ran;
    }

    private String speedupChart() {
        List<NexmarkResults.QueryResult> ran = ran();
        double max = 1.5;
        for (NexmarkResults.QueryResult r : ran) {
            if (r.speedup() != null) {
                max = Math.max(max, r.speedup() * 1.1);
            }
        }
        int slot = 44;
        int left = 40;
        int height = 220;
        int width = left + slot * Math.max(1, ran.size()) + 10;
        StringBuilder s = svgStart(width, height + 40);
        axis(s, left, height, width, max, "x");
        double oneY = y(1.0, max, height);
        s.append(line(left, oneY, width - 10, oneY, "#888", "4,3"));
        for (int i = 0; i < ran.size(); i++) {
            NexmarkResults.QueryResult r = ran.get(i);
            double x = left + i * slot + 8;
            Double speedup = r.speedup();
            if (speedup != null) {
                double top = y(speedup, max, height);
                s.append(
                        rect(
                                x,
                                top,
                                slot - 16,
                                height - top,
                                speedup >= 1 ? "#2a7" : "#d62",
                                r.query + ": " + String.format(Locale.ROOT, "%.2fx", speedup)));
                s.append(
                        text(
                                x + (slot - 16) / 2.0,
                                top - 3,
                                String.format(Locale.ROOT, "%.2f", speedup),
                                "middle"));
            } else {
                s.append(
                        text(
                                x + (slot - 16) / 2.0,
                                height - 4,
                                r.status().toUpperCase(Locale.ROOT),
                                "middle",
                                "fill=\"#b00\""));
            }
            s.append(text(x + (slot - 16) / 2.0, height + 15, r.query, "middle"));
        }
        return s.append("</svg>\n").toString();
    }

    private String cpuChart() {
        List<NexmarkResults.QueryResult> ran = ran();
        double max = 1;
        for (NexmarkResults.QueryResult r : ran) {
            for (NexmarkResults.EngineRuns runs : List.of(r.stock, r.nativeRuns)) {
                if (!runs.isEmpty()) {
                    max = Math.max(max, config.events / runs.medianCpuSeconds() * 1.1);
                }
            }
        }
        int slot = 52;
        int left = 56;
        int height = 220;
        int width = left + slot * Math.max(1, ran.size()) + 120;
        StringBuilder s = svgStart(width, height + 40);
        axis(s, left, height, width - 110, max, "");
        for (int i = 0; i < ran.size(); i++) {
            NexmarkResults.QueryResult r = ran.get(i);
            double x = left + i * slot + 6;
            int e = 0;
            for (NexmarkResults.EngineRuns runs : List.of(r.stock, r.nativeRuns)) {
                if (!runs.isEmpty()) {
                    double value = config.events / runs.medianCpuSeconds();
                    double top = y(value, max, height);
                    s.append(
                            rect(
                                    x + e * 20,
                                    top,
                                    18,
                                    height - top,
                                    e == 0 ? "#888" : "#27c",
                                    r.query
                                            + (e == 0 ? " stock: " : " native: ")
                                            + human(value)
                                            + " events/CPU-s"));
                }
                e++;
            }
            s.append(text(x + 19, height + 15, r.query, "middle"));
        }
        int lx = width - 100;
        s.append(rect(lx, 10, 12, 12, "#888", "stock"))
                .append(text(lx + 16, 20, "stock Flink", "start"));
        s.append(rect(lx, 28, 12, 12, "#27c", "native"))
                .append(text(lx + 16, 38, "StreamFusion", "start"));
        return s.append("</svg>\n").toString();
    }

    private String coverageTable() {
        StringBuilder t =
                new StringBuilder("<table><tr><th>query</th><th>results</th>")
                        .append("<th>stock median [range] s</th><th>native median [range] s</th>")
                        .append(
                                "<th>speedup</th><th>stock events/CPU-s</th><th>native"
                                        + " events/CPU-s</th>")
                        .append("<th>peak heap stock / native</th><th>peak native memory</th>")
                        .append("<th>native operators</th><th>JNI crossings per input batch</th>")
                        .append("<th>fallback reasons</th></tr>\n");
        for (NexmarkResults.QueryResult r : results) {
            t.append("<tr><td>").append(r.query).append("</td>");
            if (r.skipped()) {
                t.append("<td colspan=\"11\">skipped: ")
                        .append(escape(r.skipReason))
                        .append("</td></tr>\n");
                continue;
            }
            String status = r.status();
            t.append("<td")
                    .append(status.equals("ok") ? ">" : " class=\"failed\">")
                    .append(escape(resultsColumn(r)));
            if (r.check != null && !r.check.match) {
                for (String d : r.check.differences) {
                    t.append("<br>").append(escape(d));
                }
            }
            t.append("</td><td>")
                    .append(range(r.stock))
                    .append("</td><td>")
                    .append(range(r.nativeRuns))
                    .append("</td><td>")
                    .append(
                            r.speedup() == null
                                    ? "-"
                                    : String.format(Locale.ROOT, "%.2fx", r.speedup()))
                    .append("</td><td>")
                    .append(perCpu(r.stock))
                    .append("</td><td>")
                    .append(perCpu(r.nativeRuns))
                    .append("</td><td>")
                    .append(mib(r.stock.peakHeapBytes()))
                    .append(" / ")
                    .append(mib(r.nativeRuns.peakHeapBytes()))
                    .append("</td><td>")
                    .append(mib(r.nativeRuns.peakNativeBytes()))
                    .append("</td><td>")
                    .append(r.nativeOperators)
                    .append(" / ")
                    .append(r.totalOperators)
                    .append("</td><td>")
                    .append(crossings(r.nativeRuns))
                    .append("</td><td>");
            for (String reason : r.fallbackReasons) {
                t.append(escape(reason)).append("<br>");
            }
            t.append("</td></tr>\n");
        }
        return t.append("</table>\n").toString();
    }

    private static String range(NexmarkResults.EngineRuns runs) {
        return runs.isEmpty()
                ? "-"
                : String.format(
                        Locale.ROOT,
                        "%.3f [%.3f-%.3f]",
                        runs.medianSeconds(),
                        runs.minSeconds(),
                        runs.maxSeconds());
    }

    private String perCpu(NexmarkResults.EngineRuns runs) {
        return runs.isEmpty() ? "-" : human(config.events / runs.medianCpuSeconds());
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
    }

    // --- SVG pieces ---

    private static StringBuilder svgStart(int width, int height) {
        return new StringBuilder(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                                + " viewBox=\"0 0 %d %d\">\n",
                        width,
                        height,
                        width,
                        height));
    }

    private static double y(double value, double max, int height) {
        return height - value / max * (height - 10);
    }

    private static void axis(
            StringBuilder s, int left, int height, int right, double max, String unit) {
        s.append(line(left, height, right, height, "#444", null))
                .append(line(left, 10, left, height, "#444", null));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double yy = y(v, max, height);
            s.append(line(left - 3, yy, left, yy, "#444", null));
            String label = unit.equals("x") ? String.format(Locale.ROOT, "%.1fx", v) : human(v);
            s.append(text(left - 5, yy + 4, label, "end"));
        }
    }

    private static String line(
            double x1, double y1, double x2, double y2, String color, String dash) {
        return String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>\n",
                x1,
                y1,
                x2,
                y2,
                color,
                dash == null ? "" : " stroke-dasharray=\"" + dash + "\"");
    }

    private static String rect(double x, double y, double w, double h, String color, String title) {
        return String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
                        + " fill=\"%s\"><title>%s</title></rect>\n",
                x,
                y,
                w,
                Math.max(0, h),
                color,
                escape(title));
    }

    private static String text(
            double x, double y, String text, String anchor, String... attributes) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>%s</text>\n",
                x,
                y,
                anchor,
                String.join(" ", attributes),
                escape(text));
    }

    static String escape(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
