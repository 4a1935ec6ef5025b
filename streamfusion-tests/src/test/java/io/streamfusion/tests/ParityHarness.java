package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs the same SQL on stock Flink and on StreamFusion (fallback forbidden), on the test
 * MiniCluster, and compares the full results: schema (names and types), rows with their RowKind, as
 * multisets (a parallel source does not fix the order across subtasks).
 */
public final class ParityHarness {
    private final int parallelism;
    private final Map<String, String> nativeOptions;
    private final Map<String, String> sessionOptions;
    private final boolean objectReuse;

    public ParityHarness(int parallelism, boolean objectReuse, Map<String, String> nativeOptions) {
        this(parallelism, objectReuse, nativeOptions, Map.of());
    }

    /**
     * {@code sessionOptions} are set in both engines' table configs (e.g. table.local-time-zone),
     * {@code nativeOptions} only in StreamFusion's.
     */
    public ParityHarness(
            int parallelism,
            boolean objectReuse,
            Map<String, String> nativeOptions,
            Map<String, String> sessionOptions) {
        this.parallelism = parallelism;
        this.objectReuse = objectReuse;
        this.nativeOptions = nativeOptions;
        this.sessionOptions = sessionOptions;
    }

    /** This harness with one more StreamFusion option. */
    public ParityHarness withNativeOption(String key, String value) {
        Map<String, String> options = new java.util.HashMap<>(nativeOptions);
        options.put(key, value);
        return new ParityHarness(parallelism, objectReuse, options, sessionOptions);
    }

    /** The test MiniCluster: one TaskManager with enough slots for parallelism 2 queries. */
    public static ParityCluster miniCluster() {
        return new ParityCluster();
    }

    public ParityHarness() {
        this(2, false, Map.of());
    }

    /** A stock Flink table environment with the test table "t" registered. */
    public StreamTableEnvironment stock() {
        StreamExecutionEnvironment env = environment();
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        sessionOptions.forEach((k, v) -> tEnv.getConfig().set(k, v));
        registerTestTable(env, tEnv);
        return tEnv;
    }

    /** A StreamFusion table environment (strict: fallback forbidden) with "t" registered. */
    public StreamTableEnvironment nativeEnv() {
        StreamExecutionEnvironment env = environment();
        StreamTableEnvironment tEnv =
                StreamFusion.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "forbid");
        sessionOptions.forEach((k, v) -> tEnv.getConfig().set(k, v));
        // Options given to the harness win, including a deliberate "allow".
        nativeOptions.forEach((k, v) -> tEnv.getConfig().set(k, v));
        registerTestTable(env, tEnv);
        return tEnv;
    }

    /**
     * A table environment on {@code env} at parallelism 2: stock Flink, or StreamFusion with the
     * given fallback mode. Tests with their own tables register them on it.
     */
    static StreamTableEnvironment tableEnvironment(
            StreamExecutionEnvironment env, boolean nativeEngine, String fallback) {
        env.setParallelism(2);
        StreamTableEnvironment tEnv =
                nativeEngine
                        ? StreamFusion.create(env, EnvironmentSettings.inStreamingMode())
                        : StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        if (nativeEngine) {
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), fallback);
        }
        return tEnv;
    }

    private StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.OBJECT_REUSE, objectReuse);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    static void registerTestTable(StreamExecutionEnvironment env, StreamTableEnvironment tEnv) {
        tEnv.createTemporaryView(
                "t", tEnv.fromDataStream(env.fromData(TestData.rows(), TestData.typeInfo())));
        tEnv.createTemporaryView(
                "tc",
                tEnv.fromDataStream(
                        env.fromData(TestData.compactRows(), TestData.compactTypeInfo())));
    }

    /** The result of one query: its schema and all rows (RowKind included). */
    public static final class Result {
        public final String schema;
        public final List<Row> rows;

        Result(String schema, List<Row> rows) {
            this.schema = schema;
            this.rows = rows;
        }
    }

    public static Result run(StreamTableEnvironment tEnv, String sql) {
        Table table = tEnv.sqlQuery(sql);
        String schema = table.getResolvedSchema().toString();
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = table.execute().collect()) {
            it.forEachRemaining(rows::add);
        } catch (Exception e) {
            ParityCluster.afterFailedJob(e);
            throw new RuntimeException(e);
        }
        rows.sort(Comparator.comparing(ParityHarness::sortKey));
        return new Result(schema, rows);
    }

    private static String sortKey(Row row) {
        return row.getKind().shortString() + row;
    }

    /**
     * Runs {@code sql} on both engines and asserts identical results and a native run (native
     * records counted). Returns the native result for extra checks.
     */
    public Result assertParity(String sql) {
        Result stock = run(stock(), sql);
        long before = NativeMetrics.recordsIn();
        Result nat = run(nativeEnv(), sql);
        assertTrue(
                NativeMetrics.recordsIn() > before,
                "the native operator processed no records for: " + sql);
        assertEquals(stock.schema, nat.schema, "schema differs for: " + sql);
        assertEquals(stock.rows.size(), nat.rows.size(), "row count differs for: " + sql);
        for (int i = 0; i < stock.rows.size(); i++) {
            Row s = stock.rows.get(i);
            Row n = nat.rows.get(i);
            assertEquals(s.getKind(), n.getKind(), "RowKind differs for: " + sql);
            assertTrue(
                    s.equals(n), "row differs for: " + sql + "\n stock:  " + s + "\n native: " + n);
        }
        return nat;
    }

    public void forEachEngine(Consumer<StreamTableEnvironment> body) {
        body.accept(stock());
        body.accept(nativeEnv());
    }
}
