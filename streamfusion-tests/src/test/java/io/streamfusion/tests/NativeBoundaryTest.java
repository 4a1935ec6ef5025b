package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.nodes.StreamExecNativeCalc;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

/** The transposes, the operator shell and the JNI boundary around a native Calc. */
class NativeBoundaryTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final String QUERY =
            "SELECT id, i32 * 2, s, d38 + d38, ts9, r FROM t WHERE i32 IS NULL OR i32 <> 5";

    @Test
    void objectReuseOnAndOffGiveStockResults() {
        new ParityHarness(2, true, Map.of()).assertParity(QUERY);
        new ParityHarness(2, false, Map.of()).assertParity(QUERY);
    }

    /** Rows that reach the island as GenericRowData of compact types take the direct writer. */
    @Test
    void compactTypedRowsWrittenDirectly() {
        String sql =
                "SELECT id, i8, i16, i32, i64, f32, f64, d10, s, b, bin, dt, tm, ts, ltz, "
                        + "s = '12345678', bin IS NULL FROM tc WHERE id <> 4";
        new ParityHarness(2, false, Map.of()).assertParity(sql);
    }

    /**
     * Only the fields the plan reads cross the entry transpose: unread DECIMAL(38, 10) and
     * TIMESTAMP(9) fields no longer send every row through Flink's serializer, and nested ROW
     * fields (read whole or in part) are written directly too. Reading a field the direct writer
     * cannot write still takes the serializer, with the same results.
     */
    @Test
    void onlyReadFieldsAreTransposed() {
        ParityHarness harness = new ParityHarness(2, false, Map.of());
        long before = NativeMetrics.serializedRows();
        long rowsBefore = NativeMetrics.recordsIn();
        harness.assertParity(
                "SELECT id, r.y, UPPER(s), r.x + i32, f64 FROM t WHERE r.x IS NULL OR id > 0");
        harness.assertParity("SELECT r, id, bin FROM t WHERE id <> 2");
        assertThat(NativeMetrics.recordsIn() - rowsBefore).isGreaterThan(0);
        assertEquals(0, NativeMetrics.serializedRows() - before);

        harness.assertParity("SELECT id, CAST(d38 AS STRING), r.x FROM t");
        assertThat(NativeMetrics.serializedRows() - before).isGreaterThan(0);
    }

    /**
     * An island that is the only consumer of its input gets the rows without Flink's chaining copy
     * (object reuse off); an input shared by two islands keeps the copy. Results equal stock either
     * way.
     */
    @Test
    void soleConsumerSkipsTheChainingCopy() {
        ParityHarness harness = new ParityHarness(2, false, Map.of());
        long before = StreamExecNativeCalc.uncopiedInputs();
        harness.assertParity(QUERY);
        long afterSole = StreamExecNativeCalc.uncopiedInputs();
        assertThat(afterSole - before).isGreaterThan(0);

        // One scan of t (sub-plan reuse) feeds two native Calcs; the UNION stays on Flink.
        new ParityHarness(2, false, Map.of("streamfusion.fallback", "allow"))
                .assertParity(
                        "SELECT id, s FROM t WHERE id < 3 "
                                + "UNION ALL SELECT id + 100, UPPER(s) FROM t WHERE id >= 3");
        assertEquals(afterSole, StreamExecNativeCalc.uncopiedInputs());
    }

    @Test
    void batchesOfOneRowAndFullBatches() {
        new ParityHarness(1, false, Map.of("streamfusion.batch.size", "1")).assertParity(QUERY);
        new ParityHarness(1, false, Map.of("streamfusion.batch.size", "3")).assertParity(QUERY);
    }

    @Test
    void largeInputThroughManyBatches() {
        String sql =
                "SELECT v * 3 + 1, v % 7, CAST(v AS STRING) FROM "
                        + "(SELECT CAST(s AS BIGINT) AS v FROM src) WHERE v % 5 <> 0";
        ParityHarness harness =
                new ParityHarness(2, false, Map.of("streamfusion.batch.size", "1000"));
        StreamTableEnvironment stock = harness.stock();
        StreamTableEnvironment nat = harness.nativeEnv();
        for (StreamTableEnvironment tEnv : new StreamTableEnvironment[] {stock, nat}) {
            tEnv.executeSql(
                    "CREATE TEMPORARY TABLE src (s INT) WITH ('connector' = 'datagen', "
                            + "'fields.s.kind' = 'sequence', 'fields.s.start' = '1', "
                            + "'fields.s.end' = '100000', 'rows-per-second' = '100000000')");
        }
        long before = NativeMetrics.recordsIn();
        ParityHarness.Result expected = ParityHarness.run(stock, sql);
        ParityHarness.Result actual = ParityHarness.run(nat, sql);
        assertThat(NativeMetrics.recordsIn() - before).isGreaterThanOrEqualTo(100_000);
        assertEquals(80_000, expected.rows.size());
        assertEquals(expected.rows, actual.rows);
    }

    /**
     * A Calc fed by a retracting aggregate: -U/+U rows pass through the native Calc with their
     * RowKind. The aggregate stays on Flink (fallback allowed); the Calc must be native.
     */
    @Test
    void retractionsKeepTheirRowKind() {
        String sql =
                "SELECT k, cnt * 10, total > 0 FROM (SELECT i32 % 3 AS k, COUNT(*) AS cnt, SUM(i64)"
                        + " AS total FROM t GROUP BY i32 % 3) WHERE cnt > 0";
        ParityHarness harness =
                new ParityHarness(1, false, Map.of("streamfusion.fallback", "allow"));
        ParityHarness.Result stock = ParityHarness.run(harness.stock(), sql);
        StreamTableEnvironment nat = harness.nativeEnv();
        long before = NativeMetrics.recordsIn();
        ParityHarness.Result actual = ParityHarness.run(nat, sql);
        assertThat(NativeMetrics.recordsIn()).isGreaterThan(before);
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .anyMatch(d -> d.isNative && d.operator.startsWith("Calc("));
        assertThat(stock.rows).anyMatch(r -> r.getKind() == RowKind.UPDATE_BEFORE);
        assertEquals(stock.rows, actual.rows);
    }

    @Test
    void nativeMemoryReturnsToZeroAfterTheJob() {
        new ParityHarness().assertParity(QUERY);
        assertEquals(0, NativeLib.globalMemoryBytes());
    }

    @Test
    void divisionByZeroFailsLikeFlink() {
        String sql = "SELECT id, 10 / i32 FROM t";
        ParityHarness harness = new ParityHarness();
        assertThatThrownBy(() -> ParityHarness.run(harness.stock(), sql))
                .hasStackTraceContaining("/ by zero");
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), sql))
                .hasStackTraceContaining("/ by zero")
                .hasStackTraceContaining("USER_ERROR");
    }

    @Test
    void coalesceComputesEveryOperandLikeFlink() {
        // Flink 2's COALESCE is a runtime function: CAST(s AS DOUBLE) is computed for row 0
        // (s = 'hello') although i32 is not NULL there, and fails the job on both engines.
        String sql =
                "SELECT id, COALESCE(CAST(i32 AS DOUBLE), CAST(s AS DOUBLE)) FROM t WHERE id = 0";
        String message = "java.lang.NumberFormatException: For input string: \"hello\"";
        ParityHarness harness = new ParityHarness();
        assertThatThrownBy(() -> ParityHarness.run(harness.stock(), sql))
                .hasStackTraceContaining(message);
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), sql))
                .hasStackTraceContaining(message)
                .hasStackTraceContaining("USER_ERROR");
    }

    @Test
    void castOfNonNumericStringFailsLikeFlink() {
        // Row 0 holds s = 'hello': Double.parseDouble's message, then Flink's toDecimal
        // "Overflow.".
        String toDouble = "SELECT id, CAST(s AS DOUBLE) FROM t";
        String message = "java.lang.NumberFormatException: For input string: \"hello\"";
        ParityHarness harness = new ParityHarness();
        assertThatThrownBy(() -> ParityHarness.run(harness.stock(), toDouble))
                .hasStackTraceContaining(message);
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), toDouble))
                .hasStackTraceContaining(message)
                .hasStackTraceContaining("USER_ERROR");
        String toDecimal = "SELECT id, CAST(s AS DECIMAL(5, 2)) FROM t";
        String overflow = "java.lang.NumberFormatException: For input string: 'hello'. Overflow.";
        assertThatThrownBy(() -> ParityHarness.run(harness.stock(), toDecimal))
                .hasStackTraceContaining(overflow);
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), toDecimal))
                .hasStackTraceContaining(overflow)
                .hasStackTraceContaining("USER_ERROR");
    }

    @Test
    void decimalZeroByZeroFailsLikeFlink() {
        String sql = "SELECT id, d10 / d10 FROM t";
        ParityHarness harness = new ParityHarness();
        assertThatThrownBy(() -> ParityHarness.run(harness.stock(), sql))
                .hasStackTraceContaining("Division undefined");
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), sql))
                .hasStackTraceContaining("Division undefined")
                .hasStackTraceContaining("USER_ERROR");
    }

    @Test
    void tinyMemoryBudgetGivesAClearError() {
        ParityHarness harness =
                new ParityHarness(1, false, Map.of("streamfusion.memory.budget", "1kb"));
        assertThatThrownBy(() -> ParityHarness.run(harness.nativeEnv(), QUERY))
                .hasStackTraceContaining("OUT_OF_MEMORY")
                .hasStackTraceContaining("streamfusion.memory.budget");
        assertEquals(0, NativeLib.globalMemoryBytes());
    }

    /**
     * A failing expression fails the native job with the exception Flink throws, its class and
     * message whole (the innermost cause of the job's failure), so that log searches and alerts
     * keep working: string CASTs that Flink's parser refuses (the index where it stopped included),
     * integer overflow in date parts, division by zero.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "CAST(s AS TIMESTAMP)|2024-01-01 12:00:00x",
                "CAST(s AS TIMESTAMP(6))|2024-13-01 00:00:00",
                "CAST(s AS TIMESTAMP_LTZ(3))|2024-01-01 25:00:00",
                "CAST(s AS TIMESTAMP)|x2024-01-01",
                "CAST(s AS DATE)|2024-13-01",
                "CAST(s AS DATE)|99999999999-01-01",
                "CAST(s AS TIME)|25:61",
                "TO_DATE(s)|99999999999-01-01",
                "CAST(s AS INT) / (CHAR_LENGTH(s) - 1)|1",
                "CAST(s AS DOUBLE)|1.5x"
            })
    void errorsAreFlinksOwnExceptions(String spec) {
        String expression = spec.substring(0, spec.indexOf('|'));
        String text = spec.substring(spec.indexOf('|') + 1);
        String sql =
                "SELECT "
                        + expression
                        + " FROM (VALUES ('"
                        + text
                        + "'), ('"
                        + text
                        + "')) AS v(s)";
        ParityHarness harness = new ParityHarness(1, false, Map.of());
        Throwable stock = rootCause(() -> ParityHarness.run(harness.stock(), sql));
        // Strict: the Calc is native (planning would fail otherwise).
        StreamTableEnvironment nativeEnv = harness.nativeEnv();
        Throwable nat = rootCause(() -> ParityHarness.run(nativeEnv, sql));
        assertEquals(1, StreamFusion.planner(nativeEnv).lastReport().nativeCount(), sql);
        assertEquals(stock.getClass(), nat.getClass(), sql);
        assertEquals(stock.getMessage(), nat.getMessage(), sql);
    }

    /** The innermost cause of what {@code run} throws (it must throw). */
    private static Throwable rootCause(Runnable run) {
        try {
            run.run();
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root;
        }
        throw new AssertionError("the query did not fail");
    }
}
