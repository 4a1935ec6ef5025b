package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.jni.Plans;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.bridge.java.internal.StreamTableEnvironmentImpl;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

/**
 * Queries that Flink plans must never fail because of StreamFusion's planning: types the converter
 * does not know, expressions nested deeper than the native engine takes, and bad {@code
 * streamfusion.*} configuration (a clear error naming the key, at planning time).
 */
class PlanningRobustnessTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static ParityHarness allowingFallback() {
        return new ParityHarness(2, false, Map.of("streamfusion.fallback", "allow"));
    }

    /** Stock and StreamFusion (fallback allowed) give the same rows; returns the native report. */
    private static SupportReport assertSameAsStock(ParityHarness harness, String sql) {
        ParityHarness.Result expected = ParityHarness.run(harness.stock(), sql);
        StreamTableEnvironment nat = harness.nativeEnv();
        ParityHarness.Result actual = ParityHarness.run(nat, sql);
        assertThat(actual.schema).isEqualTo(expected.schema);
        assertThat(actual.rows).containsExactlyElementsOf(expected.rows);
        return StreamFusion.planner(nat).lastReport();
    }

    /**
     * A legacy RAW type (a DataStream field of GenericTypeInfo(Object), a TypeInformationRawType)
     * falls back with its name instead of failing the planning with a ClassCastException.
     */
    @Test
    void legacyRawTypeFallsBack() {
        TupleTypeInfo<Tuple2<Integer, Object>> type =
                new TupleTypeInfo<>(Types.INT, new GenericTypeInfo<>(Object.class));
        List<Tuple2<Integer, Object>> data =
                List.of(Tuple2.of(1, "x"), Tuple2.of(2, 7L), Tuple2.of(3, "y"), Tuple2.of(4, 1.5));
        List<List<Row>> results = new java.util.ArrayList<>();
        allowingFallback()
                .forEachEngine(
                        tEnv -> {
                            StreamExecutionEnvironment env =
                                    ((StreamTableEnvironmentImpl) tEnv).execEnv();
                            tEnv.createTemporaryView(
                                    "legacy", tEnv.fromDataStream(env.fromData(data, type)));
                            results.add(
                                    ParityHarness.run(
                                                    tEnv, "SELECT f0 + 1 FROM legacy WHERE f0 > 1")
                                            .rows);
                            if (results.size() == 2) {
                                assertThat(StreamFusion.planner(tEnv).lastReport().decisions())
                                        .anyMatch(
                                                d ->
                                                        !d.isNative
                                                                && d.operator.startsWith("Calc(")
                                                                && d.reason.contains("RAW"));
                            }
                        });
        assertThat(results.get(0)).hasSize(3);
        assertThat(results.get(1)).isEqualTo(results.get(0));
    }

    private static String repeat(String text, int times) {
        return text.repeat(times);
    }

    /**
     * Deep expressions as users write them (long sums, nested IFs, long concatenations, deep
     * nesting) run natively with stock results; deeper than the native bound they fall back with
     * the reason. The deepest native one runs its compilation and evaluation on a task thread.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "sum:60",
                "if:60",
                "concat:60",
                "nested:48",
                "upper:150",
                "nested:" + (Plans.MAX_EXPRESSION_DEPTH - 2)
            })
    void deepExpressionsRunNatively(String spec) {
        String sql = "SELECT id, " + deepExpression(spec) + " FROM t WHERE i32 IS NOT NULL";
        new ParityHarness().assertParity(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"upper:300", "nested:" + (Plans.MAX_EXPRESSION_DEPTH + 1)})
    void tooDeepExpressionsFallBackWithTheirReason(String spec) {
        String sql = "SELECT id, " + deepExpression(spec) + " FROM t WHERE i32 IS NOT NULL";
        SupportReport report = assertSameAsStock(allowingFallback(), sql);
        assertThat(report.decisions())
                .anyMatch(
                        d ->
                                !d.isNative
                                        && d.reason.contains(
                                                "levels deep is not native (at most "
                                                        + Plans.MAX_EXPRESSION_DEPTH));
    }

    private static String deepExpression(String spec) {
        String kind = spec.substring(0, spec.indexOf(':'));
        int n = Integer.parseInt(spec.substring(spec.indexOf(':') + 1));
        switch (kind) {
            case "sum":
                // a + a + ... : Calcite's left-deep tree of n - 1 PLUS calls.
                return "CAST(i32 AS BIGINT)" + repeat(" + CAST(i32 AS BIGINT)", n - 1);
            case "if":
                return repeat("IF(i32 > id, id, ", n) + "i32" + repeat(")", n);
            case "concat":
                return "s" + repeat(" || CAST(id AS STRING)", n - 1);
            case "nested":
                return repeat("(", n) + "CAST(id AS BIGINT)" + repeat(" + 1)", n);
            case "upper":
                return repeat("UPPER(", n) + "s" + repeat(")", n);
            default:
                throw new IllegalArgumentException(spec);
        }
    }

    /** Every streamfusion.* value is checked when the job is planned, with the key named. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "streamfusion.batch.size|0|from 1 to 1048576",
                "streamfusion.batch.size|-1|from 1 to 1048576",
                "streamfusion.batch.size|2147483647|from 1 to 1048576",
                "streamfusion.window.buffer-rows|0|from 1 to 1048576",
                "streamfusion.window.buffer-rows|-5|from 1 to 1048576",
                "streamfusion.memory.budget|0|at least 1 byte",
                "streamfusion.batch.max-delay|0 ms|from 1 ms to 1 h",
                "streamfusion.batch.size|abc|abc",
                "streamfusion.batch.sise|64|Unknown StreamFusion option 'streamfusion.batch.sise'"
            })
    void invalidOptionsAreRefusedWhenPlanned(String key, String value, String allowed) {
        StreamTableEnvironment tEnv = allowingFallback().nativeEnv();
        tEnv.getConfig().set(key, value);
        assertThatThrownBy(() -> tEnv.explainSql("SELECT id, i32 + 1 FROM t WHERE i32 > 0"))
                .satisfies(
                        e ->
                                assertThat(e)
                                        .hasStackTraceContaining(key)
                                        .hasStackTraceContaining(value)
                                        .hasStackTraceContaining(allowed));
        if (!value.equals("abc")) {
            assertThatThrownBy(() -> tEnv.explainSql("SELECT id FROM t"))
                    .isInstanceOf(ValidationException.class);
        }
    }

    /** Values at the ends of the allowed ranges are taken. */
    @Test
    void boundaryOptionsAreAccepted() {
        ParityHarness harness =
                new ParityHarness(
                        2,
                        false,
                        Map.of(
                                "streamfusion.batch.size", "1",
                                "streamfusion.window.buffer-rows", "1048576",
                                "streamfusion.memory.budget", "256mb",
                                "streamfusion.batch.max-delay", "1 ms"));
        harness.assertParity("SELECT id, i32 + 1 FROM t WHERE i32 > 0");
    }
}
