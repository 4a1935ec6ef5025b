package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

/**
 * The experimental borrowed exit (streamfusion.experimental.borrowedStringExit): islands hand
 * downstream rows, strings included, in their native output memory. Results equal stock Flink's at
 * a chained edge (Flink's copying output) and at a network edge (serialized on the spot); with
 * object reuse on, where a chained consumer may keep a row, it is refused with the reason in
 * EXPLAIN and the rows are copied as usual.
 */
class BorrowedExitTest {

    private static final String BORROWED = StreamFusionOptions.BORROWED_STRING_EXIT.key();

    private static ParityHarness harness(boolean objectReuse) {
        return new ParityHarness(2, objectReuse, Map.of(BORROWED, "true"));
    }

    /**
     * String-heavy projections: a Calc chained to the sink, a Calc feeding a network exchange
     * (GROUP BY), and a group aggregation's island whose output (strings kept in state) goes on.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT id, s, UPPER(s), CONCAT(s, '-', s, '-', s), SUBSTRING(s, 2), bin FROM t",
                "SELECT s, COUNT(*), MAX(CONCAT(s, s)) FROM (SELECT CONCAT('k', CAST(MOD(id, 7) AS"
                        + " STRING)) AS s FROM t) GROUP BY s",
                "SELECT LOWER(m), c FROM (SELECT MAX(s) AS m, COUNT(*) AS c FROM t"
                        + " GROUP BY MOD(id, 5))"
            })
    void rowsInTheIslandsMemoryGiveFlinksResults(String sql) {
        long before = NativeMetrics.borrowedRows();
        harness(false).assertParity(sql);
        assertThat(NativeMetrics.borrowedRows()).isGreaterThan(before);
        assertThat(harness(false).nativeEnv().explainSql(sql))
                .contains("exit:     borrowed: rows leave every island in its native output");
    }

    @Test
    void objectReuseRefusesItWithTheReasonInExplain() {
        String sql = "SELECT id, s, UPPER(s), CONCAT(s, s) FROM t WHERE id % 2 = 0";
        long before = NativeMetrics.borrowedRows();
        harness(true).assertParity(sql);
        assertThat(NativeMetrics.borrowedRows()).isEqualTo(before);
        assertThat(harness(true).nativeEnv().explainSql(sql))
                .contains(
                        "exit:     copied: the borrowed exit is refused because"
                                + " pipeline.object-reuse is on");
    }

    @Test
    void offByDefaultWithNoExitLine() {
        String sql = "SELECT s, UPPER(s) FROM t";
        long before = NativeMetrics.borrowedRows();
        new ParityHarness().assertParity(sql);
        assertThat(NativeMetrics.borrowedRows()).isEqualTo(before);
        assertThat(new ParityHarness().nativeEnv().explainSql(sql)).doesNotContain("exit:");
    }
}
