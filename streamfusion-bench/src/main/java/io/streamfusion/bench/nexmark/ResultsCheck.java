package io.streamfusion.bench.nexmark;

import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares the results of one query on two engines by their final state: the changelog is folded
 * into a multiset of rows (+I and +U add the row, -U and -D remove it), so that emission order,
 * which Flink itself does not fix across parallel channels, does not matter.
 */
final class ResultsCheck {
    /** How many differing rows a comparison lists. */
    private static final int MAX_DIFFERENCES = 5;

    /** The outcome of one comparison. */
    static final class Comparison {
        final boolean match;
        final long stockChanges;
        final long nativeChanges;
        final long stockFinalRows;
        final long nativeFinalRows;

        /** A few rows whose multiplicity differs, as "row: stock n, native m". */
        final List<String> differences;

        Comparison(
                boolean match,
                long stockChanges,
                long nativeChanges,
                long stockFinalRows,
                long nativeFinalRows,
                List<String> differences) {
            this.match = match;
            this.stockChanges = stockChanges;
            this.nativeChanges = nativeChanges;
            this.stockFinalRows = stockFinalRows;
            this.nativeFinalRows = nativeFinalRows;
            this.differences = differences;
        }
    }

    private ResultsCheck() {}

    /**
     * Folds a changelog into its final state: each distinct row (its fields, whatever its kind)
     * with its multiplicity. Rows retracted to zero disappear; a retraction of a row never inserted
     * stays as a negative count, so that it is a difference too.
     */
    static Map<String, Long> fold(List<Row> changelog) {
        return fold(changelog, List.of());
    }

    /**
     * As {@link #fold(List)}, with the named columns left out of every row. With an upsert {@code
     * key}, +I/+U replace the row of their key and -D removes it; otherwise an update without
     * UPDATE_BEFORE cannot be folded and is an error.
     */
    static Map<String, Long> fold(List<Row> changelog, List<String> ignored, List<String> key) {
        if (!key.isEmpty()) {
            Map<String, String> byKey = new TreeMap<>();
            for (Row row : changelog) {
                StringBuilder k = new StringBuilder();
                for (String column : key) {
                    k.append(row.getField(column)).append('|');
                }
                if (row.getKind() == RowKind.DELETE) {
                    byKey.remove(k.toString());
                } else if (row.getKind() != RowKind.UPDATE_BEFORE) {
                    byKey.put(k.toString(), project(row, ignored));
                }
            }
            Map<String, Long> state = new TreeMap<>();
            byKey.values().forEach(r -> state.merge(r, 1L, Long::sum));
            return state;
        }
        long updatesAfter =
                changelog.stream().filter(r -> r.getKind() == RowKind.UPDATE_AFTER).count();
        long updatesBefore =
                changelog.stream().filter(r -> r.getKind() == RowKind.UPDATE_BEFORE).count();
        if (updatesAfter > updatesBefore) {
            throw new IllegalStateException(
                    "an upsert changelog ("
                            + updatesAfter
                            + " +U, "
                            + updatesBefore
                            + " -U) cannot be folded without its key: add the query to"
                            + " NexmarkQueries.UPSERT_KEYS");
        }
        return fold(changelog, ignored);
    }

    private static String project(Row row, List<String> ignored) {
        Row fields = Row.copy(row);
        fields.setKind(RowKind.INSERT);
        for (String column : ignored) {
            fields.setField(column, null);
        }
        return fields.toString();
    }

    /** As {@link #fold(List)}, with the named columns left out of every row. */
    static Map<String, Long> fold(List<Row> changelog, List<String> ignored) {
        Map<String, Long> state = new TreeMap<>();
        for (Row row : changelog) {
            String key = project(row, ignored);
            long delta =
                    row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER
                            ? 1
                            : -1;
            long count = state.getOrDefault(key, 0L) + delta;
            if (count == 0) {
                state.remove(key);
            } else {
                state.put(key, count);
            }
        }
        return state;
    }

    static Comparison compare(List<Row> stock, List<Row> nativeRows) {
        return compare(stock, nativeRows, List.of(), List.of());
    }

    static Comparison compare(List<Row> stock, List<Row> nativeRows, List<String> ignored) {
        return compare(stock, nativeRows, ignored, List.of());
    }

    /**
     * Compares with the {@code ignored} columns left out (NexmarkQueries.TIE_BROKEN_COLUMNS),
     * folding by the upsert {@code key} when there is one (NexmarkQueries.UPSERT_KEYS).
     */
    static Comparison compare(
            List<Row> stock, List<Row> nativeRows, List<String> ignored, List<String> key) {
        Map<String, Long> expected = fold(stock, ignored, key);
        Map<String, Long> actual = fold(nativeRows, ignored, key);
        List<String> differences = new ArrayList<>();
        Map<String, Long> union = new TreeMap<>(expected);
        actual.forEach(union::putIfAbsent);
        for (String row : union.keySet()) {
            long s = expected.getOrDefault(row, 0L);
            long n = actual.getOrDefault(row, 0L);
            if (s != n && differences.size() < MAX_DIFFERENCES) {
                differences.add(row + ": stock " + s + ", native " + n);
            }
        }
        return new Comparison(
                expected.equals(actual),
                stock.size(),
                nativeRows.size(),
                total(expected),
                total(actual),
                differences);
    }

    private static long total(Map<String, Long> state) {
        long n = 0;
        for (long count : state.values()) {
            n += count;
        }
        return n;
    }
}
