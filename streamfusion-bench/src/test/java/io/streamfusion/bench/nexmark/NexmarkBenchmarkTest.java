package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The Nexmark runner end to end on tiny runs, and its results check. */
class NexmarkBenchmarkTest {
    @TempDir Path temp;

    /** The records of a results.jsonl, by query (the last record of a query wins). */
    private static Map<String, JsonNode> records(Path dir) throws Exception {
        Map<String, JsonNode> byQuery = new LinkedHashMap<>();
        for (JsonNode r : ResultsLog.read(dir.resolve(ResultsLog.FILE))) {
            byQuery.put(r.get("query").asText(), r);
        }
        return byQuery;
    }

    private static List<String> queriesIn(Path dir) throws Exception {
        List<String> queries = new ArrayList<>();
        for (JsonNode r : ResultsLog.read(dir.resolve(ResultsLog.FILE))) {
            queries.add(r.get("query").asText());
        }
        return queries;
    }

    private static NexmarkConfig tiny(Path out, String queries, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--queries", queries,
                                "--events", "2000",
                                "--check-events", "3000",
                                "--parallelism", "2",
                                "--warmups", "1",
                                "--warmup-events", "500",
                                "--trials", "1",
                                "--out", out.toString()));
        args.addAll(List.of(more));
        return NexmarkConfig.parse(args.toArray(new String[0]));
    }

    /**
     * Three queries plus the skipped q6, 2k events, one 500-event warmup, one trial, q5 with
     * islands off too and profiled; the native rows of q2 gain a row no bid produces before the
     * check. results.jsonl must have one whole record per query in the documented shape, q2 must be
     * FAILED without a speedup, and the others must match.
     */
    @Test
    void shortRunAppendsTheDocumentedRecordsAndCatchesAWrongResult() throws Exception {
        NexmarkConfig config =
                tiny(
                        temp,
                        "q0,q2,q5,q6",
                        "--check-events",
                        "10000",
                        "--compare-islands",
                        "--profile");
        NexmarkBenchmark benchmark = new NexmarkBenchmark(config);
        benchmark.nativeResultsHook =
                (query, rows) -> {
                    if (!query.equals("q2")) {
                        return rows;
                    }
                    List<Row> wrong = new ArrayList<>(rows);
                    wrong.add(Row.of(-1L, -1L)); // a bid q2 never selects: auction -1 is no auction
                    return wrong;
                };
        benchmark.run();

        assertEquals(List.of("q0", "q2", "q5", "q6"), queriesIn(temp));
        Map<String, JsonNode> records = records(temp);
        for (JsonNode q : records.values()) {
            String name = q.get("query").asText();
            assertEquals(ResultsLog.FORMAT, q.get("format").asInt());
            assertEquals(2000, q.get("options").get("events").asLong(), name);
            assertEquals(500, q.get("options").get("warmup_events").asLong());
            assertEquals(2, q.get("options").get("parallelism").asInt());
            assertEquals("heap", q.get("options").get("state").asText());
            assertEquals("heap-minibatch-off", q.get("configuration").asText());
            assertTrue(q.get("machine").get("nproc").asInt() > 0);
            assertTrue(q.get("machine").has("cpu_model"));
            assertTrue(q.get("machine").has("memory_bytes"));
            assertTrue(q.get("machine").get("jvm").asText().length() > 0);
            assertTrue(q.get("revision").isTextual());
            assertTrue(q.get("finished_at").isTextual());
            if (name.equals("q6")) {
                assertEquals("skipped", q.get("status").asText());
                assertEquals(NexmarkQueries.SKIPPED.get("q6"), q.get("skip_reason").asText());
                continue;
            }
            for (String field :
                    List.of(
                            "results_match",
                            "native_operators",
                            "total_operators",
                            "islands",
                            "fallback_reasons",
                            "stock",
                            "native",
                            "speedup")) {
                assertTrue(q.has(field), name + " has " + field);
            }
            assertTrue(q.get("total_operators").asInt() >= q.get("native_operators").asInt());
            assertTrue(q.get("total_operators").asInt() > 0, name + " counts its operators");
            assertTrue(q.get("fallback_reasons").isArray());
            for (String engine : List.of("stock", "native")) {
                JsonNode e = q.get(engine);
                assertEquals(1, e.get("trials_s").size(), name + " " + engine);
                for (String field :
                        List.of(
                                "median_s",
                                "events_per_s",
                                "cpu_s",
                                "cpu_s_per_million_events",
                                "events_per_cpu_s")) {
                    assertTrue(e.get(field).asDouble() > 0, name + " " + engine + " " + field);
                }
                assertEquals(1, e.get("trials").size());
                assertTrue(e.get("trials").get(0).get("peak_heap_bytes").asLong() > 0);
            }
            if (name.equals("q2")) {
                assertFalse(q.get("results_match").asBoolean());
                assertEquals("FAILED", q.get("status").asText());
                assertTrue(
                        q.get("speedup").isNull(), "no speedup for a query whose results differ");
                assertFalse(q.get("results_check").get("differences").isEmpty());
            } else {
                assertTrue(q.get("results_match").asBoolean(), name + " matches");
                double expected =
                        q.get("stock").get("median_s").asDouble()
                                / q.get("native").get("median_s").asDouble();
                assertEquals(expected, q.get("speedup").asDouble(), 1e-9);
            }
        }

        // q5's window aggregation forms islands: it ran with islands off too, checked and timed,
        // and each arm's first trial was profiled.
        JsonNode q5 = records.get("q5");
        assertFalse(q5.get("islands").isEmpty(), "q5 has islands");
        assertTrue(q5.get("results_check").get("islands_off_match").asBoolean());
        assertEquals(1, q5.get("native_islands_off").get("trials").size());
        for (String arm : List.of("stock", "native", "native_islands_off")) {
            JsonNode p = q5.get("profiles").get(arm);
            assertTrue(p.get("samples").asLong() > 0, arm + " profiled");
            double sum = 0;
            for (String category : Profiles.CATEGORIES) {
                sum += p.get("shares").get(category).asDouble();
            }
            assertEquals(1.0, sum, 1e-9, arm + " shares add up");
            assertTrue(Files.isRegularFile(temp.resolve(p.get("collapsed").asText())));
            assertTrue(q5.get(arm).get("trials").get(0).get("profiled").asBoolean());
        }

        String html = Files.readString(temp.resolve("report.html"), StandardCharsets.UTF_8);
        assertTrue(html.contains("<svg"));
        assertTrue(html.contains("FAILED"));
        assertTrue(html.contains("Profiles of q5"));
        assertTrue(Files.isRegularFile(temp.resolve("flames/heap-minibatch-off-q5-native.svg")));
        assertFalse(html.contains("http://") && html.contains("<script src"), "self-contained");
    }

    /**
     * A matrix writes each configuration into its own directory; --resume then measures only what
     * is missing there, and a torn last line (a run killed while writing) is skipped.
     */
    @Test
    void matrixRunsEachConfigurationIntoItsOwnDirectoryAndResumes() throws Exception {
        assertTrue(NexmarkBenchmark.run(args(tiny(temp, "q0"), "--state", "heap,rocksdb")));
        Path heap = temp.resolve("heap-minibatch-off");
        Path rocksdb = temp.resolve("rocksdb-minibatch-off");
        assertEquals(List.of("q0"), queriesIn(heap));
        assertEquals(List.of("q0"), queriesIn(rocksdb));
        assertEquals("rocksdb", records(rocksdb).get("q0").get("options").get("state").asText());
        Files.writeString(
                heap.resolve(ResultsLog.FILE),
                "{\"format\":1,\"query\":\"q1\",\"sta",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);

        assertTrue(
                NexmarkBenchmark.run(
                        args(tiny(temp, "q0,q1"), "--state", "heap,rocksdb", "--resume")));
        assertEquals(List.of("q0", "q1"), queriesIn(heap), "q0 not measured again");
        assertEquals(List.of("q0", "q1"), queriesIn(rocksdb));

        // Other options are another measurement: resume does not count q0 as done for them.
        NexmarkConfig moreEvents = tiny(temp, "q0", "--events", "3000", "--resume");
        new NexmarkBenchmark(moreEvents).run();
        assertEquals(List.of("q0"), queriesIn(temp));

        SuiteReport report = SuiteReport.of(List.of(temp), r -> true);
        assertEquals(3, report.configurations.size(), "heap, rocksdb, and heap at 3,000 events");
        assertTrue(Files.isRegularFile(temp.resolve("report.html")), "the matrix's own report");
    }

    /** The arguments of a tiny configuration, with more after them. */
    private static String[] args(NexmarkConfig c, String... more) {
        List<String> a =
                new ArrayList<>(
                        List.of(
                                "--queries", String.join(",", c.queries),
                                "--events", String.valueOf(c.events),
                                "--check-events", String.valueOf(c.checkEvents),
                                "--parallelism", String.valueOf(c.parallelism),
                                "--warmups", String.valueOf(c.warmups),
                                "--warmup-events", String.valueOf(c.warmupEvents),
                                "--trials", String.valueOf(c.trials),
                                "--out", c.out.toString()));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    /**
     * A query past --query-timeout is recorded as TIMEOUT and the suite goes on: q1 reaches its
     * deadline before its first warmup job (the test calls the watchdog's action instead of waiting
     * for it), so that job is cancelled as soon as it is submitted; q0 then runs under the default
     * limit.
     */
    @Test
    void aQueryPastItsTimeLimitIsMarkedTimeoutAndTheSuiteGoesOn() throws Exception {
        NexmarkBenchmark benchmark = new NexmarkBenchmark(tiny(temp, "q1,q0"));
        benchmark.beforeTimedJob =
                (query, arm) -> {
                    if (query.equals("q1")) {
                        benchmark.timeOut();
                    }
                };
        List<NexmarkResults.QueryResult> results = benchmark.run();
        assertEquals("TIMEOUT", results.get(0).status());
        Map<String, JsonNode> records = records(temp);
        assertEquals(List.of("q1", "q0"), queriesIn(temp));
        assertEquals("TIMEOUT", records.get("q1").get("status").asText());
        assertTrue(records.get("q1").get("speedup").isNull());
        assertTrue(records.get("q1").get("error").asText().contains("--query-timeout"));
        assertEquals("ok", records.get("q0").get("status").asText());
    }

    @Test
    void resultsCheckFoldsTheChangelogToItsFinalState() {
        List<Row> stock =
                List.of(
                        Row.ofKind(RowKind.INSERT, "a", 1L),
                        Row.ofKind(RowKind.INSERT, "b", 2L),
                        Row.ofKind(RowKind.UPDATE_BEFORE, "a", 1L),
                        Row.ofKind(RowKind.UPDATE_AFTER, "a", 3L));
        List<Row> sameFinalState =
                List.of(Row.ofKind(RowKind.INSERT, "a", 3L), Row.ofKind(RowKind.INSERT, "b", 2L));
        assertTrue(ResultsCheck.compare(stock, sameFinalState).match);

        List<Row> duplicated =
                List.of(
                        Row.ofKind(RowKind.INSERT, "a", 3L),
                        Row.ofKind(RowKind.INSERT, "b", 2L),
                        Row.ofKind(RowKind.INSERT, "b", 2L));
        ResultsCheck.Comparison c = ResultsCheck.compare(stock, duplicated);
        assertFalse(c.match);
        assertEquals(List.of("+I[b, 2]: stock 1, native 2"), c.differences);

        List<Row> deleted =
                List.of(Row.ofKind(RowKind.INSERT, "b", 2L), Row.ofKind(RowKind.DELETE, "a", 3L));
        assertFalse(ResultsCheck.compare(sameFinalState, deleted).match);
    }

    @Test
    void resultsCheckIgnoresOnlyTheNamedTieBrokenColumns() {
        java.util.LinkedHashMap<String, Integer> positions = new java.util.LinkedHashMap<>();
        positions.put("auction", 0);
        positions.put("bidder", 1);
        positions.put("price", 2);
        Row stockWinner =
                org.apache.flink.types.RowUtils.createRowWithNamedPositions(
                        RowKind.INSERT, new Object[] {7L, 100L, 50L}, positions);
        Row tiedWinner =
                org.apache.flink.types.RowUtils.createRowWithNamedPositions(
                        RowKind.INSERT, new Object[] {7L, 200L, 50L}, positions);
        Row otherPrice =
                org.apache.flink.types.RowUtils.createRowWithNamedPositions(
                        RowKind.INSERT, new Object[] {7L, 100L, 51L}, positions);
        assertFalse(ResultsCheck.compare(List.of(stockWinner), List.of(tiedWinner)).match);
        assertTrue(
                ResultsCheck.compare(List.of(stockWinner), List.of(tiedWinner), List.of("bidder"))
                        .match);
        assertFalse(
                ResultsCheck.compare(List.of(stockWinner), List.of(otherPrice), List.of("bidder"))
                        .match);
    }

    @Test
    void upsertChangelogsFoldByKeyAndAreRefusedWithoutOne() {
        java.util.LinkedHashMap<String, Integer> positions = new java.util.LinkedHashMap<>();
        positions.put("id", 0);
        positions.put("price", 1);
        java.util.function.BiFunction<RowKind, Object[], Row> row =
                (kind, values) ->
                        org.apache.flink.types.RowUtils.createRowWithNamedPositions(
                                kind, values, positions);
        // Rank's upsert output: +U replaces the row of its key, with no -U.
        List<Row> stock =
                List.of(
                        row.apply(RowKind.INSERT, new Object[] {1L, 10L}),
                        row.apply(RowKind.UPDATE_AFTER, new Object[] {1L, 30L}),
                        row.apply(RowKind.INSERT, new Object[] {2L, 5L}));
        List<Row> fewerUpdates =
                List.of(
                        row.apply(RowKind.INSERT, new Object[] {2L, 5L}),
                        row.apply(RowKind.INSERT, new Object[] {1L, 30L}));
        List<Row> otherFinal =
                List.of(
                        row.apply(RowKind.INSERT, new Object[] {1L, 30L}),
                        row.apply(RowKind.UPDATE_AFTER, new Object[] {2L, 6L}));
        assertTrue(ResultsCheck.compare(stock, fewerUpdates, List.of(), List.of("id")).match);
        assertFalse(ResultsCheck.compare(stock, otherFinal, List.of(), List.of("id")).match);
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> ResultsCheck.compare(stock, fewerUpdates));
    }

    @Test
    void selectOfStripsTheInsertTarget() {
        assertEquals(
                "SELECT a FROM t",
                NexmarkBenchmark.selectOf("INSERT INTO nexmark_q0\nSELECT a FROM t"));
        assertEquals(
                "SELECT a, b FROM t",
                NexmarkBenchmark.selectOf("insert into s (x, y) SELECT a, b FROM t"));
    }
}
