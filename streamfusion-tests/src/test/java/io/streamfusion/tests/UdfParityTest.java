package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Optional;

import javax.annotation.Nullable;

/**
 * User-defined scalar functions inside a native Calc: the native pipeline calls them back in the
 * JVM once per batch. Each query runs on stock Flink and natively (fallback forbidden) with the
 * same functions registered, and the results must be identical.
 */
class UdfParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final ParityHarness HARNESS = new ParityHarness();

    /** Nexmark q14's count_char, on Flink's internal strings. */
    public static final class CountChar extends ScalarFunction {
        public long eval(
                @Nullable @DataTypeHint(value = "STRING", bridgedTo = StringData.class)
                        StringData s,
                @Nullable @DataTypeHint(value = "STRING", bridgedTo = StringData.class)
                        StringData c) {
            if (s == null || c == null) {
                return 0;
            }
            BinaryStringData chars = (BinaryStringData) c;
            if (chars.getSizeInBytes() == 0) {
                return 0;
            }
            byte wanted = chars.byteAt(0);
            BinaryStringData text = (BinaryStringData) s;
            long count = 0;
            for (int i = 0; i < text.getSizeInBytes(); i++) {
                if (text.byteAt(i) == wanted) {
                    count++;
                }
            }
            return count;
        }
    }

    /** Primitive and boxed parameters. */
    public static final class Mixed extends ScalarFunction {
        public String eval(int a, Long b, double c, @Nullable String s) {
            return a + "/" + b + "/" + c + "/" + s;
        }
    }

    /** Varargs of a reference type, NULL elements kept. */
    public static final class JoinAll extends ScalarFunction {
        public String eval(String... parts) {
            return parts.length + ":" + Arrays.toString(parts);
        }
    }

    /** Varargs after a fixed parameter. */
    public static final class SumAll extends ScalarFunction {
        public Long eval(String label, Integer... values) {
            long sum = 0;
            for (Integer v : values) {
                if (v == null) {
                    return null;
                }
                sum += v;
            }
            return label == null ? -sum : sum;
        }
    }

    /** NULL for even inputs (and for NULL). */
    public static final class OddOrNull extends ScalarFunction {
        public Integer eval(Integer x) {
            return x == null || x % 2 == 0 ? null : x * 2;
        }
    }

    /** Throws for 3. */
    public static final class Boom extends ScalarFunction {
        public int eval(Integer x) {
            if (x != null && x == 3) {
                throw new IllegalArgumentException("boom " + x);
            }
            return x == null ? -1 : x + 1;
        }
    }

    /** Many argument and result types through Flink's external conversions. */
    public static final class Describe extends ScalarFunction {
        public String eval(
                @DataTypeHint("DECIMAL(10, 2)") BigDecimal d,
                @DataTypeHint("TIMESTAMP(3)") LocalDateTime ts,
                byte[] bin,
                Boolean b,
                LocalDate dt,
                Float f) {
            return d + "|" + ts + "|" + Arrays.toString(bin) + "|" + b + "|" + dt + "|" + f;
        }
    }

    /** Returns a DECIMAL and needs open() to have run. */
    public static final class Scaled extends ScalarFunction {
        private transient BigDecimal factor;

        @Override
        public void open(FunctionContext context) {
            factor = new BigDecimal("1.5");
        }

        public @DataTypeHint("DECIMAL(20, 3)") BigDecimal eval(
                @DataTypeHint("DECIMAL(10, 2)") BigDecimal d) {
            return d == null ? null : d.multiply(factor);
        }
    }

    /** Returns a DATE, TIMESTAMP and BYTES. */
    public static final class NextDay extends ScalarFunction {
        public LocalDate eval(LocalDate d) {
            return d == null || d.getYear() >= 9999 ? null : d.plusDays(1);
        }
    }

    public static final class Reverse extends ScalarFunction {
        public byte[] eval(byte[] b) {
            if (b == null) {
                return null;
            }
            byte[] r = new byte[b.length];
            for (int i = 0; i < b.length; i++) {
                r[i] = b[b.length - 1 - i];
            }
            return r;
        }
    }

    /** A ROW argument, and a ROW result. */
    public static final class RowInfo extends ScalarFunction {
        public @DataTypeHint("ROW<n INT, t STRING>") Row eval(
                @DataTypeHint("ROW<x INT, y STRING>") Row r) {
            return r == null ? null : Row.of(r.getArity(), r.getField(1) + "!" + r.getField(0));
        }
    }

    /** TIMESTAMP(9) and TIMESTAMP_LTZ in and out. */
    public static final class NanoLater extends ScalarFunction {
        public @DataTypeHint("TIMESTAMP(9)") LocalDateTime eval(
                @DataTypeHint("TIMESTAMP(9)") LocalDateTime t,
                @DataTypeHint("TIMESTAMP_LTZ(3)") java.time.Instant ltz) {
            if (t == null) {
                return null;
            }
            return t.plusNanos(ltz == null ? 1 : ltz.getNano() % 1000 + 1);
        }
    }

    /** Not deterministic: refused. */
    public static final class Random extends ScalarFunction {
        public int eval(Integer x) {
            return x == null ? 0 : x;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }

    static StreamTableEnvironment withUdfs(StreamTableEnvironment tEnv) {
        tEnv.createTemporarySystemFunction("count_char", CountChar.class);
        tEnv.createTemporarySystemFunction("mixed", Mixed.class);
        tEnv.createTemporarySystemFunction("join_all", JoinAll.class);
        tEnv.createTemporarySystemFunction("sum_all", SumAll.class);
        tEnv.createTemporarySystemFunction("odd_or_null", OddOrNull.class);
        tEnv.createTemporarySystemFunction("boom", Boom.class);
        tEnv.createTemporarySystemFunction("describe_all", Describe.class);
        tEnv.createTemporarySystemFunction("scaled", Scaled.class);
        tEnv.createTemporarySystemFunction("next_day", NextDay.class);
        tEnv.createTemporarySystemFunction("reverse_bytes", Reverse.class);
        tEnv.createTemporarySystemFunction("random_udf", Random.class);
        tEnv.createTemporarySystemFunction("row_info", RowInfo.class);
        tEnv.createTemporarySystemFunction("nano_later", NanoLater.class);
        return tEnv;
    }

    private static void assertParity(String sql) {
        ParityHarness.Result stock = ParityHarness.run(withUdfs(HARNESS.stock()), sql);
        long before = NativeMetrics.recordsIn();
        long udfCallsBefore = NativeMetrics.udfCalls();
        ParityHarness.Result nat = ParityHarness.run(withUdfs(HARNESS.nativeEnv()), sql);
        assertTrue(NativeMetrics.recordsIn() > before, "no native records for: " + sql);
        assertTrue(NativeMetrics.udfCalls() > udfCallsBefore, "no UDF up-call for: " + sql);
        assertEquals(stock.schema, nat.schema, "schema differs for: " + sql);
        assertEquals(stock.rows.size(), nat.rows.size(), "row count differs for: " + sql);
        for (int i = 0; i < stock.rows.size(); i++) {
            assertTrue(
                    stock.rows.get(i).equals(nat.rows.get(i)),
                    "row differs for: "
                            + sql
                            + "\n stock:  "
                            + stock.rows.get(i)
                            + "\n native: "
                            + nat.rows.get(i));
        }
    }

    @Test
    void projections() {
        assertParity(
                "SELECT id, count_char(s, 'l'), count_char(s, ''), count_char(s, CAST(NULL AS"
                    + " STRING)), count_char(r.y, 'e'), mixed(id, i64, COALESCE(f64, 0.5), s),"
                    + " join_all(s), join_all(s, r.y, 'k'), join_all(), sum_all(s, i32, id),"
                    + " sum_all('x'), sum_all(s, id, id, id), odd_or_null(i32), odd_or_null(id),"
                    + " describe_all(d10, ts, bin, b, dt, f32), scaled(d10), next_day(dt),"
                    + " reverse_bytes(bin), row_info(r), nano_later(ts9, ltz), row_info(r).t FROM"
                    + " t");
    }

    @Test
    void nestedCallsAndFilter() {
        assertParity(
                "SELECT id, count_char(join_all(s, s), 'l'), odd_or_null(odd_or_null(i32) + 1),"
                    + " count_char(s, 'l') * 2 + id FROM t WHERE count_char(s, 'l') > 0 OR id > 6");
    }

    @Test
    void onlyRowsFlinkCallsTheFunctionForReachIt() {
        // boom(3) throws: CASE, AND and the filter keep it from the rows with i32 = 3.
        assertParity(
                "SELECT id, CASE WHEN i32 = 3 THEN -1 ELSE boom(i32) END,"
                        + " COALESCE(CASE WHEN i32 <> 3 THEN boom(i32) END, 0),"
                        + " i32 <> 3 AND boom(i32) > 0 FROM t");
        assertParity("SELECT id, boom(i32) FROM t WHERE i32 <> 3");
    }

    @Test
    void exceptionOfTheFunctionFailsTheJob() {
        String sql = "SELECT id, boom(i32) FROM t";
        for (StreamTableEnvironment tEnv :
                new StreamTableEnvironment[] {
                    withUdfs(HARNESS.stock()), withUdfs(HARNESS.nativeEnv())
                }) {
            RuntimeException e =
                    assertThrows(RuntimeException.class, () -> ParityHarness.run(tEnv, sql));
            Optional<IllegalArgumentException> cause =
                    ExceptionUtils.findThrowable(e, IllegalArgumentException.class);
            assertTrue(cause.isPresent(), "the UDF's exception is not the cause: " + e);
            assertEquals("boom 3", cause.get().getMessage());
        }
    }

    @Test
    void explainShowsTheCalcNativeAndRefusesNonDeterministicFunctions() {
        StreamTableEnvironment tEnv = withUdfs(HARNESS.nativeEnv());
        String explain =
                tEnv.explainSql("SELECT id, count_char(s, 'l') FROM t WHERE boom(i32) > 0");
        assertTrue(explain.contains("NativeCalc("), explain);
        assertTrue(explain.contains("1 of 1 operators native"), explain);
        String refused = tEnv.explainSql("SELECT id, random_udf(i32) FROM t");
        assertTrue(refused.contains("0 of 1 operators native"), refused);
        assertTrue(refused.contains("not deterministic"), refused);
    }

    /**
     * A Calc that calls a user-defined function after a group aggregation stays out of the
     * aggregation's island (its shell has no bridge to the function), and EXPLAIN says so on the
     * Calc; without the function the Calc joins the island.
     */
    @Test
    void explainSaysWhyACalcWithAFunctionIsNotInTheAggregationsIsland() {
        StreamTableEnvironment tEnv = withUdfs(HARNESS.nativeEnv());
        String explain =
                tEnv.explainSql(
                        "SELECT k, count_char(CAST(c AS STRING), '1') FROM (SELECT i32 % 3 AS k,"
                                + " COUNT(*) AS c FROM t GROUP BY i32 % 3)");
        assertTrue(
                explain.contains(
                        "not in one island with the GroupAggregate next to it: it calls"
                                + " user-defined functions"),
                explain);
        assertFalse(explain.contains("island 1:"), explain);
        String joined =
                tEnv.explainSql(
                        "SELECT k, c + 1 FROM (SELECT i32 % 3 AS k, COUNT(*) AS c FROM t GROUP BY"
                                + " i32 % 3)");
        assertTrue(joined.contains("island 1: GroupAggregate("), joined);
        assertFalse(joined.contains("user-defined functions"), joined);
    }
}
