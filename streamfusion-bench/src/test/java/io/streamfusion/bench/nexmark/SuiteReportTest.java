package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Composing records into one report, on hand-written records (no jobs run). */
class SuiteReportTest {
    @TempDir Path temp;

    private static String options(String state, long events) {
        return String.format(
                Locale.ROOT,
                "{\"configuration\":\"%s-minibatch-off\",\"events\":%d,\"tps\":10,"
                        + "\"check_events\":10,\"check_tps\":1,\"parallelism\":2,\"warmups\":1,"
                        + "\"warmup_events\":5,\"trials\":3,\"state\":\"%s\",\"minibatch\":false,"
                        + "\"managed_memory\":\"512m\",\"table_options\":{},"
                        + "\"compare_islands\":false,\"profile\":false}",
                state,
                events,
                state);
    }

    private static String arm(double median, double cpu) {
        return String.format(
                Locale.ROOT,
                "{\"median_s\":%s,\"min_s\":%s,\"max_s\":%s,\"cpu_s\":%s,"
                        + "\"peak_heap_bytes\":1048576,\"peak_native_bytes\":0}",
                median,
                median * 0.9,
                median * 1.1,
                cpu);
    }

    /** A record: stock and native medians give the speedup, as the runner computes it. */
    private static String record(
            String query, String state, String status, double stock, double nat, String at) {
        return record(query, state, status, stock, nat, 0, at);
    }

    /** As above, with StreamFusion's islands off taking {@code off} s (0: not run). */
    private static String record(
            String query,
            String state,
            String status,
            double stock,
            double nat,
            double off,
            String at) {
        Double speedup = status.equals("ok") ? stock / nat : null;
        return String.format(
                Locale.ROOT,
                "{\"format\":1,\"query\":\"%s\",\"configuration\":\"%s-minibatch-off\","
                        + "\"revision\":\"0123456789abcdef\",\"revision_dirty\":false,"
                        + "\"finished_at\":\"%s\",\"options\":%s,\"status\":\"%s\","
                        + "\"results_check\":{\"stock_changes\":4,\"stock_final_rows\":4,"
                        + "\"differences\":[]},\"native_operators\":2,\"total_operators\":3,"
                        + "\"islands\":[[\"Calc\",\"WindowAggregate\"]],\"fallback_reasons\":[],"
                        + "\"stock\":%s,\"native\":%s,\"native_islands_off\":%s,"
                        + "\"speedup\":%s,\"profiles\":{}}\n",
                query,
                state,
                at,
                options(state, 1_000_000),
                status,
                arm(stock, 2 * stock),
                arm(nat, 2 * nat),
                off == 0 ? "null" : arm(off, 2 * off),
                speedup == null ? "null" : String.valueOf(speedup));
    }

    @Test
    void composesConfigurationsLatestRecordsAndTheGeometricMeanOfMatchingQueries()
            throws Exception {
        Path heap = Files.createDirectories(temp.resolve("run1"));
        Files.writeString(
                heap.resolve(ResultsLog.FILE),
                record("q1", "heap", "ok", 4.0, 4.0, "2026-01-01T00:00:00Z")
                        + record("q0", "heap", "ok", 2.0, 1.0, 1.5, "2026-01-01T00:00:01Z")
                        // A later record of q1 replaces the first.
                        + record("q1", "heap", "ok", 8.0, 1.0, "2026-01-01T00:00:02Z")
                        + record("q2", "heap", "FAILED", 5.0, 1.0, "2026-01-01T00:00:03Z"),
                StandardCharsets.UTF_8);
        Path rocks = Files.createDirectories(temp.resolve("run2"));
        Files.writeString(
                rocks.resolve("rocks.jsonl"),
                record("q5", "rocksdb", "ok", 3.0, 1.0, "2026-01-02T00:00:00Z")
                        + record("q6", "rocksdb", "TIMEOUT", 0, 1, "2026-01-02T00:00:01Z"),
                StandardCharsets.UTF_8);

        SuiteReport report = SuiteReport.of(List.of(heap, rocks), r -> true);
        assertEquals(2, report.configurations.size());
        SuiteReport.Configuration h = report.configurations.get(0);
        assertEquals(List.of("q0", "q1", "q2"), List.copyOf(h.queries.keySet()), "suite order");
        assertEquals(8.0, h.queries.get("q1").speedup(), 1e-9, "the latest q1 counts");
        // FAILED q2 is left out: sqrt(2 * 8) = 4.
        assertEquals(List.of(2.0, 8.0), h.speedups());
        assertEquals(4.0, h.geomean(), 1e-9);
        assertEquals(List.of(1.5), h.islandsGains());
        SuiteReport.Configuration r = report.configurations.get(1);
        assertTrue(r.islandsGains().isEmpty(), "no islands-off arm ran");
        assertEquals(3.0, r.geomean(), 1e-9, "the TIMEOUT query has no speedup");
        assertEquals(1, r.count("TIMEOUT"));
        assertNull(r.queries.get("q6").speedup());

        ByteArrayOutputStream console = new ByteArrayOutputStream();
        report.printTables(new PrintStream(console, true, StandardCharsets.UTF_8));
        String table = console.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("4.00x (3 queries recorded: FAILED 1, ok 2)"), table);
        assertTrue(table.contains("TIMEOUT"), table);
        assertTrue(table.contains("islands=false is 1.50x slower"), table);

