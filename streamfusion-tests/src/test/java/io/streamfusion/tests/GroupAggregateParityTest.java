package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.bridge.java.internal.StreamTableEnvironmentImpl;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Non-windowed GROUP BY runs natively (StreamExecGroupAggregate without mini-batch) with the
 * changelog of stock Flink: same rows, RowKinds and values, over edge data (NULLs, overflow,
 * NaN/-0.0, DECIMAL limits, far dates), insert-only and retracting input, FILTER clauses, state
 * TTL, and batches of 3 rows so that groups cross batches and state round trips.
 */
class GroupAggregateParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    /** Small batches: every group's accumulator goes through Flink state between batches. */
    private static final Map<String, String> SMALL_BATCHES = Map.of("streamfusion.batch.size", "3");

    private static ParityHarness harness() {
        return new ParityHarness(2, false, SMALL_BATCHES);
    }

    /**
     * Parallelism 1, for aggregations over aggregations: at parallelism 2 the outer one merges two
     * inner subtasks' changelogs in arrival order, which even stock Flink does not fix.
     */
    private static ParityHarness serial() {
        return new ParityHarness(1, false, SMALL_BATCHES);
    }

    /** {@link TestData} five times over (ids shifted), so sums overflow and groups repeat. */
    private static final String BIG = "big";

    private static void registerBig(StreamTableEnvironment tEnv) {
        List<Row> rows = new ArrayList<>();
        for (int copy = 0; copy < 5; copy++) {
            for (Row row : TestData.rows()) {
                Row shifted = Row.copy(row);
                shifted.setField(0, (Integer) row.getField(0) + 100 * copy);
                rows.add(shifted);
            }
        }
        StreamExecutionEnvironment env = ((StreamTableEnvironmentImpl) tEnv).execEnv();
        tEnv.createTemporaryView(BIG, tEnv.fromDataStream(env.fromData(rows, TestData.typeInfo())));
    }

    private static void assertBigParity(ParityHarness harness, String sql) {
        assertBigParity(harness, sql, false);
    }

    /** As above; with {@code every}, every group aggregation of the plan must be native. */
    private static void assertBigParity(ParityHarness harness, String sql, boolean every) {
        ParityHarness.Result stock = runBig(harness.stock(), sql);
        long before = io.streamfusion.runtime.metrics.NativeMetrics.recordsIn();
        StreamTableEnvironment nat = harness.nativeEnv();
        ParityHarness.Result actual = runBig(nat, sql);
        assertThat(io.streamfusion.runtime.metrics.NativeMetrics.recordsIn())
                .as("native records for %s", sql)
                .isGreaterThan(before);
        lastIslands = StreamFusion.planner(nat).lastReport().islands();
        lastNotes = new ArrayList<>();
        StreamFusion.planner(nat).lastReport().decisions().stream()
                .filter(d -> d.isNative && d.note != null)
                .forEach(d -> lastNotes.add(d.note));
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .as("a native group aggregation for %s", sql)
                .anyMatch(d -> d.isNative && d.operator.contains("GroupAggregate("));
        if (every) {
            assertThat(StreamFusion.planner(nat).lastReport().decisions())
                    .as("every group aggregation native for %s", sql)
                    .noneMatch(d -> !d.isNative && d.operator.contains("GroupAggregate("));
        }
        assertThat(actual.schema).isEqualTo(stock.schema);
        assertThat(actual.rows).as(sql).containsExactlyElementsOf(stock.rows);
    }

    /** The islands of the last native run of {@link #assertBigParity}. */
    private static List<List<String>> lastIslands = List.of();

    /** The notes of the native operators of that run. */
    private static List<String> lastNotes = List.of();

    private static ParityHarness.Result runBig(StreamTableEnvironment tEnv, String sql) {
        registerBig(tEnv);
        return ParityHarness.run(tEnv, sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"i8", "i16", "i32", "i64", "f32", "f64", "d10", "d38"})
    void numericFunctionsMatch(String c) {
        String avg = ", AVG(" + c + ")";
        assertBigParity(
                harness(),
                "SELECT id % 4, COUNT(*), COUNT("
                        + c
                        + "), SUM("
                        + c
                        + "), MIN("
                        + c
                        + "), MAX("
                        + c
                        + ")"
                        + avg
                        + " FROM "
                        + BIG
                        + " GROUP BY id % 4");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dt", "tm", "ts", "ltz", "ts9"})
    void temporalMinMaxMatch(String c) {
        assertBigParity(
                harness(),
                "SELECT b, COUNT("
                        + c
                        + "), MIN("
                        + c
                        + "), MAX("
                        + c
                        + ") FROM "
                        + BIG
                        + " GROUP BY b");
    }

    /** Keys of every kind: strings (multi-byte, empty), non-compact DECIMAL and TIMESTAMP, ROW. */
    @ParameterizedTest
    @ValueSource(strings = {"s", "d38", "ts9", "r", "s, i8", "bin", "b, dt, ltz"})
    void keysOfEveryTypeMatch(String keys) {
        assertBigParity(
                harness(),
                "SELECT "
                        + keys
                        + ", COUNT(*), SUM(i64), MAX(f64) FROM "
                        + BIG
                        + " GROUP BY "
                        + keys);
    }

    @Test
    void globalAggregateMatches() {
        assertBigParity(harness(), "SELECT COUNT(*), SUM(i32), MIN(d10), AVG(f32) FROM " + BIG);
    }

    @Test
    void filterClausesMatch() {
        assertBigParity(
                harness(),
                "SELECT s, COUNT(*) FILTER (WHERE i32 > 0), SUM(i64) FILTER (WHERE b), "
                        + "MAX(i16) FILTER (WHERE f64 < 1), AVG(i8) FILTER (WHERE b IS NULL) "
                        + "FROM "
                        + BIG
                        + " GROUP BY s");
    }

    /**
     * Retracting input: the outer aggregation sees -U/+U from the inner one, groups become empty
     * (-D) and come back, and the record counter (hidden COUNT(*) or the query's own) decides.
     */
    @Test
    void retractingInputEmptiesAndRefillsGroups() {
        String inner =
                "SELECT id % 7 AS g, COUNT(*) AS cnt, SUM(i64) AS total FROM "
                        + BIG
                        + " GROUP BY id % 7";
        assertBigParity(
                serial(),
                "SELECT cnt, SUM(total), COUNT(total), AVG(cnt) FROM (" + inner + ") GROUP BY cnt");
        assertBigParity(
                serial(),
                "SELECT cnt % 2, COUNT(*), SUM(total) FROM (" + inner + ") GROUP BY cnt % 2");
    }

    @Test
    void retractionsProduceDeletes() {
        String sql =
                "SELECT cnt, COUNT(*) FROM (SELECT s, COUNT(*) AS cnt FROM "
                        + BIG
                        + " GROUP BY s) GROUP BY cnt";
        ParityHarness.Result stock = runBig(serial().stock(), sql);
        assertThat(stock.rows).anyMatch(r -> r.getKind() == RowKind.DELETE);
        assertBigParity(serial(), sql);
    }

    /**
     * With state TTL Flink re-emits an unchanged value as -U/+U (to keep downstream alive); the
     * maps of MIN/MAX over retracting input get the TTL too.
     */
    @Test
    void stateTtlReEmitsUnchangedValues() {
        ParityHarness ttl =
                new ParityHarness(2, false, SMALL_BATCHES, Map.of("table.exec.state.ttl", "1 h"));
        String sql = "SELECT b, MAX(i8), MIN(i8) FROM " + BIG + " GROUP BY b";
        ParityHarness.Result stock = runBig(ttl.stock(), sql);
        assertThat(stock.rows).anyMatch(r -> r.getKind() == RowKind.UPDATE_BEFORE);
        assertBigParity(ttl, sql);
        ParityHarness serialTtl =
                new ParityHarness(1, false, SMALL_BATCHES, Map.of("table.exec.state.ttl", "1 h"));
        assertBigParity(
                serialTtl,
                "SELECT cnt, MIN(s), MAX(total) FROM (SELECT s, COUNT(*) AS cnt, SUM(i64) AS total"
                        + " FROM "
                        + BIG
                        + " GROUP BY s) GROUP BY cnt",
                true);
    }

    @Test
    void nativeMemoryReturnsToZero() {
        assertBigParity(harness(), "SELECT s, COUNT(*) FROM " + BIG + " GROUP BY s");
        assertThat(NativeLib.globalMemoryBytes()).isZero();
    }

    /** What is not native yet is refused with its reason (strict mode fails with it). */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT i8, MAX(b) FROM big GROUP BY i8|MAX of BOOLEAN",
                "SELECT s, LISTAGG(s) FROM big GROUP BY s|no native kernel",
                "SELECT i2, LAST_VALUE(b2) FROM (SELECT s, MAX(i8) AS i2, b AS b2 FROM big"
                        + " GROUP BY s, b) GROUP BY i2|LAST_VALUE_WITH_RETRACT of BOOLEAN",
                "SELECT b, FIRST_VALUE(b) FROM big GROUP BY b|FIRST_VALUE of BOOLEAN"
            })
    void unsupportedAggregatesAreRefusedWithAReason(String spec) {
        String sql = spec.substring(0, spec.indexOf('|'));
        String reason = spec.substring(spec.indexOf('|') + 1);
        StreamTableEnvironment nat = harness().nativeEnv();
        registerBig(nat);
        assertThatThrownBy(() -> ParityHarness.run(nat, sql))
                .hasStackTraceContaining("GroupAggregate")
                .hasStackTraceContaining(reason);
    }

    /**
     * FIRST_VALUE and LAST_VALUE (FirstValueAggFunction / LastValueAggFunction: a ROW(value, order)
     * accumulator whose order is the wall clock) over values of every kept type, NULLs skipped,
     * with FILTER; per row and with mini-batch. Parallelism 1: which row comes first depends on the
     * arrival order, which two upstream subtasks would interleave at random.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE"})
    void firstAndLastValuesMatch(String miniBatch) {
        ParityHarness harness = miniBatch.equals("none") ? serial() : miniBatch(miniBatch);
        assertBigParity(
                harness,
                "SELECT id % 4, FIRST_VALUE(i32), LAST_VALUE(i32), FIRST_VALUE(s), LAST_VALUE(s),"
                        + " FIRST_VALUE(d38), LAST_VALUE(ts), LAST_VALUE(f64) FILTER (WHERE b),"
                        + " FIRST_VALUE(ts9), LAST_VALUE(ts9),"
                        + " FIRST_VALUE(dt) FILTER (WHERE i8 > 0), COUNT(*) FROM "
                        + BIG
                        + " GROUP BY id % 4");
        assertBigParity(
                harness, "SELECT s, LAST_VALUE(i64), FIRST_VALUE(f32) FROM " + BIG + " GROUP BY s");
    }

    /**
     * Mini-batch, one phase (MiniBatchGroupAggFunction) and two phases (Local/Global): bundles of 7
     * rows (the latency is too long to end one), parallelism 1 so that bundles are the same in both
     * engines. Keys of a bundle are emitted in another order than Flink's HashMap order; the
     * results are compared as multisets.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ONE_PHASE", "TWO_PHASE"})
    void miniBatchMatches(String phases) {
        ParityHarness miniBatch = miniBatch(phases);
        assertBigParity(
                miniBatch,
                "SELECT id % 4, COUNT(*), COUNT(i8), SUM(i64), SUM(f64), MIN(f32), MAX(d10), "
                        + "AVG(i32), SUM(d38) FROM "
                        + BIG
                        + " GROUP BY id % 4");
        assertBigParity(
                miniBatch,
                "SELECT s, COUNT(*) FILTER (WHERE b), MAX(ts), MIN(dt) FROM "
                        + BIG
                        + " GROUP BY s");
        String inner =
                "SELECT id % 7 AS g, COUNT(*) AS cnt, SUM(i64) AS total FROM "
                        + BIG
                        + " GROUP BY id % 7";
        assertBigParity(
                miniBatch,
                "SELECT cnt, SUM(total), COUNT(*), AVG(cnt) FROM (" + inner + ") GROUP BY cnt");
    }

    /**
     * A group aggregation and the Calc it alone feeds (a filter on the aggregates and computed
     * columns) run as one island: the aggregation's changelog goes through the Calc in Arrow and
     * leaves the native pipeline once, each row with its input row's timestamp.
     */
    @Test
    void anAggregationAndTheCalcItFeedsRunAsOneIsland() {
        String sql =
                "SELECT g * 10, cnt + 1, total FROM (SELECT id % 7 AS g, COUNT(*) AS cnt,"
                        + " SUM(i64) AS total FROM "
                        + BIG
                        + " GROUP BY id % 7) WHERE cnt % 2 = 1";
        assertBigParity(harness(), sql);
        assertThat(lastIslands)
                .singleElement()
                .satisfies(
                        island -> {
                            assertThat(island).hasSize(2);
                            assertThat(island.get(0)).startsWith("GroupAggregate(");
                            assertThat(island.get(1)).startsWith("Calc(");
                        });
        // streamfusion.islands=false: the same operators native, each an island of its own.
        assertBigParity(harness().withNativeOption("streamfusion.islands", "false"), sql);
        assertThat(lastIslands).isEmpty();
    }

    /**
     * With mini-batch in two phases, the Calc feeding the local phase runs in its island, and the
     * global phase in one with the Calc it feeds; the local phase keeps no state and never waits
     * for any.
     */
    @Test
    void twoPhaseAggregationsJoinTheirCalcsInIslands() {
        String sql =
                "SELECT s, cnt * 2, total FROM (SELECT s, COUNT(*) AS cnt, SUM(i64 * 2) AS total"
                        + " FROM "
                        + BIG
                        + " WHERE i32 IS NOT NULL AND id % 5 <> 0 GROUP BY s)";
        assertBigParity(miniBatch("TWO_PHASE"), sql, true);
        assertThat(lastIslands)
                .hasSize(2)
                .anySatisfy(
                        island ->
                                assertThat(island)
                                        .satisfiesExactly(
                                                head -> assertThat(head).startsWith("Calc("),
                                                next ->
                                                        assertThat(next)
                                                                .startsWith(
                                                                        "LocalGroupAggregate(")))
                .anySatisfy(
                        island ->
                                assertThat(island)
                                        .satisfiesExactly(
                                                head ->
                                                        assertThat(head)
                                                                .startsWith(
                                                                        "GlobalGroupAggregate("),
                                                next -> assertThat(next).startsWith("Calc(")));
    }

    @Test
    void twoPhasePlanIsLocalAndGlobal() {
        StreamTableEnvironment nat = miniBatch("TWO_PHASE").nativeEnv();
        registerBig(nat);
        ParityHarness.run(nat, "SELECT s, COUNT(*) FROM big GROUP BY s");
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalGroupAggregate("))
                .anyMatch(d -> d.isNative && d.operator.startsWith("GlobalGroupAggregate("));
    }

    private static ParityHarness miniBatch(String phases) {
        return miniBatch(phases, Map.of());
    }

    /** Bundles of 7 rows at parallelism 1, plus {@code extra} session options. */
    private static ParityHarness miniBatch(String phases, Map<String, String> extra) {
        Map<String, String> options = new java.util.HashMap<>(extra);
        options.put("table.exec.mini-batch.enabled", "true");
        options.put("table.exec.mini-batch.allow-latency", "1 h");
        options.put("table.exec.mini-batch.size", "7");
        options.put("table.optimizer.agg-phase-strategy", phases);
        return new ParityHarness(1, false, Map.of(), options);
    }

    /** Flink 2.2.1 loses rows in this configuration (FLINK-35661): refused with that reason. */
    @Test
    void miniBatchWithRetractionAndTtlIsRefused() {
        ParityHarness ttl = miniBatch("ONE_PHASE", Map.of("table.exec.state.ttl", "1 h"));
        StreamTableEnvironment nat = ttl.nativeEnv();
        registerBig(nat);
        assertThatThrownBy(
                        () ->
                                ParityHarness.run(
                                        nat,
                                        "SELECT cnt, COUNT(*) FROM (SELECT s, COUNT(*) AS cnt "
                                                + "FROM big GROUP BY s) GROUP BY cnt"))
                .hasStackTraceContaining("FLINK-35661");
    }

    @Test
    void tinyMemoryBudgetIsAClearError() {
        ParityHarness tiny =
                new ParityHarness(
                        1,
                        false,
                        Map.of(
                                "streamfusion.memory.budget",
                                "1kb",
                                "streamfusion.batch.size",
                                "64"));
        StreamTableEnvironment nat = tiny.nativeEnv();
        registerBig(nat);
        assertThatThrownBy(() -> ParityHarness.run(nat, "SELECT s, COUNT(*) FROM big GROUP BY s"))
                .hasStackTraceContaining("streamfusion.memory.budget");
        assertThat(NativeLib.globalMemoryBytes()).isZero();
    }

    /**
     * DISTINCT aggregates share Flink's distinct maps (MapState of value to a bitmask of calls):
     * several calls and filters on one map, NULL values (Flink's separate null-key state), string
     * and numeric keys, SUM and AVG DISTINCT, with and without one-phase mini-batch.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void distinctAggregatesMatch(boolean miniBatch) {
        ParityHarness harness = miniBatch ? miniBatch("ONE_PHASE") : serial();
        assertBigParity(
                harness,
                "SELECT b, COUNT(DISTINCT i8), COUNT(DISTINCT i8) FILTER (WHERE i32 > 0), "
                        + "COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE f64 < 1), "
                        + "SUM(DISTINCT i64), AVG(DISTINCT i16), COUNT(*), MAX(i32) "
                        + "FROM "
                        + BIG
                        + " GROUP BY b");
        assertBigParity(
                harness,
                "SELECT id % 3, COUNT(DISTINCT d10) FILTER (WHERE b), COUNT(DISTINCT ts9) "
                        + "FROM "
                        + BIG
                        + " GROUP BY id % 3");
    }

    /**
     * DISTINCT over a retracting input (an aggregation's changelog): Flink's map then counts each
     * value, the call sees it come (0 to 1) and go (1 to 0), the entry is removed at 0 and a group
     * that empties clears its maps; in two phases the views carry counts that the Global
     * aggregation adds up. Several calls on one argument count per call in a long[] (filters on
     * some or on all of them). Per row and mini-batch; serial, as the outer aggregation of an
     * aggregation.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE", "TWO_PHASE"})
    void distinctOverRetractingInputMatches(String miniBatch) {
        String inner =
                "SELECT s, i8, COUNT(*) AS cnt, SUM(i64) AS total FROM " + BIG + " GROUP BY s, i8";
        String[] queries = {
            "SELECT cnt, COUNT(DISTINCT i8), COUNT(DISTINCT s) FILTER (WHERE cnt > 1),"
                    + " SUM(DISTINCT total), COUNT(*) FROM ("
                    + inner
                    + ") GROUP BY cnt",
            "SELECT i8, COUNT(DISTINCT s), AVG(DISTINCT cnt) FROM (" + inner + ") GROUP BY i8",
            "SELECT cnt, COUNT(DISTINCT i8), SUM(DISTINCT i8), AVG(DISTINCT i8) FILTER (WHERE"
                    + " total > 0), COUNT(DISTINCT s) FILTER (WHERE i8 > 0), COUNT(DISTINCT s)"
                    + " FILTER (WHERE total < 0), COUNT(*) FROM ("
                    + inner
                    + ") GROUP BY cnt"
        };
        ParityHarness harness = miniBatch.equals("none") ? serial() : miniBatch(miniBatch);
        for (String sql : queries) {
            assertBigParity(harness, sql);
        }
    }

    /**
     * MIN/MAX over a retracting input (Min/MaxWithRetractAggFunction): a count per value in a
     * state-backed map; when a retraction removes a group's extreme the whole map is scanned for
     * the next one (negative counts included). Strings (byte order), FLOAT/DOUBLE (compareTo: -0.0
     * below 0.0, NaN above all), DECIMAL, TIMESTAMP(9), BIGINT; FILTER; groups that empty and
     * refill. Per row and mini-batch in one and two phases (the Local aggregation sends each
     * bundle's map as Flink's heap MapView bytes, the Global one merges them into its state);
     * serial, as the outer aggregation of an aggregation.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE", "TWO_PHASE"})
    void minMaxOverRetractingInputMatches(String miniBatch) {
        String inner =
                "SELECT s, i8, COUNT(*) AS cnt, SUM(i64) AS total, MAX(d38) AS md, MAX(ts9) AS mt,"
                        + " MIN(f64) AS mf, MAX(f32) AS mx FROM "
                        + BIG
                        + " GROUP BY s, i8";
        String[] queries = {
            "SELECT cnt, MIN(total), MAX(total), MIN(s), MAX(s), MIN(md), MAX(mt), MAX(mf),"
                    + " MIN(mf) FILTER (WHERE i8 > 0), MIN(mx), COUNT(*) FROM ("
                    + inner
                    + ") GROUP BY cnt",
            "SELECT i8, MAX(cnt), MIN(cnt), MAX(total), MIN(s) FROM (" + inner + ") GROUP BY i8",
            "SELECT cnt % 2, MAX(total), MIN(mt) FROM (" + inner + ") GROUP BY cnt % 2"
        };
        ParityHarness harness = miniBatch.equals("none") ? serial() : miniBatch(miniBatch);
        long loads = NativeMetrics.wholeMapLoads();
        for (String sql : queries) {
            assertBigParity(harness, sql, true);
        }
        assertThat(NativeMetrics.wholeMapLoads()).as("rescans of whole maps").isGreaterThan(loads);
    }

    /**
     * FIRST_VALUE/LAST_VALUE over a retracting input (First/LastValueWithRetractAggFunction): two
     * state-backed maps, value -> orders and order -> values (the order is the wall clock); a
     * retraction removes the value's oldest occurrence, and when it retracts the group's value the
     * whole order map is scanned for the next one. Strings, BIGINT, DECIMAL, TIMESTAMP(9), DOUBLE
     * (NaN, -0.0); FILTER; groups that empty and refill. Per row and mini-batch (Flink's functions
     * have no merge: never two phases, even when asked); serial, as the outer aggregation of an
     * aggregation.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE", "TWO_PHASE"})
    void firstAndLastValuesOverRetractingInputMatch(String miniBatch) {
        String inner =
                "SELECT s, i8, COUNT(*) AS cnt, SUM(i64) AS total, MAX(d38) AS md, MAX(ts9) AS mt,"
                        + " MIN(f64) AS mf, LAST_VALUE(s) AS ls FROM "
                        + BIG
                        + " GROUP BY s, i8";
        String[] queries = {
            "SELECT cnt, FIRST_VALUE(total), LAST_VALUE(total), FIRST_VALUE(s), LAST_VALUE(s),"
                    + " FIRST_VALUE(md), LAST_VALUE(mt), FIRST_VALUE(mf),"
                    + " LAST_VALUE(mf) FILTER (WHERE i8 > 0), COUNT(*) FROM ("
                    + inner
                    + ") GROUP BY cnt",
            "SELECT i8, FIRST_VALUE(cnt), LAST_VALUE(cnt), LAST_VALUE(ls), MAX(total) FROM ("
                    + inner
                    + ") GROUP BY i8",
            "SELECT cnt % 2, LAST_VALUE(total), FIRST_VALUE(mt) FROM ("
                    + inner
                    + ") GROUP BY cnt % 2"
        };
        ParityHarness harness = miniBatch.equals("none") ? serial() : miniBatch(miniBatch);
        for (String sql : queries) {
            assertBigParity(harness, sql, true);
        }
    }

    /**
     * streamfusion.group.state=STORE: the aggregation's accumulators and its DISTINCT, MIN/MAX and
     * FIRST/LAST_VALUE maps live in the native store, which serves the state port inside the island
     * (whole maps scanned there too). Per row and mini-batch in one and two phases; plain
     * aggregates, DISTINCT over insert-only and retracting input, MIN/MAX and FIRST/LAST_VALUE over
     * retraction match stock, and EXPLAIN says where the state lives.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE", "TWO_PHASE"})
    void stateInTheNativeStoreMatches(String miniBatch) {
        String inner =
                "SELECT s, i8, COUNT(*) AS cnt, SUM(i64) AS total, MAX(ts9) AS mt FROM "
                        + BIG
                        + " GROUP BY s, i8";
        String[] queries = {
            "SELECT id % 4, COUNT(*), SUM(i64), MIN(f32), MAX(d10), AVG(i32), COUNT(DISTINCT s),"
                    + " COUNT(DISTINCT i8) FILTER (WHERE b) FROM "
                    + BIG
                    + " GROUP BY id % 4",
            "SELECT cnt, MIN(total), MAX(total), MIN(s), MAX(mt), COUNT(DISTINCT i8),"
                    + " SUM(DISTINCT total), COUNT(*) FROM ("
                    + inner
                    + ") GROUP BY cnt",
            "SELECT i8, FIRST_VALUE(cnt), LAST_VALUE(s), MAX(total) FROM ("
                    + inner
                    + ") GROUP BY i8"
        };
        ParityHarness harness =
                (miniBatch.equals("none") ? serial() : miniBatch(miniBatch))
                        .withNativeOption("streamfusion.group.state", "STORE");
        for (String sql : queries) {
            long stateRows = NativeMetrics.nativeStateRows();
            assertBigParity(harness, sql, true);
            assertThat(NativeMetrics.nativeStateRows())
                    .as("rows into the native store for %s", sql)
                    .isGreaterThan(stateRows);
            assertThat(lastNotes)
                    .as("EXPLAIN's note for %s", sql)
                    .anyMatch(note -> note.startsWith("group state: a native store on disk"))
                    .noneMatch(note -> note.startsWith("group state: Flink keyed state"));
        }
    }

    /**
     * Split DISTINCT aggregation (table.optimizer.distinct-agg.split.enabled) with mini-batch:
     * Flink's IncrementalGroupAggregate stays Flink's, with its reason in the report, the Local and
     * Global aggregations around it are native, and the results match; with incremental aggregation
     * off, every aggregation of the split plan (partial Local/Global with DISTINCT per bucket,
     * final Local/Global) is native. The bucket's HASH_CODE and the Expand stay Flink's.
     */
    @Test
    void splitDistinctAggregationMatches() {
        String sql =
                "SELECT b, COUNT(DISTINCT i32), SUM(DISTINCT i8), COUNT(*), MAX(i64) FROM "
                        + BIG
                        + " GROUP BY b";
        Map<String, String> split = Map.of("table.optimizer.distinct-agg.split.enabled", "true");
        ParityHarness incremental =
                miniBatch("TWO_PHASE", split).withNativeOption("streamfusion.fallback", "allow");
        assertBigParity(incremental, sql);
        StreamTableEnvironment nat = incremental.nativeEnv();
        registerBig(nat);
        ParityHarness.run(nat, sql);
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .anyMatch(
                        d ->
                                !d.isNative
                                        && d.operator.startsWith("IncrementalGroupAggregate(")
                                        && d.reason.contains("split DISTINCT"))
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalGroupAggregate("))
                .anyMatch(d -> d.isNative && d.operator.startsWith("GlobalGroupAggregate("));

        Map<String, String> noIncremental = new java.util.HashMap<>(split);
        noIncremental.put("table.optimizer.incremental-agg-enabled", "false");
        ParityHarness plain =
                miniBatch("TWO_PHASE", noIncremental)
                        .withNativeOption("streamfusion.fallback", "allow");
        assertBigParity(plain, sql);
        StreamTableEnvironment all = plain.nativeEnv();
        registerBig(all);
        ParityHarness.run(all, sql);
        assertThat(StreamFusion.planner(all).lastReport().decisions())
                .filteredOn(d -> d.operator.contains("GroupAggregate("))
                .hasSize(4)
                .allMatch(d -> d.isNative);
    }

    private static final String TWO_PHASE_DISTINCT =
            "SELECT b, COUNT(DISTINCT i8), COUNT(DISTINCT i8) FILTER (WHERE i32 > 0), "
                    + "COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE f64 < 1), "
                    + "SUM(DISTINCT i64), AVG(DISTINCT i16), COUNT(*), MAX(i32) "
                    + "FROM "
                    + BIG
                    + " GROUP BY b";

    private static final String TWO_PHASE_DISTINCT_TYPES =
            "SELECT id % 3, COUNT(DISTINCT d10) FILTER (WHERE b), COUNT(DISTINCT dt), "
                    + "COUNT(DISTINCT b), COUNT(DISTINCT f32), COUNT(DISTINCT ts), "
                    + "COUNT(DISTINCT ts9), COUNT(DISTINCT d38), "
                    + "MIN(DISTINCT i32) FROM "
                    + BIG
                    + " GROUP BY id % 3";

    /**
     * Two-phase DISTINCT (mini-batch, Local/Global): LocalGroupAggregate sends each key's map of
     * the bundle as Flink's RAW MapView bytes; GlobalGroupAggregate merges their entries into its
     * state-backed maps. Keys of every view type: integers, strings short and long, NULL, BOOLEAN,
     * FLOAT, DATE, DECIMAL, TIMESTAMP.
     */
    @Test
    void twoPhaseDistinctAggregatesMatch() {
        ParityHarness harness = miniBatch("TWO_PHASE");
        assertBigParity(harness, TWO_PHASE_DISTINCT);
        assertBigParity(harness, TWO_PHASE_DISTINCT_TYPES);
        StreamTableEnvironment nat = harness.nativeEnv();
        registerBig(nat);
        ParityHarness.run(nat, TWO_PHASE_DISTINCT);
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalGroupAggregate("))
                .anyMatch(d -> d.isNative && d.operator.startsWith("GlobalGroupAggregate("));
    }

    /**
     * The views are Flink's bytes: a native LocalGroupAggregate feeds Flink's GlobalGroupAggregate
     * and Flink's LocalGroupAggregate feeds a native GlobalGroupAggregate, with stock results.
     */
    @ParameterizedTest
    @ValueSource(strings = {"GlobalGroupAggregate", "LocalGroupAggregate"})
    void twoPhaseDistinctViewsAreFlinksBytes(String excluded) {
        ParityHarness stock = miniBatch("TWO_PHASE");
        ParityHarness mixed =
                miniBatch(
                        "TWO_PHASE",
                        Map.of(
                                "streamfusion.fallback",
                                "allow",
                                "streamfusion.operators.excluded",
                                excluded));
        String retracting =
                "SELECT cnt, COUNT(DISTINCT i8), SUM(DISTINCT total), SUM(DISTINCT i8) FILTER"
                        + " (WHERE total > 0), COUNT(DISTINCT total) FROM (SELECT s, i8, COUNT(*)"
                        + " AS cnt, SUM(i64) AS total FROM "
                        + BIG
                        + " GROUP BY s, i8) GROUP BY cnt";
        // MIN/MAX over retracting input: the Local side's heap map (value -> count) travels too.
        String minMax =
                "SELECT cnt, MIN(total), MAX(s), MIN(mt), MAX(md), COUNT(*) FROM (SELECT s, i8,"
                        + " COUNT(*) AS cnt, SUM(i64) AS total, MAX(ts9) AS mt, MIN(d38) AS md"
                        + " FROM "
                        + BIG
                        + " GROUP BY s, i8) GROUP BY cnt";
        for (String sql :
                List.of(TWO_PHASE_DISTINCT, TWO_PHASE_DISTINCT_TYPES, retracting, minMax)) {
            ParityHarness.Result expected = runBig(stock.stock(), sql);
            StreamTableEnvironment nat = mixed.nativeEnv();
            ParityHarness.Result actual = runBig(nat, sql);
            String kept =
                    excluded.startsWith("Global")
                            ? "LocalGroupAggregate("
                            : "GlobalGroupAggregate(";
            assertThat(StreamFusion.planner(nat).lastReport().decisions())
                    .anyMatch(d -> d.isNative && d.operator.startsWith(kept))
                    .anyMatch(
                            d ->
                                    !d.isNative
                                            && d.operator.startsWith(excluded + "(")
                                            && d.reason.contains(
                                                    "streamfusion.operators.excluded"));
            assertThat(actual.rows).as(sql).containsExactlyElementsOf(expected.rows);
        }
    }

    /** A two-phase SUM DISTINCT of DOUBLE depends on Flink's merge order: refused, named. */
    @Test
    void twoPhaseFloatingDistinctSumIsRefused() {
        StreamTableEnvironment nat = miniBatch("TWO_PHASE").nativeEnv();
        registerBig(nat);
        assertThatThrownBy(
                        () ->
                                ParityHarness.run(
                                        nat, "SELECT b, SUM(DISTINCT f64) FROM big GROUP BY b"))
                .hasStackTraceContaining("two-phase SUM/AVG DISTINCT of a non-integer");
    }

    /** MIN/MAX of strings: UTF-8 byte order (multi-byte, empty, NULL), one and two phases. */
    @ParameterizedTest
    @ValueSource(strings = {"none", "ONE_PHASE", "TWO_PHASE"})
    void stringMinMaxMatch(String miniBatch) {
        ParityHarness harness = miniBatch.equals("none") ? harness() : miniBatch(miniBatch);
        assertBigParity(
                harness,
                "SELECT id % 3, MIN(s), MAX(s), MAX(s) FILTER (WHERE b), COUNT(*) FROM "
                        + BIG
                        + " GROUP BY id % 3");
    }

    /** Flink's 21-row tupleData3 of its ITCases as view "t3" (a INT, b BIGINT, c STRING). */
    private static void registerTupleData3(StreamTableEnvironment tEnv) {
        String[] texts = {
            "Hi",
            "Hello",
            "Hello world",
            "Hello world, how are you?",
            "I am fine.",
            "Luke Skywalker",
            "Comment#1",
            "Comment#2",
            "Comment#3",
            "Comment#4",
            "Comment#5",
            "Comment#6",
            "Comment#7",
            "Comment#8",
            "Comment#9",
            "Comment#10",
            "Comment#11",
            "Comment#12",
            "Comment#13",
            "Comment#14",
            "Comment#15"
        };
        long[] groups = {1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6};
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < texts.length; i++) {
            values.append(i == 0 ? "" : ", ")
                    .append("(")
                    .append(i + 1)
                    .append(", ")
                    .append(groups[i])
                    .append(", '")
                    .append(texts[i])
                    .append("')");
        }
        // Literal rows only: one Values operator, so the rows reach the aggregation in one fixed
        // order (a CAST in each row makes the planner union 21 one-row sources, whose interleaving
        // changes the mini-batches and so the changelog from run to run, stock and native alike).
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW t3 AS SELECT a, CAST(b AS BIGINT) AS b, c FROM (VALUES "
                        + values
                        + ") AS t3(a, b, c)");
    }

    /**
     * A filtered DISTINCT in two phases whose LocalGroupAggregate is fed by a Flink operator (the
     * Calc kept on Flink, or the split plan's Expand): the filter's field must reach the native
     * operator (it counted 0 for every group when the entry left it NULL).
     */
    @ParameterizedTest
    @ValueSource(strings = {"streamfusion.operators.excluded=Calc", "split"})
    void twoPhaseFilteredDistinctFedByFlinkMatches(String variant) {
        Map<String, String> session = new java.util.HashMap<>();
        session.put("table.exec.mini-batch.enabled", "true");
        // Bundles end at 3 rows only (no bundle-ending watermark within the hour), in both engines.
        session.put("table.exec.mini-batch.allow-latency", "1 h");
        session.put("table.exec.mini-batch.size", "3");
        session.put("table.optimizer.agg-phase-strategy", "TWO_PHASE");
        Map<String, String> nativeOptions = new java.util.HashMap<>();
        nativeOptions.put("streamfusion.fallback", "allow");
        if (variant.equals("split")) {
            session.put("table.optimizer.distinct-agg.split.enabled", "true");
        } else {
            nativeOptions.put("streamfusion.operators.excluded", "Calc");
        }
        ParityHarness harness = new ParityHarness(1, false, nativeOptions, session);
        String sql = "SELECT b, COUNT(DISTINCT c) FILTER (WHERE MOD(a, 3) = 1) FROM t3 GROUP BY b";
        StreamTableEnvironment stock = harness.stock();
        registerTupleData3(stock);
        ParityHarness.Result expected = ParityHarness.run(stock, sql);
        StreamTableEnvironment nat = harness.nativeEnv();
        registerTupleData3(nat);
        ParityHarness.Result actual = ParityHarness.run(nat, sql);
        assertThat(StreamFusion.planner(nat).lastReport().decisions())
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalGroupAggregate("));
        assertThat(actual.rows).containsExactlyElementsOf(expected.rows);
        assertThat(fold(actual.rows))
                .as("the final count per group")
                .isEqualTo(fold(expected.rows))
                .isEqualTo(Map.of(1L, 1L, 2L, 0L, 3L, 1L, 4L, 2L, 5L, 1L, 6L, 2L));
    }

    /**
     * The rows a changelog leaves (field 0 the key, field 1 the value): each +I/+U adds its row,
     * each -U/-D takes one away, whatever order the changelog is listed in.
     */
    private static Map<Object, Object> fold(List<Row> changelog) {
        Map<List<Object>, Integer> counts = new java.util.HashMap<>();
        for (Row row : changelog) {
            boolean adds = row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER;
            counts.merge(List.of(row.getField(0), row.getField(1)), adds ? 1 : -1, Integer::sum);
        }
        Map<Object, Object> left = new java.util.TreeMap<>();
        counts.forEach(
                (row, count) -> {
                    assertThat(count).as("rows left of %s", row).isBetween(0, 1);
                    if (count == 1) {
                        assertThat(left.put(row.get(0), row.get(1))).as("key %s", row).isNull();
                    }
                });
        return left;
    }
}
