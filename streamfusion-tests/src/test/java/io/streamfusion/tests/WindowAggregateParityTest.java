package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamfusion.planner.NativeStreamPlanner;
import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.bridge.java.internal.StreamTableEnvironmentImpl;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Window TVF aggregation (TUMBLE, HOP and CUMULATE, one and two phases) runs natively with stock
 * Flink's results: same rows and values, window_start/window_end/window_time, over {@link
 * TestData}'s edge values, with out-of-order rows some of which are late (dropped, or for HOP kept
 * in the windows that have not fired), in batches of 3 rows so that every window's accumulators go
 * through Flink state. Watermarks are punctuated (one per row, from one source subtask) so that
 * which rows are late is the same in both engines.
 */
class WindowAggregateParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final Map<String, String> SMALL_BATCHES =
            Map.of("streamfusion.batch.size", "3", "streamfusion.window.buffer-rows", "3");
    private static final Map<String, String> UTC = Map.of("table.local-time-zone", "UTC");

    /** The event view: TestData 20 times over, with an event time ("rowtime") and watermarks. */
    private static final String EV = "ev";

    private static final int COPIES = 20;
    private static final long BASE = 1_700_000_000_000L;

    /** Flink's default (AUTO): two phases, Local and Global, for event-time windows. */
    private static ParityHarness harness() {
        return new ParityHarness(1, false, SMALL_BATCHES, UTC);
    }

    private static ParityHarness onePhase() {
        return new ParityHarness(
                1,
                false,
                SMALL_BATCHES,
                Map.of(
                        "table.local-time-zone", "UTC",
                        "table.optimizer.agg-phase-strategy", "ONE_PHASE"));
    }

    private static boolean integral(String column) {
        return column.startsWith("i");
    }

    /** Row i happens at BASE + 700 i ms, except every fifth row, 9 s earlier (late). */
    private static long eventTime(Row row) {
        int i = (Integer) row.getField(0);
        return BASE + 700L * i - (i % 5 == 3 ? 9_000 : 0);
    }

    /** {@link #MERGING}'s times: 10 s per id, plus the offset in i32. */
    private static long mergingTime(Row row) {
        return BASE + 10_000L * (Integer) row.getField(0) + (Integer) row.getField(3);
    }

    /** A change's own time in {@link #MOVED}: a retraction or update 2.1 s after its row's. */
    private static long changeTime(Row row) {
        return eventTime(row) + (row.getKind() == RowKind.INSERT ? 0 : 2_100);
    }

    private static void registerEvents(StreamTableEnvironment tEnv) {
        List<Row> rows = new ArrayList<>();
        for (int copy = 0; copy < COPIES; copy++) {
            for (Row row : TestData.rows()) {
                Row shifted = Row.copy(row);
                shifted.setField(0, (Integer) row.getField(0) + TestData.rows().size() * copy);
                rows.add(shifted);
            }
        }
        StreamExecutionEnvironment env = ((StreamTableEnvironmentImpl) tEnv).execEnv();
        tEnv.createTemporaryView(
                EV,
                tEnv.fromDataStream(
                        withTimes(env, rows, WindowAggregateParityTest::eventTime, 1_000),
                        ROWTIME));
        tEnv.createTemporaryView(
                BRIDGED,
                tEnv.fromDataStream(
                        withTimes(env, rows, WindowAggregateParityTest::bridgingTime, 1_000),
                        ROWTIME));
        // The same events as a changelog (a CDC source): every fourth row deleted right after
        // it came, every fourth updated (-U, then +U with another i64 and s), at its own time.
        List<Row> changes = new ArrayList<>();
        for (Row row : rows) {
            changes.add(row);
            int id = (Integer) row.getField(0);
            if (id % 4 == 1) {
                Row deleted = Row.copy(row);
                deleted.setKind(RowKind.DELETE);
                changes.add(deleted);
            } else if (id % 4 == 2) {
                Row before = Row.copy(row);
                before.setKind(RowKind.UPDATE_BEFORE);
                Row after = Row.copy(row);
                after.setKind(RowKind.UPDATE_AFTER);
                after.setField(4, id * 1_000L);
                after.setField(9, "updated " + id);
                changes.add(before);
                changes.add(after);
            }
        }
        changelogView(tEnv, CHANGES, changes, WindowAggregateParityTest::eventTime, 1_000);
        // The same changelog with each change at its own time, as a CDC source whose rowtime is
        // the change's (a Kafka record's timestamp): -U/+U/-D 2.1 s after the row, in a later
        // slice than the value they retract (a watermark 3 s behind keeps them in time).
        changelogView(tEnv, MOVED, changes, WindowAggregateParityTest::changeTime, 3_000);
        // Per id, 10 s apart: session O gets 5 and 7, a -D of 5 2 s later makes its own session
        // T (5 at -1, mapSize 0), then a row at 1.2 s bridges them. Flink merges T into O or O
        // into T by its HashSet's order, and MIN differs: into T it keeps O's 5 although 5's
        // counts cancel (T's count was not positive, so no rescan); into O, 5 leaves and 7 is
        // found.
        List<Row> merging = new ArrayList<>();
        Row template = TestData.rows().get(0);
        for (int id = 0; id < 40; id++) {
            long[][] session = {{0, 0, 5}, {0, 500, 7}, {1, 2_000, 5}, {0, 1_200, 9}};
            for (long[] change : session) {
                Row row = Row.copy(template);
                row.setKind(change[0] == 0 ? RowKind.INSERT : RowKind.DELETE);
                row.setField(0, id);
                row.setField(3, (int) change[1]);
                row.setField(4, change[2]);
                merging.add(row);
            }
        }
        changelogView(tEnv, MERGING, merging, WindowAggregateParityTest::mergingTime, 1_000);
        // HOP windows per b, whose window_time is a rowtime for windows over them.
        tEnv.createTemporaryView(
                HOPPED,
                tEnv.sqlQuery(
                        "SELECT b, window_time AS wt, COUNT(*) AS cnt, MAX(i64) AS top FROM "
                                + hop("2", "4")
                                + " GROUP BY b, "
                                + WINDOW));
        tEnv.createTemporaryView(
                HOP_COUNTS,
                tEnv.sqlQuery(
                        "SELECT b, window_start, window_end, COUNT(*) AS cnt, MAX(i32) AS top FROM "
                                + hop("2", "6")
                                + " GROUP BY b, window_start, window_end"));
    }

    /** A changelog (a CDC source) of {@code rows} as view {@code name}, as {@link #withTimes}. */
    private static void changelogView(
            StreamTableEnvironment tEnv,
            String name,
            List<Row> rows,
            SerializableFunction<Row, Long> time,
            long watermarkDelay) {
        StreamExecutionEnvironment env = ((StreamTableEnvironmentImpl) tEnv).execEnv();
        tEnv.createTemporaryView(
                name,
                tEnv.fromChangelogStream(
                        withTimes(env, rows, time, watermarkDelay), ROWTIME, ChangelogMode.all()));
    }

    /**
     * Rows at {@code time}, with a watermark {@code watermarkDelay} ms behind the latest after
     * every row.
     */
    private static DataStream<Row> withTimes(
            StreamExecutionEnvironment env,
            List<Row> rows,
            SerializableFunction<Row, Long> time,
            long watermarkDelay) {
        return env.fromData(rows, TestData.typeInfo())
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Row>forGenerator(ctx -> new Punctuated(watermarkDelay))
                                .withTimestampAssigner((row, previous) -> time.apply(row)))
                .setParallelism(1);
    }

    /** A function the watermark strategy can ship with the job. */
    private interface SerializableFunction<T, R> extends java.io.Serializable {
        R apply(T value);
    }

    /** The stream's event time as the column "rowtime", with the stream's watermarks. */
    private static final Schema ROWTIME =
            Schema.newBuilder()
                    .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
                    .watermark("rowtime", "SOURCE_WATERMARK()")
                    .build();

    private static final String HOPPED = "hopped";

    /** {@link #EV}'s rows at {@link #bridgingTime}: sessions that merge. */
    private static final String BRIDGED = "bridged";

    /** Sessions with retractions that merge (see registerEvents). */
    private static final String MERGING = "merging";

    /** {@link #CHANGES} with its retractions 2.1 s after the rows they retract. */
    private static final String MOVED = "moved";

    /** {@link #EV} as a changelog: rows deleted and updated after they came. */
    private static final String CHANGES = "changes";

    /** HOP window counts per b, keeping their windows (window_start, window_end) as q5 does. */
    private static final String HOP_COUNTS = "hop_counts";

    /**
     * Rows in threes, 4 s apart: at 0 and 1.5 s (two 1 s sessions), then at 0.9 s, within the
     * watermark's 1 s delay, bridging them: the two sessions (each in state) merge.
     */
    private static long bridgingTime(Row row) {
        int i = (Integer) row.getField(0);
        return BASE + 4_000L * (i / 3) + new long[] {0, 1_500, 900}[i % 3];
    }

    /** A watermark {@code delay} ms behind the highest event time so far, after every row. */
    private static final class Punctuated implements WatermarkGenerator<Row> {
        private final long delay;
        private long max;

        Punctuated(long delay) {
            this.delay = delay;
            this.max = Long.MIN_VALUE + delay;
        }

        @Override
        public void onEvent(Row event, long eventTimestamp, WatermarkOutput output) {
            max = Math.max(max, eventTimestamp);
            output.emitWatermark(new Watermark(max - delay));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    private static List<SupportReport.Decision> lastDecisions = List.of();
    private static List<List<String>> lastIslands = List.of();

    private static ParityHarness.Result run(StreamTableEnvironment tEnv, String sql) {
        registerEvents(tEnv);
        return ParityHarness.run(tEnv, sql);
    }

    /**
     * Runs {@code sql} on stock Flink and natively and compares. A window TVF aggregation over
     * slices (TUMBLE, HOP, CUMULATE) keeps its windows in native state by default (the hashmap
     * backend, streamfusion.window.state AUTO); it runs a second time over Flink keyed state
     * (streamfusion.window.state FLINK), which must match too.
     */
    private static ParityHarness.Result assertWindowParity(ParityHarness harness, String sql) {
        ParityHarness.Result stock = run(harness.stock(), sql);
        long stateRows = NativeMetrics.nativeStateRows();
        ParityHarness.Result actual = assertNativeRun(harness, sql, stock);
        boolean sliced =
                lastDecisions.stream()
                        .anyMatch(
                                d ->
                                        d.isNative
                                                && (d.operator.startsWith("WindowAggregate(")
                                                        || d.operator.startsWith(
                                                                "GlobalWindowAggregate("))
                                                && !d.operator.contains("SESSION"));
        // Windows with DISTINCT maps, or MIN/MAX over the changelog (maps too), keep Flink state
        // (EXPLAIN's note says where windows live).
        boolean nativeState =
                lastDecisions.stream()
                        .anyMatch(
                                d ->
                                        d.isNative
                                                && d.note != null
                                                && d.note.startsWith("window state: native"));
        assertThat(NativeMetrics.nativeStateRows() > stateRows)
                .as("native window state for %s", sql)
                .isEqualTo(nativeState);
        boolean maps =
                sql.contains("DISTINCT")
                        || ((sql.contains(CHANGES) || sql.contains(MOVED))
                                && (sql.contains("MIN(") || sql.contains("MAX(")));
        assertThat(nativeState).as("native state only where sliced").isEqualTo(sliced && !maps);
        if (sql.matches("(?s).*TABLE\\((TUMBLE|HOP|CUMULATE)\\(TABLE " + EV + ",.*")) {
            assertThat(sliced).as("a sliced window aggregation for %s", sql).isTrue();
        }
        if (sliced) {
            stateRows = NativeMetrics.nativeStateRows();
            assertNativeRun(
                    harness.withNativeOption("streamfusion.window.state", "FLINK"), sql, stock);
            assertThat(NativeMetrics.nativeStateRows())
                    .as("no native window state with streamfusion.window.state=FLINK")
                    .isEqualTo(stateRows);
        }
        return actual;
    }

    private static ParityHarness.Result assertNativeRun(
            ParityHarness harness, String sql, ParityHarness.Result stock) {
        long before = NativeMetrics.recordsIn();
        StreamTableEnvironment nat = harness.nativeEnv();
        ParityHarness.Result actual = run(nat, sql);
        assertThat(NativeMetrics.recordsIn())
                .as("native records for %s", sql)
                .isGreaterThan(before);
        lastDecisions = StreamFusion.planner(nat).lastReport().decisions();
        lastIslands = StreamFusion.planner(nat).lastReport().islands();
        assertThat(lastDecisions)
                .as("a native window aggregation for %s", sql)
                .anyMatch(d -> d.isNative && d.operator.contains("WindowAggregate("));
        assertThat(actual.schema).isEqualTo(stock.schema);
        assertThat(actual.rows).as(sql).containsExactlyElementsOf(stock.rows);
        assertThat(actual.rows).as("some windows for %s", sql).isNotEmpty();
        return actual;
    }

    private static String tumble(String size) {
        return "TABLE(TUMBLE(TABLE "
                + EV
                + ", DESCRIPTOR(rowtime), INTERVAL '"
                + size
                + "' SECOND))";
    }

    private static String hop(String slide, String size) {
        return "TABLE(HOP(TABLE "
                + EV
                + ", DESCRIPTOR(rowtime), INTERVAL '"
                + slide
                + "' SECOND, INTERVAL '"
                + size
                + "' SECOND))";
    }

    private static final String WINDOW = "window_start, window_end, window_time";

    /** A TUMBLE (2 s), HOP (2 s / 6 s) or CUMULATE (2 s / 6 s) TVF over {@link #CHANGES}. */
    private static String changesWindow(String window) {
        return changesWindow(window, CHANGES);
    }

    /** As above over {@code table}. */
    private static String changesWindow(String window, String table) {
        return window.equals("TUMBLE")
                ? "TUMBLE(TABLE " + table + ", DESCRIPTOR(rowtime), INTERVAL '2' SECOND)"
                : window.equals("HOP")
                        ? "HOP(TABLE "
                                + table
                                + ", DESCRIPTOR(rowtime), INTERVAL '2' SECOND,"
                                + " INTERVAL '6' SECOND)"
                        : "CUMULATE(TABLE "
                                + table
                                + ", DESCRIPTOR(rowtime), INTERVAL '2'"
                                + " SECOND, INTERVAL '6' SECOND)";
    }

    /**
     * Window aggregations over an updating input (a changelog source): -U/-D rows retract from
     * their slice (AggCombiner), the functions are Flink's retracting ones, and a window whose
     * COUNT(*) is back at 0 is empty and not emitted. TUMBLE, HOP and CUMULATE, one and two phases.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TUMBLE", "HOP", "CUMULATE"})
    void windowsOverAnUpdatingInputMatch(String window) {
        String tvf = changesWindow(window);
        String sql =
                "SELECT id % 2, "
                        + WINDOW
                        + ", COUNT(*), COUNT(s), SUM(i64), AVG(i32), SUM(i16)"
                        + " FILTER (WHERE b) FROM TABLE("
                        + tvf
                        + ") GROUP BY id % 2, "
                        + WINDOW;
        assertWindowParity(onePhase(), sql);
        assertThat(lastDecisions)
                .as("retracting functions")
                .anyMatch(d -> d.isNative && d.operator.contains("SUM_RETRACT("));
        assertTwoPhase(assertWindowParity(harness(), sql));
    }

    /**
     * DISTINCT aggregates over an updating input: every window's maps count per value (a long[] for
     * several calls on one argument), a -U/-D counts -1, a call retracts a value whose count falls
     * to 0 (an updated row's old string, a deleted row's only value) and the map loses it; HOP
     * windows and CUMULATE steps merge counts that may be negative. One and two phases.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TUMBLE", "HOP", "CUMULATE"})
    void distinctAggregatesOverAnUpdatingInputMatch(String window) {
        String tvf = changesWindow(window);
        String sql =
                "SELECT id % 2, "
                        + WINDOW
                        + ", COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE"
                        + " b), COUNT(DISTINCT i8 % 3), SUM(DISTINCT i32), COUNT(*), SUM(i64) FROM"
                        + " TABLE("
                        + tvf
                        + ") GROUP BY id % 2, "
                        + WINDOW;
        assertWindowParity(onePhase(), sql);
        assertTwoPhase(assertWindowParity(harness(), sql));
        // Few rows per window and one group: values come and go within a window.
        assertWindowParity(
                harness(),
                "SELECT "
                        + WINDOW
                        + ", COUNT(DISTINCT i8 % 2), COUNT(DISTINCT i8 % 2) FILTER"
                        + " (WHERE i32 > 0), COUNT(DISTINCT s) FROM TABLE("
                        + tvf
                        + ") GROUP BY "
                        + WINDOW);
    }

    /**
     * MIN/MAX over an updating input (Min/MaxWithRetractAggFunction): a map value -> count per
     * slice in Flink state; a retraction of a window's extreme scans the whole map (an updated
     * row's old i64 is often its key's maximum), HOP windows and CUMULATE steps merge the slices'
     * maps. Numbers, strings and timestamps, in one phase (two are refused: see {@link
     * #unsupportedWindowsAreRefusedWithAReason}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"TUMBLE", "HOP", "CUMULATE"})
    void minMaxOverAnUpdatingInputMatch(String window) {
        String tvf = changesWindow(window);
        String sql =
                "SELECT id % 2, "
                        + WINDOW
                        + ", MAX(i64), MIN(i64), MIN(s), MAX(s), MAX(ts),"
                        + " MIN(i32) FILTER (WHERE b), COUNT(*) FROM TABLE("
                        + tvf
                        + ") GROUP BY"
                        + " id % 2, "
                        + WINDOW;
        long loads = NativeMetrics.wholeMapLoads();
        assertWindowParity(onePhase(), sql);
        assertThat(lastDecisions)
                .as("retracting MIN/MAX")
                .anyMatch(d -> d.isNative && d.operator.contains("MAX_RETRACT("));
        assertThat(NativeMetrics.wholeMapLoads()).as("rescans of whole maps").isGreaterThan(loads);
        // One group: the extremes of few rows come and go.
        assertWindowParity(
                onePhase(),
                "SELECT "
                        + WINDOW
                        + ", MAX(i64), MIN(i8), MAX(d38) FROM TABLE("
                        + tvf
                        + ") GROUP BY "
                        + WINDOW);
        // Retractions in later slices: negative counts there; a HOP window or a CUMULATE step
        // merges them into counts of other slices (an extreme may fall to 0 and be rescanned).
        String moved =
                "SELECT id % 2, "
                        + WINDOW
                        + ", MAX(i64), MIN(i64), MAX(s), MIN(i8), COUNT(*) FROM"
                        + " TABLE("
                        + changesWindow(window, MOVED)
                        + ") GROUP BY id % 2, "
                        + WINDOW;
        assertWindowParity(onePhase(), moved);
    }

    /**
     * Every numeric function per type in one phase; in two phases (Flink's default) for the
     * integers, whose partial sums merge exactly however they are cut.
     */
    @ParameterizedTest
    @ValueSource(strings = {"i8", "i16", "i32", "i64", "f32", "f64", "d10", "d38"})
    void numericFunctionsMatchInTumblingWindows(String c) {
        String sql =
                "SELECT id % 3, "
                        + WINDOW
                        + ", COUNT(*), COUNT("
                        + c
                        + "), SUM("
                        + c
                        + "), MIN("
                        + c
                        + "), MAX("
                        + c
                        + "), AVG("
                        + c
                        + ") FROM "
                        + tumble("5")
                        + " GROUP BY id % 3, "
                        + WINDOW;
        assertWindowParity(onePhase(), sql);
        if (integral(c)) {
            assertTwoPhase(assertWindowParity(harness(), sql));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"i64", "f64", "d38", "s", "ts", "dt", "ts9"})
    void functionsMatchInHoppingWindows(String c) {
        String minMax =
                "SELECT b, " + WINDOW + ", COUNT(" + c + "), MIN(" + c + "), MAX(" + c + ")";
        String from = " FROM " + hop("2", "6") + " GROUP BY b, " + WINDOW;
        boolean numeric = integral(c) || c.startsWith("f") || c.startsWith("d3");
        assertWindowParity(onePhase(), minMax + (numeric ? ", AVG(" + c + ")" : "") + from);
        assertTwoPhase(
                assertWindowParity(
                        harness(), minMax + (integral(c) ? ", AVG(" + c + ")" : "") + from));
    }

    /**
     * The Calc feeding the local phase (a filter and computed columns) runs in the local phase's
     * island: one native pipeline, rows converted once, the Calc's Arrow output combined directly.
     */
    @Test
    void aCalcAndTheLocalPhaseRunAsOneIsland() {
        String sql =
                "SELECT id % 3, "
                        + WINDOW
                        + ", COUNT(*), SUM(i64 * 2), MAX(i32 + 1), MIN(CHAR_LENGTH(s)) FROM "
                        + tumble("5")
                        + " WHERE i32 IS NOT NULL AND id % 5 <> 0 GROUP BY id % 3, "
                        + WINDOW;
        assertTwoPhase(assertWindowParity(harness(), sql));
        // The global phase and the Calc after it are the other island.
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
                                                                        "LocalWindowAggregate(")))
                .anySatisfy(
                        island ->
                                assertThat(island)
                                        .satisfiesExactly(
                                                head ->
                                                        assertThat(head)
                                                                .startsWith(
                                                                        "GlobalWindowAggregate("),
                                                next -> assertThat(next).startsWith("Calc(")));
        // streamfusion.islands=false: the same operators native, each an island of its own.
        ParityHarness.Result stock = run(harness().stock(), sql);
        assertNativeRun(harness().withNativeOption("streamfusion.islands", "false"), sql, stock);
        assertTwoPhase(null);
        assertThat(lastDecisions).allMatch(d -> d.isNative);
        assertThat(lastIslands).isEmpty();
    }

    /**
     * streamfusion.window.state=STORE: the windows' accumulators live in a native LevelDB store on
     * disk (keys and timers in memory). TUMBLE, HOP and CUMULATE over the events (late rows among
     * them), in two phases and in one, match stock, and EXPLAIN's note says where the windows live.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TWO_PHASE", "ONE_PHASE"})
    void windowsWhoseAccumulatorsSpillToTheNativeStoreMatch(String phase) {
        ParityHarness harness =
                (phase.equals("ONE_PHASE") ? onePhase() : harness())
                        .withNativeOption("streamfusion.window.state", "STORE");
        for (String windows :
                List.of(
                        tumble("5"),
                        hop("2", "6"),
                        "TABLE(CUMULATE(TABLE "
                                + EV
                                + ", DESCRIPTOR(rowtime), INTERVAL '2' SECOND, INTERVAL '6'"
                                + " SECOND))")) {
            String sql =
                    "SELECT b, i8 % 3, "
                            + WINDOW
                            + ", COUNT(*), SUM(i64), MAX(i32), AVG(i16), MIN(s) FROM "
                            + windows
                            + " GROUP BY b, i8 % 3, "
                            + WINDOW;
            ParityHarness.Result stock = run(harness.stock(), sql);
            long stateRows = NativeMetrics.nativeStateRows();
            assertNativeRun(harness, sql, stock);
            assertThat(NativeMetrics.nativeStateRows())
                    .as("native window state for %s", sql)
                    .isGreaterThan(stateRows);
            assertThat(lastDecisions)
                    .as("the windows in the native store for %s", sql)
                    .anyMatch(
                            d ->
                                    d.isNative
                                            && d.note != null
                                            && d.note.contains(
                                                    "its slices and timers in a native store on"
                                                            + " disk"));
        }
    }

    /**
     * streamfusion.window.state=STORE for the windows over Flink's states and timers: legacy TUMBLE
     * and HOP group windows and legacy and TVF sessions keep their states (DISTINCT maps, MIN/MAX
     * maps over an updating input, the sessions' window mapping) and their event-time timers in the
     * native store, which fires the timers at the watermark; late rows among the events are dropped
     * as Flink drops them, and sessions merge as Flink merges them. Results match stock, and
     * EXPLAIN's note says where the windows live.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TUMBLE", "HOP_DISTINCT", "SESSION_DISTINCT", "SESSION_TVF_MINMAX"})
    void groupAndSessionWindowsInTheNativeStoreMatch(String kind) {
        String hop = "rowtime, INTERVAL '2' SECOND, INTERVAL '6' SECOND";
        String sql =
                switch (kind) {
                    case "TUMBLE" ->
                            "SELECT id % 4, COUNT(*), SUM(i64), MIN(s), MAX(ts),"
                                    + " TUMBLE_START(rowtime, INTERVAL '3' SECOND) FROM "
                                    + EV
                                    + " GROUP BY id % 4, TUMBLE(rowtime, INTERVAL '3' SECOND)";
                    case "HOP_DISTINCT" ->
                            "SELECT b, COUNT(*), COUNT(DISTINCT i8), SUM(i64),"
                                    + " HOP_START("
                                    + hop
                                    + ") FROM "
                                    + EV
                                    + " GROUP BY b, HOP("
                                    + hop
                                    + ")";
                    case "SESSION_DISTINCT" ->
                            session(
                                    "id % 3",
                                    "COUNT(*), COUNT(DISTINCT s), SUM(i64), MAX(d38)", "2");
                    default ->
                            "SELECT id, "
                                    + WINDOW
                                    + ", MIN(i64), MAX(i64), COUNT(*) FROM TABLE(SESSION(TABLE "
                                    + MERGING
                                    + " PARTITION BY (id), DESCRIPTOR(rowtime), INTERVAL '1'"
                                    + " SECOND)) GROUP BY id, "
                                    + WINDOW;
                };
        ParityHarness harness = harness().withNativeOption("streamfusion.window.state", "STORE");
        ParityHarness.Result stock = run(harness.stock(), sql);
        long stateRows = NativeMetrics.nativeStateRows();
        List<String> storesBefore = NativeMetrics.storeDirectories();
        assertNativeRun(harness, sql, stock);
        assertThat(NativeMetrics.nativeStateRows())
                .as("windows in the native store for %s", sql)
                .isGreaterThan(stateRows);
        // The finished job's stores (one was opened) are gone.
        StateJobs.assertStoreDirectoriesDeleted(storesBefore);
        assertThat(lastDecisions)
                .as("EXPLAIN's note for %s", sql)
                .anyMatch(
                        d ->
                                d.isNative
                                        && d.note != null
                                        && d.note.startsWith(
                                                "window state: Flink's states and timers in a"
                                                        + " native store on disk"));
    }

    /**
     * A window aggregation and the Calc it alone feeds (a filter on the aggregates and computed
     * columns) run as one island, with the windows kept natively and in Flink state alike: the
     * fired windows go through the Calc in Arrow and leave the native pipeline once.
     */
    @Test
    void aWindowAggregationAndTheCalcItFeedsRunAsOneIsland() {
        String sql =
                "SELECT b, window_end, cnt * 2, total FROM (SELECT b, "
                        + WINDOW
                        + ", COUNT(*) AS cnt, SUM(i64) AS total FROM "
                        + tumble("5")
                        + " GROUP BY b, "
                        + WINDOW
                        + ") WHERE cnt > 1";
        ParityHarness.Result stock = run(harness().stock(), sql);
        for (String state : List.of("AUTO", "NATIVE", "FLINK")) {
            assertNativeRun(
                    harness().withNativeOption("streamfusion.window.state", state), sql, stock);
            assertThat(lastIslands)
                    .as("islands with streamfusion.window.state = %s", state)
                    .anySatisfy(
                            island ->
                                    assertThat(island)
                                            .satisfiesExactly(
                                                    head ->
                                                            assertThat(head)
                                                                    .containsPattern(
                                                                            "^(Global)?WindowAggregate\\("),
                                                    next -> assertThat(next).startsWith("Calc(")));
        }
    }

    /**
     * A legacy session or hopping group window, and a session window TVF, each with the Calc it
     * alone feeds (computed columns over the aggregates and the window's bounds, a filter on a
     * count): one island on the state port, the fired windows going through the Calc in Arrow.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT b, c * 2, e - INTERVAL '1' SECOND FROM (SELECT b, COUNT(*) AS c,"
                        + " SESSION_END(rowtime, INTERVAL '2' SECOND) AS e FROM ev"
                        + " GROUP BY b, SESSION(rowtime, INTERVAL '2' SECOND)) WHERE c > 1",
                "SELECT id % 3 AS k, COUNT(*) * 10, UPPER(MIN(s)),"
                        + " HOP_START(rowtime, INTERVAL '1' SECOND, INTERVAL '3' SECOND)"
                        + " FROM ev GROUP BY id % 3, HOP(rowtime, INTERVAL '1' SECOND,"
                        + " INTERVAL '3' SECOND) HAVING COUNT(*) > 1",
                "SELECT b, window_end, cnt + 1 FROM (SELECT b, window_end, COUNT(*) AS cnt"
                        + " FROM TABLE(SESSION(TABLE ev PARTITION BY (b), DESCRIPTOR(rowtime),"
                        + " INTERVAL '2' SECOND)) GROUP BY b, window_start, window_end)"
                        + " WHERE cnt > 1"
            })
    void aSessionOrGroupWindowAndTheCalcItFeedsRunAsOneIsland(String sql) {
        ParityHarness.Result stock = run(harness().stock(), sql);
        assertNativeRun(harness(), sql, stock);
        assertThat(lastDecisions).allMatch(d -> d.isNative);
        assertThat(lastIslands)
                .anySatisfy(
                        island ->
                                assertThat(island)
                                        .satisfiesExactly(
                                                head ->
                                                        assertThat(head)
                                                                .containsPattern(
                                                                        "^(GroupWindowAggregate"
                                                                            + "|WindowAggregate)\\("),
                                                next -> assertThat(next).startsWith("Calc(")));
    }

    /** The last native run planned the Local/Global pair, both native. */
    private static void assertTwoPhase(ParityHarness.Result ignored) {
        assertThat(lastDecisions)
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalWindowAggregate("))
                .anyMatch(d -> d.isNative && d.operator.startsWith("GlobalWindowAggregate("));
    }

    /**
     * CUMULATE: each window of a cycle merges its step into the cycle's first slice, late rows go
     * into that first slice, and empty steps are not emitted.
     */
    @ParameterizedTest
    @ValueSource(strings = {"i64", "f64", "d38", "s"})
    void functionsMatchInCumulativeWindows(String c) {
        String cumulate =
                "TABLE(CUMULATE(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '2' SECOND,"
                        + " INTERVAL '8' SECOND))";
        String minMax =
                "SELECT b, " + WINDOW + ", COUNT(" + c + "), MIN(" + c + "), MAX(" + c + ")";
        String from = " FROM " + cumulate + " GROUP BY b, " + WINDOW;
        boolean numeric = !c.equals("s");
        assertWindowParity(
                onePhase(), minMax + (numeric ? ", SUM(" + c + "), AVG(" + c + ")" : "") + from);
        assertTwoPhase(
                assertWindowParity(
                        harness(), minMax + (integral(c) ? ", SUM(" + c + ")" : "") + from));
    }

    /** Keys of every kind: strings, non-compact DECIMAL and TIMESTAMP, ROW, BYTES. */
    @ParameterizedTest
    @ValueSource(strings = {"s", "d38", "ts9", "r", "bin", "b, dt, ltz"})
    void keysOfEveryTypeMatch(String keys) {
        assertWindowParity(
                harness(),
                "SELECT "
                        + keys
                        + ", window_start, window_end, COUNT(*), SUM(i64), MAX(f64) FROM "
                        + tumble("10")
                        + " GROUP BY "
                        + keys
                        + ", window_start, window_end");
    }

    @Test
    void globalWindowsAndFiltersMatch() {
        String sql =
                "SELECT window_end, COUNT(*), SUM(i32) FILTER (WHERE b),"
                        + " MAX(s) FILTER (WHERE i8 > 0),"
                        + " MIN(d38) FILTER (WHERE f64 < 1) FROM "
                        + hop("3", "9")
                        + " GROUP BY window_start, window_end";
        assertWindowParity(onePhase(), sql);
        assertTwoPhase(assertWindowParity(harness(), sql));
        assertWindowParity(
                onePhase(),
                "SELECT window_end, AVG(f32) FILTER (WHERE b IS NULL), SUM(d10) FILTER (WHERE b)"
                        + " FROM "
                        + hop("3", "9")
                        + " GROUP BY window_start, window_end");
    }

    /** An offset that is a multiple of the slice (HOP: the slide) keeps Flink's flush points. */
    @Test
    void windowOffsetsMatch() {
        String sql =
                "SELECT i8, window_start, window_end, COUNT(*), MIN(i32) FROM TABLE(HOP(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '2' SECOND, INTERVAL '6' SECOND,"
                        + " INTERVAL '2' SECOND)) GROUP BY i8, window_start, window_end";
        assertWindowParity(onePhase(), sql);
        assertTwoPhase(assertWindowParity(harness(), sql));
    }

    /**
     * Late rows are dropped as Flink drops them: fewer rows are counted than arrived, in both
     * engines alike (a HOP window keeps a late row in windows that have not fired).
     */
    @Test
    void lateRowsAreDroppedAsFlinkDropsThem() {
        int total = TestData.rows().size() * COPIES;
        for (String window : new String[] {tumble("5"), hop("2", "6")}) {
            ParityHarness.Result result =
                    assertWindowParity(
                            harness(),
                            "SELECT window_start, COUNT(*) FROM "
                                    + window
                                    + " GROUP BY window_start, window_end");
            long counted = 0;
            for (Row row : result.rows) {
                counted += (Long) row.getField(1);
            }
            long perRow = window.contains("HOP") ? 3 : 1;
            assertThat(counted).as("rows counted in %s", window).isLessThan(total * perRow);
        }
    }

    /** Windows over windows: the outer TUMBLE runs on the inner HOP windows' window_time. */
    @Test
    void cascadedWindowsMatch() {
        String sql =
                "SELECT window_start, window_end, SUM(cnt), MAX(top) FROM TABLE(TUMBLE(TABLE "
                        + HOPPED
                        + ", DESCRIPTOR(wt), INTERVAL '10' SECOND)) GROUP BY window_start,"
                        + " window_end";
        assertWindowParity(onePhase(), sql);
        assertTwoPhase(assertWindowParity(harness(), sql));
    }

    /**
     * An aggregation per window over windowed rows (Nexmark q5's hot items): Flink keeps each row's
     * window (WindowAttachedWindowingStrategy) instead of assigning one.
     */
    @Test
    void aggregationsOverWindowedRowsMatch() {
        String sql =
                "SELECT window_start, window_end, MAX(cnt), SUM(cnt), MIN(top) FROM "
                        + HOP_COUNTS
                        + " GROUP BY window_start, window_end";
        assertWindowParity(onePhase(), sql);
        assertTwoPhase(assertWindowParity(harness(), sql));
        // With the Calc between the two aggregations on Flink, the local phase over windowed rows
        // is chained to it and reads its rows (not BinaryRowData) field by field: the window end
        // must be among the fields the entry transpose writes.
        ParityHarness flinkCalc =
                harness()
                        .withNativeOption("streamfusion.operators.excluded", "Calc")
                        .withNativeOption("streamfusion.fallback", "allow");
        assertTwoPhase(assertWindowParity(flinkCalc, sql));
        assertThat(lastDecisions)
                .anyMatch(d -> !d.isNative && d.operator.startsWith("Calc("))
                .anyMatch(d -> d.isNative && d.operator.startsWith("LocalWindowAggregate("));
    }

    /**
     * Processing-time windows depend on the wall clock, so the rows cannot be compared; every row
     * is counted once per key (a bounded input fires its windows at the end).
     */
    @ParameterizedTest
    @ValueSource(strings = {"TVF", "TUMBLE", "HOP", "SESSION", "TVF_SESSION"})
    void processingTimeWindowsCountEveryRow(String kind) {
        // The window TVFs TUMBLE and SESSION, or the legacy GROUP BY TUMBLE / HOP (each row in two
        // windows) / SESSION (sessions of a key merge while its rows come less than 1 s apart).
        String sql =
                kind.equals("TVF")
                        ? "SELECT g, window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE src,"
                                + " DESCRIPTOR(pt), INTERVAL '1' SECOND)) WHERE g >= 0 GROUP BY g,"
                                + " window_start, window_end"
                        : kind.equals("TVF_SESSION")
                                ? "SELECT g, window_start, COUNT(*) AS c FROM TABLE(SESSION(TABLE"
                                        + " src PARTITION BY g, DESCRIPTOR(pt), INTERVAL '1'"
                                        + " SECOND)) WHERE g >= 0 GROUP BY g, window_start,"
                                        + " window_end"
                                : "SELECT g, COUNT(*) AS c FROM src WHERE g >= 0 GROUP BY g, "
                                        + kind
                                        + "(pt, INTERVAL '1' SECOND"
                                        + (kind.equals("HOP") ? ", INTERVAL '2' SECOND)" : ")");
        // PROCTIME() itself stays on Flink (non-deterministic); the window aggregation is native.
        Map<String, String> options = new HashMap<>();
        options.put("streamfusion.batch.size", "512");
        options.put("streamfusion.fallback", "allow");
        ParityHarness harness = new ParityHarness(2, false, options, UTC);
        List<Map<Object, Long>> counts =
                countsPerKey(harness, sql, WindowAggregateParityTest::rowThenLinger, PROCTIME_ROWS);
        // Per-window counts depend on the wall clock; the rows per key do not. A window still open
        // when a bounded input ends is dropped by Flink (its timer never fires): the last row
        // lingers so that every counted row's window has fired before the input ends.
        Map<Object, Long> expected = new HashMap<>();
        for (int g = 0; g < 5; g++) {
            expected.put(g, PROCTIME_ROWS / 5 * (kind.equals("HOP") ? 2 : 1));
        }
        assertThat(counts.get(0)).isEqualTo(expected);
        assertThat(counts.get(1)).isEqualTo(expected);
        String operator = kind.startsWith("TVF") ? "WindowAggregate(" : "GroupWindowAggregate(";
        assertThat(lastDecisions).anyMatch(d -> d.isNative && d.operator.startsWith(operator));
    }

    /**
     * Rows still in the operator's batch when a processing-time window's timer fires reach state
     * first (they arrived before it) and the window fires once: with a long batch delay and rows
     * trickling in over several windows, every HOP window's timer finds its last pane's rows
     * waiting (before the fix they registered the firing timer again and the window fired twice,
     * the second time over the pane it leaves to the next window).
     */
    @ParameterizedTest
    @ValueSource(strings = {"HOP", "TVF_HOP"})
    void processingTimeWindowsFireOnceWithRowsWaiting(String kind) {
        String sql =
                kind.equals("HOP")
                        ? "SELECT g, COUNT(*) AS c FROM src WHERE g >= 0 GROUP BY g,"
                                + " HOP(pt, INTERVAL '1' SECOND, INTERVAL '2' SECOND)"
                        : "SELECT g, window_start, COUNT(*) AS c FROM TABLE(HOP(TABLE src,"
                                + " DESCRIPTOR(pt), INTERVAL '1' SECOND, INTERVAL '2' SECOND))"
                                + " WHERE g >= 0 GROUP BY g, window_start, window_end";
        Map<String, String> options = new HashMap<>();
        options.put("streamfusion.batch.max-delay", "10 s");
        options.put("streamfusion.fallback", "allow");
        ParityHarness harness = new ParityHarness(1, false, options, UTC);
        List<Map<Object, Long>> counts =
                countsPerKey(
                        harness, sql, WindowAggregateParityTest::trickleThenLinger, TRICKLE_ROWS);
        Map<Object, Long> expected = new HashMap<>();
        for (int g = 0; g < 5; g++) {
            expected.put(g, TRICKLE_ROWS / 5 * 2);
        }
        assertThat(counts.get(0)).isEqualTo(expected);
        assertThat(counts.get(1)).isEqualTo(expected);
    }

    /**
     * Runs {@code sql} on each engine over view {@code src}: ids from {@code generator} (rows
     * 1..{@code rows}, then one more) with g = id % 5 (-1 for the last) and pt = PROCTIME();
     * returns, per engine, the last column summed per g, and keeps the native plan's decisions.
     */
    private static List<Map<Object, Long>> countsPerKey(
            ParityHarness harness, String sql, GeneratorFunction<Long, Long> generator, long rows) {
        List<Map<Object, Long>> counts = new ArrayList<>();
        harness.forEachEngine(
                tEnv -> {
                    StreamExecutionEnvironment env = ((StreamTableEnvironmentImpl) tEnv).execEnv();
                    DataGeneratorSource<Long> source =
                            new DataGeneratorSource<>(generator, rows + 1, Types.LONG);
                    tEnv.createTemporaryView(
                            "src",
                            tEnv.fromDataStream(
                                    env.fromSource(
                                            source, WatermarkStrategy.noWatermarks(), "rows"),
                                    Schema.newBuilder()
                                            .column("f0", DataTypes.BIGINT().notNull())
                                            .columnByExpression(
                                                    "g", "IF(f0 > " + rows + ", -1, f0 % 5)")
                                            .columnByExpression("pt", "PROCTIME()")
                                            .build()));
                    Map<Object, Long> perKey = new HashMap<>();
                    for (Row row : ParityHarness.run(tEnv, sql).rows) {
                        Long count = (Long) row.getField(row.getArity() - 1);
                        perKey.merge(row.getField(0), count, Long::sum);
                    }
                    counts.add(perKey);
                    if (((StreamTableEnvironmentImpl) tEnv).getPlanner()
                            instanceof NativeStreamPlanner) {
                        lastDecisions = StreamFusion.planner(tEnv).lastReport().decisions();
                    }
                });
        return counts;
    }

    private static final long TRICKLE_ROWS = 1_500;

    /**
     * How long the last row waits: longer than a HOP window (2 s) and its timer, with 4 s to spare
     * for a busy machine (the wait runs from when the source emits the last counted row, not from
     * when the window operator receives it).
     */
    private static final long LINGER_MS = 6_000;

    /** Ids 1..TRICKLE_ROWS 2 ms apart (3 s), then one more after {@link #LINGER_MS}. */
    private static Long trickleThenLinger(Long index) throws InterruptedException {
        Thread.sleep(index == TRICKLE_ROWS ? LINGER_MS : 2);
        return index + 1;
    }

    private static final long PROCTIME_ROWS = 50_000;

    /** Ids 1..PROCTIME_ROWS, then one more after {@link #LINGER_MS}. */
    private static Long rowThenLinger(Long index) throws InterruptedException {
        if (index == PROCTIME_ROWS) {
            Thread.sleep(LINGER_MS);
        }
        return index + 1;
    }

    /** The legacy GROUP BY SESSION(rowtime, gap) of a query, with its window properties. */
    private static String session(String keys, String calls, String gap) {
        String window = "rowtime, INTERVAL '" + gap + "' SECOND";
        return "SELECT "
                + (keys.isEmpty() ? "" : keys + ", ")
                + calls
                + ", SESSION_START("
                + window
                + "), SESSION_END("
                + window
                + "), SESSION_ROWTIME("
                + window
                + ") FROM "
                + EV
                + " GROUP BY "
                + (keys.isEmpty() ? "" : keys + ", ")
                + "SESSION("
                + window
                + ")";
    }

    /**
     * Legacy SESSION windows (Nexmark q11's shape): sessions that grow, merge when a row bridges
     * them (the late rows, 9 s early, land between sessions or behind the watermark), and fire at
     * the watermark. Gaps from below the rows' spacing per key to above it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"id % 4|1", "id % 4|2", "id % 3|5", "b|1", "|3", "s, i8 % 2|2"})
    void sessionWindowsMatch(String spec) {
        String keys = spec.substring(0, spec.indexOf('|'));
        String gap = spec.substring(spec.indexOf('|') + 1);
        assertWindowParity(
                harness(),
                session(
                        keys,
                        "COUNT(*), COUNT(i32), SUM(i64), MIN(s), MAX(ts), AVG(i16), MAX(d38),"
                                + " MIN(dt) FILTER (WHERE b)",
                        gap));
    }

    /**
     * SESSION window TVFs (WindowAggOperator with Flink's merging window set), partitioned by keys
     * of several types or not at all, with window_start, window_end and window_time.
     */
    @ParameterizedTest
    @ValueSource(strings = {"b|1", "i8|2", "s|3", "|2", "i8, b|1"})
    void sessionWindowTvfsMatch(String spec) {
        String keys = spec.substring(0, spec.indexOf('|'));
        String gap = spec.substring(spec.indexOf('|') + 1);
        String partition = keys.isEmpty() ? "" : " PARTITION BY (" + keys + ")";
        String grouping = keys.isEmpty() ? "" : keys + ", ";
        assertWindowParity(
                harness(),
                "SELECT "
                        + grouping
                        + WINDOW
                        + ", COUNT(*), SUM(i32), MAX(s), MIN(ts), AVG(i64),"
                        + " COUNT(d10) FILTER (WHERE i16 > 0) FROM TABLE(SESSION(TABLE "
                        + EV
                        + partition
                        + ", DESCRIPTOR(rowtime), INTERVAL '"
                        + gap
                        + "' SECOND))"
                        + " GROUP BY "
                        + grouping
                        + WINDOW);
    }

    /**
     * SESSION TVF over an updating input: rows retract from the session they fall in, and a session
     * whose COUNT(*) is back at 0 is empty and not emitted (per id: every deleted row's session).
     */
    @ParameterizedTest
    @ValueSource(strings = {"b|1", "b|3", "id|1"})
    void sessionsOverAnUpdatingInputMatch(String spec) {
        String key = spec.substring(0, spec.indexOf('|'));
        String gap = spec.substring(spec.indexOf('|') + 1);
        assertWindowParity(
                harness(),
                "SELECT "
                        + key
                        + ", "
                        + WINDOW
                        + ", COUNT(*), SUM(i32), AVG(i64), COUNT(s) FROM"
                        + " TABLE(SESSION(TABLE "
                        + CHANGES
                        + " PARTITION BY ("
                        + key
                        + "),"
                        + " DESCRIPTOR(rowtime), INTERVAL '"
                        + gap
                        + "' SECOND)) GROUP BY "
                        + key
                        + ", "
                        + WINDOW);
        assertThat(lastDecisions)
                .as("retracting functions")
                .anyMatch(d -> d.isNative && d.operator.contains("SUM_RETRACT("));
    }

    /**
     * MIN/MAX over an updating input in SESSION TVFs: a map value -> count per state window, merged
     * into the target's when sessions merge, in Flink's order (the target is the state window of
     * the first merged window in its HashSet; a merge takes the other side's extreme when this
     * side's map is empty, and a rescan sees negative counts too). With the retractions 2.1 s after
     * their rows ({@code moved}) they land in other sessions (negative counts there) or bridge
     * sessions. Per i8 a session's few values leave their maps empty rather than rescanned ("-": no
     * whole maps expected).
     */
    @ParameterizedTest
    @ValueSource(strings = {"b|1", "b|3", "i8|1|-", "|2"})
    void minMaxOverAnUpdatingInputMatchInSessions(String spec) {
        String[] parts = spec.split("\\|");
        String keys = parts[0];
        String gap = parts[1];
        boolean rescans = parts.length == 2;
        String partition = keys.isEmpty() ? "" : " PARTITION BY (" + keys + ")";
        String grouping = keys.isEmpty() ? "" : keys + ", ";
        long loads = NativeMetrics.wholeMapLoads();
        for (String table : new String[] {CHANGES, MOVED}) {
            assertWindowParity(
                    harness(),
                    "SELECT "
                            + grouping
                            + WINDOW
                            + ", MAX(i64), MIN(i64), MIN(s), MAX(ts),"
                            + " MIN(i32) FILTER (WHERE b), MAX(d38), COUNT(*) FROM"
                            + " TABLE(SESSION(TABLE "
                            + table
                            + partition
                            + ", DESCRIPTOR(rowtime), INTERVAL '"
                            + gap
                            + "' SECOND)) GROUP BY "
                            + grouping
                            + WINDOW);
            assertThat(lastDecisions)
                    .as("retracting MIN/MAX")
                    .anyMatch(d -> d.isNative && d.operator.contains("MAX_RETRACT("));
        }
        if (rescans) {
            assertThat(NativeMetrics.wholeMapLoads())
                    .as("rescans of whole maps")
                    .isGreaterThan(loads);
        }
    }

    /** Sessions in state merging into the one Flink picks (see {@link #MERGING}). */
    @Test
    void minMaxOverAnUpdatingInputMatchWhenSessionsMerge() {
        assertWindowParity(
                harness(),
                "SELECT id, "
                        + WINDOW
                        + ", MIN(i64), MAX(i64), COUNT(*) FROM TABLE(SESSION(TABLE "
                        + MERGING
                        + " PARTITION BY (id), DESCRIPTOR(rowtime), INTERVAL '1' SECOND))"
                        + " GROUP BY id, "
                        + WINDOW);
        assertThat(lastDecisions)
                .as("retracting MIN/MAX")
                .anyMatch(d -> d.isNative && d.operator.contains("MIN_RETRACT("));
    }

    /**
     * DISTINCT aggregates in session windows: Flink's maps per state window (MapState in the state
     * window's namespace), merged into the target's when sessions merge (the late rows bridge
     * sessions here) and cleared with the merged and the fired windows. The legacy GROUP BY SESSION
     * and the TVF (bitmasks: FILTERs, several calls on one argument, NULL values), and the TVF over
     * an updating input (counts, a long[] for several calls).
     */
    @ParameterizedTest
    @ValueSource(strings = {"i8|2", "|3", "b|1"})
    void distinctAggregatesInSessionWindowsMatch(String spec) {
        String keys = spec.substring(0, spec.indexOf('|'));
        String gap = spec.substring(spec.indexOf('|') + 1);
        String calls =
                "COUNT(*), COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE b), SUM(DISTINCT"
                        + " i8 % 5), COUNT(DISTINCT i8 % 5) FILTER (WHERE i32 > 0), MAX(i64)";
        assertWindowParity(harness(), session(keys, calls, gap));
        String partition = keys.isEmpty() ? "" : " PARTITION BY (" + keys + ")";
        String grouping = keys.isEmpty() ? "" : keys + ", ";
        assertWindowParity(
                harness(),
                "SELECT "
                        + grouping
                        + WINDOW
                        + ", "
                        + calls
                        + " FROM TABLE(SESSION(TABLE "
                        + EV
                        + partition
                        + ", DESCRIPTOR(rowtime), INTERVAL '"
                        + gap
                        + "' SECOND))"
                        + " GROUP BY "
                        + grouping
                        + WINDOW);
        assertWindowParity(
                harness(),
                "SELECT "
                        + grouping
                        + WINDOW
                        + ", COUNT(*), COUNT(DISTINCT s), COUNT(DISTINCT s)"
                        + " FILTER (WHERE b), COUNT(DISTINCT i8 % 3), SUM(i32) FROM"
                        + " TABLE(SESSION(TABLE "
                        + CHANGES
                        + partition
                        + ", DESCRIPTOR(rowtime),"
                        + " INTERVAL '"
                        + gap
                        + "' SECOND)) GROUP BY "
                        + grouping
                        + WINDOW);
        // Sessions in state merging: the merged one's map merges into the target's.
        assertWindowParity(
                harness(),
                "SELECT "
                        + calls
                        + ", SESSION_START(rowtime, INTERVAL '1' SECOND) FROM "
                        + BRIDGED
                        + " GROUP BY SESSION(rowtime, INTERVAL '1' SECOND)");
        assertWindowParity(
                harness(),
                "SELECT "
                        + WINDOW
                        + ", "
                        + calls
                        + " FROM TABLE(SESSION(TABLE "
                        + BRIDGED
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND)) GROUP BY "
                        + WINDOW);
    }

    /**
     * The legacy GROUP BY TUMBLE / HOP group windows (Flink's WindowOperator, state per window or
     * per pane of gcd(size, slide)) with their _START, _END and _ROWTIME, one phase: FLOAT, DOUBLE
     * and DECIMAL sums too, whose panes are accumulated in arrival order and merged earliest first
     * as Flink merges them. HOP sizes that are not a multiple of the slide have panes smaller than
     * the slide (2 s / 5 s: 1 s panes, 4 s / 6 s: 2 s), several of which expire with one window; a
     * slide longer than the size (3 s / 2 s) leaves rows between windows in panes no window reads,
     * as Flink does.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "TUMBLE|id % 4|3",
                "TUMBLE||2",
                "HOP|id % 4|2|6",
                "HOP|b, s|1|3",
                "HOP||3|3",
                "HOP|id % 4|2|5",
                "HOP||4|6",
                "HOP|id % 3|3|2"
            })
    void legacyTumbleAndHopWindowsMatch(String spec) {
        String[] parts = spec.split("\\|", -1);
        String kind = parts[0];
        String keys = parts[1].isEmpty() ? "" : parts[1] + ", ";
        // TUMBLE(rowtime, size) or HOP(rowtime, slide, size).
        String window = "rowtime, INTERVAL '" + parts[2] + "' SECOND";
        if (parts.length > 3) {
            window += ", INTERVAL '" + parts[3] + "' SECOND";
        }
        assertWindowParity(
                harness(),
                "SELECT "
                        + keys
                        + "COUNT(*), SUM(i64), SUM(f64), AVG(f32), SUM(d38), MIN(s),"
                        + " MAX(ts), COUNT(i8) FILTER (WHERE b), "
                        + kind
                        + "_START("
                        + window
                        + "), "
                        + kind
                        + "_END("
                        + window
                        + "), "
                        + kind
                        + "_ROWTIME("
                        + window
                        + ") FROM "
                        + EV
                        + " GROUP BY "
                        + keys
                        + kind
                        + "("
                        + window
                        + ")");
    }

    /**
     * FIRST_VALUE and LAST_VALUE (a ROW(value, order) accumulator, the order being the wall clock)
     * in TUMBLE windows, the only windows Flink runs them in (they have no merge, so no panes,
     * shared slices, sessions or two phases): the window TVF (native and Flink window state) and
     * the legacy group window; NULLs skipped, FILTER, strings, DECIMAL and timestamps. Serial:
     * which row comes first is the arrival order.
     */
    @Test
    void firstAndLastValuesInTumbleWindowsMatch() {
        assertWindowParity(
                harness(),
                "SELECT i8 % 3, window_end, FIRST_VALUE(i32), LAST_VALUE(s), FIRST_VALUE(d38)"
                        + " FILTER (WHERE b), LAST_VALUE(ts), LAST_VALUE(i8), COUNT(*) FROM"
                        + " TABLE(TUMBLE(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '4'"
                        + " SECOND)) GROUP BY i8 % 3, window_start, window_end");
        assertWindowParity(
                harness(),
                "SELECT id % 4, FIRST_VALUE(s), LAST_VALUE(i64), FIRST_VALUE(f64),"
                        + " TUMBLE_END(rowtime, INTERVAL '3' SECOND) FROM "
                        + EV
                        + " GROUP BY id % 4, TUMBLE(rowtime, INTERVAL '3' SECOND)");
    }

    /**
     * DISTINCT aggregates in TUMBLE, HOP and CUMULATE windows: Flink's per-slice maps (value to a
     * bitmask of the calls, MapState namespaced by the slice end, a null-value ValueState) read and
     * written once per (key, slice, value) and batch; in two phases the Local aggregation sends
     * each slice's map as Flink's RAW MapView bytes and the Global one merges them into state; a
     * HOP window merges its slices' maps when it fires (each value counted once per window), a
     * CUMULATE window its current slice's map into its first slice's state map; the legacy TUMBLE
     * and HOP (1 s panes of a 2 s slide) group windows. FILTER, strings, NULLs, SUM and COUNT
     * sharing a map. Such windows keep Flink state with the default streamfusion.window.state
     * (AUTO), and EXPLAIN says so.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TWO_PHASE", "ONE_PHASE"})
    void distinctAggregatesInSlicedWindowsMatch(String phase) {
        ParityHarness harness = phase.equals("ONE_PHASE") ? onePhase() : harness();
        assertWindowParity(
                harness,
                "SELECT i8 % 3, window_end, COUNT(DISTINCT s), COUNT(DISTINCT i32) FILTER (WHERE"
                        + " b), SUM(DISTINCT i16), COUNT(DISTINCT i16), COUNT(DISTINCT i8),"
                        + " COUNT(*), MAX(i64) FROM TABLE(TUMBLE(TABLE "
                        + EV
                        + ","
                        + " DESCRIPTOR(rowtime), INTERVAL '4' SECOND)) GROUP BY i8 % 3,"
                        + " window_start, window_end");
        // HOP aggregations consume retractions: a count per value (Flink cannot plan a SUM
        // DISTINCT there).
        assertWindowParity(
                harness,
                "SELECT i8 % 3, window_end, COUNT(DISTINCT s), COUNT(DISTINCT i32) FILTER (WHERE"
                        + " b), COUNT(DISTINCT i8), COUNT(*), MAX(i64) FROM TABLE(HOP(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP"
                        + " BY i8 % 3, window_start, window_end");
        assertThat(lastDecisions)
                .anyMatch(
                        d ->
                                d.isNative
                                        && d.operator.contains("WindowAggregate(")
                                        && d.note != null
                                        && d.note.contains("Flink keyed state"));
        assertWindowParity(
                harness,
                "SELECT id % 4, COUNT(DISTINCT s), SUM(DISTINCT i32) FILTER (WHERE b),"
                        + " COUNT(DISTINCT i8), TUMBLE_END(rowtime, INTERVAL '3' SECOND) FROM "
                        + EV
                        + " GROUP BY id % 4, TUMBLE(rowtime, INTERVAL '3' SECOND)");
        assertWindowParity(
                harness,
                "SELECT id % 4, COUNT(DISTINCT s), SUM(DISTINCT i32) FILTER (WHERE b),"
                        + " COUNT(DISTINCT i8), HOP_END(rowtime, INTERVAL '2' SECOND, INTERVAL '5'"
                        + " SECOND) FROM "
                        + EV
                        + " GROUP BY id % 4, HOP(rowtime, INTERVAL '2'"
                        + " SECOND, INTERVAL '5' SECOND)");
        // CUMULATE: each step merges its slice's map into the first slice's state map.
        assertWindowParity(
                harness,
                "SELECT i8 % 3, window_end, COUNT(DISTINCT s), COUNT(DISTINCT i32) FILTER (WHERE"
                        + " b), COUNT(DISTINCT i8), COUNT(*), MAX(i64) FROM TABLE(CUMULATE(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND, INTERVAL '4' SECOND))"
                        + " GROUP BY i8 % 3, window_start, window_end");
        // Few values, many rows per window: most values of a step were seen in an earlier one.
        assertWindowParity(
                harness,
                "SELECT window_end, COUNT(DISTINCT i8 % 3), COUNT(DISTINCT b) FILTER (WHERE i32 >"
                        + " 0), COUNT(DISTINCT s), COUNT(*) FROM TABLE(CUMULATE(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND, INTERVAL '5' SECOND))"
                        + " GROUP BY window_start, window_end");
    }

    /**
     * Several DISTINCT calls on one argument in HOP and CUMULATE windows, whose aggregations count
     * per value: Flink's map then holds a {@code long[]} of a count per call
     * (LongArrayValueWithRetractionGenerator), natively a lane per call; in two phases the Local
     * aggregation's views carry the arrays. FILTERs make the lanes differ; NULL values (s) and a
     * second shared map (i8) besides.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TWO_PHASE", "ONE_PHASE"})
    void severalDistinctCallsOnOneArgumentMatchInHopAndCumulateWindows(String phase) {
        ParityHarness harness = phase.equals("ONE_PHASE") ? onePhase() : harness();
        String calls =
                "COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE b), COUNT(DISTINCT s) FILTER"
                        + " (WHERE i32 > 0), COUNT(DISTINCT i8 % 5), COUNT(DISTINCT i8 % 5) FILTER"
                        + " (WHERE b), COUNT(*), MAX(i64)";
        assertWindowParity(
                harness,
                "SELECT i8 % 3, window_end, "
                        + calls
                        + " FROM TABLE(HOP(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP"
                        + " BY i8 % 3, window_start, window_end");
        assertWindowParity(
                harness,
                "SELECT window_end, "
                        + calls
                        + " FROM TABLE(CUMULATE(TABLE "
                        + EV
                        + ", DESCRIPTOR(rowtime), INTERVAL '1' SECOND, INTERVAL '5' SECOND))"
                        + " GROUP BY window_start, window_end");
        assertWindowParity(
                harness,
                "SELECT id % 4, "
                        + calls
                        + ", HOP_END(rowtime, INTERVAL '2' SECOND, INTERVAL '5'"
                        + " SECOND) FROM "
                        + EV
                        + " GROUP BY id % 4, HOP(rowtime, INTERVAL '2'"
                        + " SECOND, INTERVAL '5' SECOND)");
    }

    /** Sessions drop late rows as Flink drops them: fewer rows are counted than arrived. */
    @Test
    void sessionWindowsDropLateRowsAsFlinkDoes() {
        ParityHarness.Result result = assertWindowParity(harness(), session("", "COUNT(*)", "1"));
        long counted = 0;
        for (Row row : result.rows) {
            counted += (Long) row.getField(0);
        }
        assertThat(counted).isLessThan(TestData.rows().size() * COPIES);
    }

    /** A tiny batch (one row) and a large one give Flink's sessions alike. */
    @Test
    void sessionWindowsMatchWithOneRowBatches() {
        ParityHarness oneRow =
                new ParityHarness(
                        1,
                        false,
                        Map.of(
                                "streamfusion.batch.size", "1",
                                "streamfusion.window.buffer-rows", "1"),
                        UTC);
        assertWindowParity(oneRow, session("id % 4", "COUNT(*), MAX(i64)", "2"));
        assertWindowParity(
                new ParityHarness(1, false, Map.of(), UTC),
                session("id % 4", "COUNT(*), MAX(i64)", "2"));
    }

    /** What is not native yet is refused with its reason (strict mode fails with it). */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT window_end, SUM(f64) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(rowtime),"
                        + " INTERVAL '5' SECOND)) GROUP BY window_start, window_end|partial sums",
                "SELECT window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(rowtime),"
                        + " INTERVAL '4' SECOND, INTERVAL '1' SECOND)) GROUP BY window_start,"
                        + " window_end|ignore the offset",
                "SELECT COUNT(*), SUM(f64) FROM ev GROUP BY SESSION(rowtime, INTERVAL '2' SECOND)"
                        + "|hash-set order",
                "SELECT window_end, MAX(i64) FROM TABLE(HOP(TABLE changes, DESCRIPTOR(rowtime),"
                        + " INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY window_start,"
                        + " window_end|partial accumulators depend on where Flink flushes"
            })
    void unsupportedWindowsAreRefusedWithAReason(String spec) {
        String sql = spec.substring(0, spec.indexOf('|'));
        String reason = spec.substring(spec.indexOf('|') + 1);
        StreamTableEnvironment nat = harness().nativeEnv();
        registerEvents(nat);
        assertThatThrownBy(() -> ParityHarness.run(nat, sql))
                .hasStackTraceContaining("WindowAggregate")
                .hasStackTraceContaining(reason);
    }

    /** An event-time window on TIMESTAMP_LTZ shifts by a non-UTC zone: refused, named. */
    @Test
    void nonUtcEventTimeWindowIsRefused() {
        ParityHarness shanghai =
                new ParityHarness(
                        1, false, SMALL_BATCHES, Map.of("table.local-time-zone", "Asia/Shanghai"));
        StreamTableEnvironment nat = shanghai.nativeEnv();
        registerEvents(nat);
        assertThatThrownBy(
                        () ->
                                ParityHarness.run(
                                        nat,
                                        "SELECT window_end, COUNT(*) FROM "
                                                + tumble("5")
                                                + " GROUP BY window_start, window_end"))
                .hasStackTraceContaining("Asia/Shanghai");
    }

    @Test
    void tinyMemoryBudgetIsAClearError() {
        ParityHarness tiny =
                new ParityHarness(
                        1,
                        false,
                        Map.of(
                                "streamfusion.memory.budget", "1kb",
                                "streamfusion.batch.size", "64"),
                        UTC);
        StreamTableEnvironment nat = tiny.nativeEnv();
        registerEvents(nat);
        assertThatThrownBy(
                        () ->
                                ParityHarness.run(
                                        nat,
                                        "SELECT s, window_end, COUNT(*) FROM "
                                                + tumble("5")
                                                + " GROUP BY s, window_start, window_end"))
                .hasStackTraceContaining("streamfusion.memory.budget");
        assertThat(NativeLib.globalMemoryBytes()).isZero();
    }
}
