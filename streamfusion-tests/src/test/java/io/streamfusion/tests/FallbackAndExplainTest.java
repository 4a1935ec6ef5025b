package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

/** Per-operator fallback, strict mode, EXPLAIN and COMPILE PLAN. */
class FallbackAndExplainTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    /**
     * UUID is non-deterministic and stays on Flink: a stock fallback with a readable reason
     * (comparing it keeps the result deterministic).
     */
    private static final String UNSUPPORTED = "SELECT id, UUID() <> '' FROM t WHERE i32 > 0";

    private static final String REASON = "Function UUID is not supported natively";

    private static StreamTableEnvironment nativeAllowingFallback() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv =
                StreamFusion.create(env, EnvironmentSettings.inStreamingMode());
        ParityHarness.registerTestTable(env, tEnv);
        return tEnv;
    }

    @Test
    void explainMarksTheNativeCalcAndCountsOperators() {
        StreamTableEnvironment tEnv = new ParityHarness().nativeEnv();
        String explain = tEnv.explainSql("SELECT id, i32 + 1 FROM t WHERE s <> 'a'");
        assertThat(explain).contains("NativeCalc(");
        assertThat(explain).contains("== StreamFusion ==");
        assertThat(explain).contains("native    Calc(");
        assertThat(explain).contains("1 of 1 operators native");
    }

    @Test
    void explainStatementShowsTheSameSection() {
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        Row row = tEnv.executeSql("EXPLAIN " + UNSUPPORTED).collect().next();
        String explain = (String) row.getField(0);
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain).contains("reason: " + REASON);
        assertThat(explain).contains("0 of 1 operators native");
    }

    @Test
    void unsupportedExpressionFallsBackWithStockResults() {
        ParityHarness.Result stock = ParityHarness.run(new ParityHarness().stock(), UNSUPPORTED);
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        ParityHarness.Result fallback = ParityHarness.run(tEnv, UNSUPPORTED);
        assertEquals(stock.rows, fallback.rows);
        SupportReport report = StreamFusion.planner(tEnv).lastReport();
        assertEquals(0, report.nativeCount());
        assertThat(report.fallbackReasons().get(0)).contains(REASON);
    }

    @Test
    void forbiddenFallbackFailsWithTheReason() {
        StreamTableEnvironment tEnv = new ParityHarness().nativeEnv();
        assertThatThrownBy(() -> ParityHarness.run(tEnv, UNSUPPORTED))
                .hasStackTraceContaining("streamfusion.fallback=forbid")
                .hasStackTraceContaining(REASON);
    }

    @Test
    void unsupportedTypeIsRefusedWithItsName() {
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        String explain = tEnv.explainSql("SELECT id, ARRAY[i32, 1] FROM t WHERE i32 > 0");
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain).contains("is not supported natively");
    }

    /**
     * CASTs that stay refused, with the pair named: constructed types to STRING (ROW, ARRAY) and
     * every CAST under table.exec.legacy-cast-behaviour. (A JVM whose Double.toString is not
     * reproduced is covered by the native unit tests:
     * CastFunctionTest.UnknownJavaVersionsAreRefused.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"CAST(r AS STRING)", "CAST(r AS VARCHAR(3))"})
    void unreproducedCastsFallBackWithTheirReason(String cast) {
        String explain =
                nativeAllowingFallback().explainSql("SELECT id, " + cast + " FROM t WHERE i32 > 0");
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain)
                .containsPattern("reason: CAST\\(ROW<.* AS .*\\) is not supported natively");
    }

    @Test
    void legacyCastBehaviourFallsBack() {
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        tEnv.getConfig().set("table.exec.legacy-cast-behaviour", "ENABLED");
        String explain = tEnv.explainSql("SELECT id, CAST(s AS INT) FROM t WHERE i32 > 0");
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain).contains("table.exec.legacy-cast-behaviour");
    }

    /**
     * Flink orders two strings held as Java objects in UTF-16 order and other pairs by UTF-8 bytes
     * (they differ between U+E000..U+FFFF and supplementary characters); the plan does not say how
     * values are held, so string ordering stays on Flink unless one side is a literal below U+D800
     * (StringOrderingParityTest). Equality and IN lists do not depend on it and stay native.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "s < r.y",
                "s >= '\uFFFD'",
                "GREATEST(s, r.y) = 'b'",
                "s BETWEEN 'a' AND '\uE000'"
            })
    void stringOrderingFallsBackWithItsReason(String predicate) {
        String sql = "SELECT id, " + predicate + " FROM t WHERE i32 > 0";
        String explain = nativeAllowingFallback().explainSql(sql);
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain)
                .contains(
                        "Flink orders strings held as Java objects in UTF-16 order and others by"
                                + " bytes");
        ParityHarness.Result stock = ParityHarness.run(new ParityHarness().stock(), sql);
        assertEquals(stock.rows, ParityHarness.run(nativeAllowingFallback(), sql).rows);
    }

    @Test
    void stringEqualityAndInListsStayNative() {
        new ParityHarness().assertParity("SELECT id, s = 'hello', s IN ('a', 'hello', '') FROM t");
    }

    @Test
    void disabledMeansStock() {
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        tEnv.getConfig().set("streamfusion.enabled", "false");
        String explain = tEnv.explainSql("SELECT id, i32 + 1 FROM t WHERE i32 > 0");
        assertThat(explain).doesNotContain("NativeCalc(");
        assertThat(explain).contains("0 of 0 operators native");
    }

    /**
     * EXPLAIN says where an event-time window aggregation keeps its windows and why: with
     * streamfusion.window.state AUTO in native memory with the hashmap backend and in the native
     * store with RocksDB; in Flink state with FLINK.
     */
    @ParameterizedTest
    @CsvSource({
        "hashmap, AUTO, 'window state: native, by key group, in memory \\(AUTO with the hashmap'",
        "hashmap, FLINK, 'window state: Flink keyed state and timers"
                + " \\(streamfusion.window.state=FLINK\\)'",
        "rocksdb, AUTO, 'window state: native, by key group, its slices and timers in a native"
                + " store on disk \\(AUTO with RocksDB: measured faster'",
        "rocksdb, FLINK, 'window state: Flink keyed state and timers"
                + " \\(streamfusion.window.state=FLINK\\)'",
        "rocksdb, NATIVE, 'window state: native, by key group, in memory"
                + " \\(streamfusion.window.state=NATIVE'"
    })
    void explainShowsWhereWindowsAreKept(String backend, String mode, String note) {
        StreamTableEnvironment tEnv = nativeAllowingFallback();
        tEnv.getConfig().set("state.backend.type", backend);
        tEnv.getConfig().set("streamfusion.window.state", mode);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE ev (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)"
                        + " WITH ('connector' = 'datagen')");
        String explain =
                tEnv.explainSql(
                        "SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev,"
                                + " DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start,"
                                + " window_end");
        assertThat(explain).containsPattern("native    (Global)?WindowAggregate\\(.*\\n +" + note);
    }

    @Test
    void compiledPlansStayStock() {
        StreamTableEnvironment tEnv = new ParityHarness(1, false, Map.of()).nativeEnv();
        tEnv.executeSql("CREATE TABLE snk (id INT, v BIGINT) WITH ('connector' = 'blackhole')");
        tEnv.executeSql(
                "CREATE TABLE src (id INT, v BIGINT) WITH ('connector' = 'datagen',"
                        + " 'number-of-rows' = '10')");
        String json =
                tEnv.compilePlanSql("INSERT INTO snk SELECT id, v + 1 FROM src WHERE v > 0")
                        .asJsonString();
        assertThat(json).contains("\"type\" : \"stream-exec-calc_1\"");
        assertThat(json).doesNotContain("Native");
    }
}
