package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The Nexmark runner end to end on tiny runs, and its results check. */
class NexmarkBenchmarkTest {
    @TempDir Path temp;

    /**
     * Three queries plus the skipped q6, 2k events, one 500-event warmup, one trial; the native
     * rows of q2 gain a row no bid produces before the check. results.json must have the documented
     * shape, q2 must be FAILED without a speedup, and the others must match.
     */
    @Test
    void shortRunWritesTheDocumentedResultsAndCatchesAWrongResult() throws Exception {
        NexmarkConfig config =
                NexmarkConfig.parse(
                        new String[] {
                            "--queries", "q0,q2,q5,q6",
                            "--events", "2000",
                            "--check-events", "10000",
                            "--parallelism", "2",
                            "--warmups", "1",
                            "--warmup-events", "500",
                            "--trials", "1",
                            "--out", temp.toString()
                        });
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

        JsonNode doc = new ObjectMapper().readTree(temp.resolve("results.json").toFile());
        assertEquals(2000, doc.get("config").get("events").asLong());
        assertEquals(500, doc.get("config").get("warmup_events").asLong());
        assertEquals(2, doc.get("config").get("parallelism").asInt());
        assertEquals("heap", doc.get("config").get("state").asText());
        assertTrue(doc.get("machine").get("nproc").asInt() > 0);
        assertTrue(doc.get("machine").has("cpu_model"));
        assertTrue(doc.get("machine").has("memory_bytes"));
        assertTrue(doc.get("machine").get("jvm").asText().length() > 0);
        assertTrue(doc.get("revision").isTextual());

        JsonNode queries = doc.get("queries");
        assertEquals(4, queries.size());
        for (JsonNode q : queries) {
            String name = q.get("query").asText();
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
                        List.of("median_s", "events_per_s", "cpu_s", "events_per_cpu_s")) {
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

        String html = Files.readString(temp.resolve("report.html"), StandardCharsets.UTF_8);
        assertTrue(html.contains("<svg"));
        assertTrue(html.contains("FAILED"));
        assertFalse(html.contains("http://") && html.contains("<script src"), "self-contained");
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
