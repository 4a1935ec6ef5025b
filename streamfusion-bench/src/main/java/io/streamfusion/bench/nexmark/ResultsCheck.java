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
     * with its multiplicity. Rows retracted to zero disappear; a retraction of a row never
     * inserted stays as a negative count, so that it is a difference too.
     */
    static Map<String, Long> fold(List<Row> changelog) {
        return fold(changelog, List.of());
    }

    /** As {@link #fold(List)}, with the named columns left out of every row. */
    static Map<String, Long> fold(List<Row> changelog, List<String> ignored) {
        Map<String, Long> state = new TreeMap<>();
        for (Row row : changelog) {
            Row fields = Row.copy(row);
            fields.setKind(RowKind.INSERT);
            for (String column : ignored) {
                fields.setField(column, null);
            }
            String key = fields.toString();
            long delta =
                    row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER ? 1 : -1;
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
        return compare(stock, nativeRows, List.of());
    }

    /** Compares with the {@code ignored} columns left out (see NexmarkQueries.TIE_BROKEN_COLUMNS). */
    static Comparison compare(List<Row> stock, List<Row> nativeRows, List<String> ignored) {
        Map<String, Long> expected = fold(stock, ignored);
        Map<String, Long> actual = fold(nativeRows, ignored);
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