        Path markdown = temp.resolve("benchmarks.md");
        Files.writeString(
                markdown,
                "# B\n\nbefore\n" + SuiteReport.BEGIN + "\nstale\n" + SuiteReport.END + "\nafter\n",
                StandardCharsets.UTF_8);
        report.writeMarkdownBlock(markdown, temp.resolve("flames"));
        String md = Files.readString(markdown, StandardCharsets.UTF_8);
        assertFalse(md.contains("stale"));
        assertTrue(md.startsWith("# B\n\nbefore\n" + SuiteReport.BEGIN + "\n"));
        assertTrue(md.endsWith(SuiteReport.END + "\nafter\n"));
        assertTrue(md.contains("### heap, mini-batch off: 1,000,000 events, p=2"), md);
        assertTrue(md.contains("| q1 | 8.00 [7.20-8.80] | 1.00 [0.90-1.10] | 8.00x |"), md);
        assertTrue(md.contains("| 16.00 / 2.00 |"), "CPU-s per million events: " + md);
        assertEquals(
                report.markdown(temp, temp.resolve("flames")),
                SuiteReport.markdownBlock(markdown),
                "the block reads back as generated");

        Path html = temp.resolve("out/report.html");
        Files.createDirectories(html.getParent());
        report.writeHtml(html);
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.contains("Speedup per query"));
        assertTrue(page.contains("CPU-seconds per million events"));
        assertTrue(page.contains("Peak memory"));
        assertTrue(page.contains("heap-minibatch-off") && page.contains("rocksdb-minibatch-off"));
    }

    @Test
    void profileSamplesGoToTheInnermostFrameThatNamesAPart() {
        String thread = "[Window[3] tid=7]";
        assertEquals(
                "native engine",
                category(thread, "org/apache/flink/Task.run", "Java_io_streamfusion_x", "memcpy"));
        // The state port called back from native code: the state backend's time.
        assertEquals(
                "state backend",
                category(
                        thread,
                        "Java_io_streamfusion_x",
                        "streamfusion::plan::Pipeline::Run",
                        "io/streamfusion/runtime/state/KeyedStatePort.read",
                        "org/rocksdb/RocksDB.get",
                        "rocksdb::DBImpl::Get"));
        assertEquals(
                "transposes",
                category(thread, "io/streamfusion/runtime/transpose/RowImageWriter.write"));
        assertEquals("Flink", category(thread, "StreamExecCalc$12.processElement", "java/x.y"));
        assertEquals("GC", category("[GC Thread#0 tid=3]", "G1ParTask::work"));
        assertEquals("JIT compiler", category("[C2 CompilerThre tid=9]", "Compile::Code_Gen"));
        assertEquals("other", category(thread, "java/util/HashMap.get"));
    }

    private static String category(String... frames) {
        return Profiles.CATEGORIES.get(Profiles.category(frames));
    }
}
