package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The native window aggregation keeps Flink's exactly-once state and timers: its windows equal an
 * uninterrupted stock run after a checkpoint, an injected failure and the automatic restore
 * (windows firing all along), and after stop-with-savepoint at parallelism 2 (windows open, their
 * timers pending) and a restore at 1 and at 3, with the heap (hashmap) and RocksDB backends,
 * TUMBLE, HOP and CUMULATE, one and two phases.
 *
 * <p>The source's watermark assigner stays on Flink (fallback allowed); the window aggregation
 * operators are asserted native.
 */
class WindowAggregateStateTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final int ROWS = 20_000;

    /**
     * Row id happens at id ms after 2024-01-01, a watermark 1 s behind: each source subtask reads
     * its own range of ids in order, so no row is late however far one runs ahead of the other.
     */
    private static final String IN_ORDER = eventTime("id", "1");

    /**
     * Both source subtasks' ranges cover the same 10 s of event time, with a watermark 99 s behind:
     * no window fires before the end of the input, and no row is ever late, whatever order a
     * rescaled source reads the rest of its ranges in (the datagen source hands its remaining ids
     * to the new subtasks as list state).
     */
    private static final String COMPLETE = eventTime("(id - 1) % " + ROWS / 2, "99");

    private static String eventTime(String millis, String delaySeconds) {
        return ", ts AS TIMESTAMPADD(MILLISECOND, CAST("
                + millis
                + " AS INT), TIMESTAMP"
                + " '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts - INTERVAL '"
                + delaySeconds
                + "' SECOND";
    }

    private static String query(String window) {
        // *_DISTINCT: the same window with DISTINCT maps (Flink's MapState per slice or window).
        // Over an updating input (*_UPDATING) MIN and MAX keep a map per slice too (a count per
        // value); the deduplication retracts each key's rows in order, so MIN loses its minimum
        // again and again and rescans the slice's whole map. They are one-phase only (two phases
        // are refused): with DISTINCT (two-phase cases too) SUM and COUNT take their columns.
        String calls =
                window.contains("_UPDATING_DISTINCT")
                        ? "COUNT(*) AS c, COUNT(DISTINCT v % 1000) AS s, SUM(v) AS mn, COUNT(v)"
                                + " AS mx, COUNT(DISTINCT v % 97) FILTER (WHERE v % 3 = 0) * 10000"
                                + " + COUNT(DISTINCT v % 1000) FILTER (WHERE v % 2 = 0) AS f"
                        : window.contains("_DISTINCT")
                                // Two calls share the map of v % 1000: in HOP and CUMULATE windows
                                // (counting) a long[] per value, in TUMBLE a bitmask.
                                ? "COUNT(*) AS c, COUNT(DISTINCT v % 1000) AS s, MIN(v) AS mn,"
                                      + " MAX(v) AS mx, COUNT(DISTINCT v % 97) FILTER (WHERE v % 3"
                                      + " = 0) * 10000 + COUNT(DISTINCT v % 1000) FILTER (WHERE v %"
                                      + " 2 = 0) AS f"
                                : "COUNT(*) AS c, SUM(v) AS s, MIN(v) AS mn, MAX(v) AS mx,"
                                        + " COUNT(*) FILTER (WHERE v % 3 = 0) AS f";
        window = window.replace("_DISTINCT", "");
        // *_UPDATING: the window over an updating input (view "latest": each group of ten ids
        // keeps its latest row, the ones before it retracted).
        String from = window.endsWith("_UPDATING") ? "latest" : "ev";
        window = window.replace("_UPDATING", "");
        String record =
                "SELECT record(CONCAT_WS('|', CAST(k AS STRING), CAST(window_start AS STRING),"
                        + " CAST(c AS STRING), CAST(s AS STRING), CAST(mn AS STRING),"
                        + " CAST(mx AS STRING), CAST(f AS STRING))) AS r FROM ";
        // SESSION: every third second (2, 5, 8, ...) has no rows (view "kept"), so each key's
        // rows form sessions of two seconds (growing by a merge at every row) that end at the
        // gap. The failure is injected at a row that is kept (second 18).
        if (window.equals("SESSION")) {
            // The legacy GROUP BY SESSION.
            String gap = "ts, INTERVAL '0.5' SECOND";
            return record
                    + "(SELECT k, SESSION_START("
                    + gap
                    + ") AS window_start, "
                    + calls
                    + " FROM kept GROUP BY k, SESSION("
                    + gap
                    + "))";
        }
        if (window.endsWith("_LEGACY")) {
            // The legacy GROUP BY TUMBLE / HOP group windows.
            String kind = window.substring(0, window.indexOf('_'));
            String args =
                    kind.equals("HOP")
                            ? "ts, INTERVAL '1' SECOND, INTERVAL '3' SECOND"
                            : "ts, INTERVAL '1' SECOND";
            return record
                    + "(SELECT k, "
                    + kind
                    + "_START("
                    + args
                    + ") AS window_start, "
                    + calls
                    + " FROM ev GROUP BY k, "
                    + kind
                    + "("
                    + args
                    + "))";
        }
        if (window.equals("SESSION_TVF")) {
            // Over the updating input (view "kept_latest") MIN/MAX keep a map per state window,
            // merged as sessions grow. A session there starts at its first row, retracted or
            // not, and which rows a rescaled deduplication emits before retracting them depends
            // on the order it reads them in (a row older than its group's latest is ignored), in
            // stock runs too: such a session is recorded by its end (its latest row's).
            boolean updating = from.equals("latest");
            String start = updating ? "window_end AS window_start" : "window_start";
            return record
                    + "(SELECT k, "
                    + start
                    + ", "
                    + calls
                    + " FROM TABLE(SESSION(TABLE "
                    + (updating ? "kept_latest" : "kept")
                    + " PARTITION BY k, DESCRIPTOR(ts),"
                    + " INTERVAL '0.5' SECOND)) GROUP BY k, window_start, window_end)";
        }
        String tvf =
                window.equals("HOP")
                        ? "HOP(TABLE "
                                + from
                                + ", DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL"
                                + " '3' SECOND)"
                        : window.equals("CUMULATE")
                                ? "CUMULATE(TABLE "
                                        + from
                                        + ", DESCRIPTOR(ts), INTERVAL '1'"
                                        + " SECOND, INTERVAL '4' SECOND)"
                                : "TUMBLE(TABLE " + from + ", DESCRIPTOR(ts), INTERVAL '1' SECOND)";
        return record
                + "(SELECT k, window_start, "
                + calls
                + " FROM TABLE("
                + tvf
                + ") GROUP BY k, window_start, window_end)";
    }

    /** Records every window row it sees, in every job of a test (one JVM). */
    public static final class Record extends ScalarFunction {
        static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());

        public String eval(String row) {
            SEEN.add(row);
            return row;
        }
    }

    /** A backend's suffix for the windows' accumulators in the native store (see env). */
    private static final String STORE = "+store";

    /** A backend's suffix for windows kept in Flink state through the state port (see env). */
    private static final String FLINK = "+flink";

    private static StreamTableEnvironment env(
            boolean nativeEngine,
            int parallelism,
            String backend,
            int rowsPerSecond,
            String phase,
            String eventTime,
            Map<String, String> extra) {
        return env(
                nativeEngine,
                parallelism,
                backend,
                rowsPerSecond,
                phase,
                eventTime,
                extra,
                StateJobs.Ids.DATAGEN);
    }

    private static StreamTableEnvironment env(
            boolean nativeEngine,
            int parallelism,
            String backend,
            int rowsPerSecond,
            String phase,
            String eventTime,
            Map<String, String> extra,
            StateJobs.Ids ids) {
        Map<String, String> options = new HashMap<>(extra);
        // LEGACY: a group window (GROUP BY SESSION / TUMBLE / HOP), which has a single phase.
        options.put("table.optimizer.agg-phase-strategy", phase.equals("LEGACY") ? "AUTO" : phase);
        options.put("table.local-time-zone", "UTC");
        // The source's WatermarkAssigner stays on Flink.
        options.put("streamfusion.fallback", "allow");
        // "<backend>+store": the backend, with the windows' accumulators in the native store
        // (streamfusion.window.state=STORE); "<backend>+flink": windows in Flink state (FLINK);
        // a bare backend takes the default (AUTO: in memory with hashmap, the store with RocksDB).
        String flinkBackend = backend;
        int plus = backend.indexOf('+');
        if (plus >= 0) {
            flinkBackend = backend.substring(0, plus);
            options.put(
                    "streamfusion.window.state",
                    backend.substring(plus + 1).toUpperCase(Locale.ROOT));
        }
        StreamTableEnvironment tEnv =
                StateJobs.env(nativeEngine, parallelism, flinkBackend, options);
        tEnv.createTemporarySystemFunction("record", Record.class);
        tEnv.executeSql(StateJobs.sequenceSource("src", ROWS, rowsPerSecond, eventTime, ids));
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW ev AS SELECT CAST(id % 50 AS INT) AS k, fail_once(id) AS v,"
                        + " ts FROM src");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW kept AS SELECT * FROM ev WHERE (EXTRACT(SECOND FROM ts) + 1)"
                        + " % 3 <> 0");
        // A changelog: Flink's rowtime deduplication keeps each group's latest row (-U the row
        // before it, +U the new one), the rowtime kept as the time attribute.
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW latest AS SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER"
                        + " (PARTITION BY id / 10 ORDER BY ts DESC) AS rn FROM (SELECT id, CAST(id"
                        + " % 50 AS INT) AS k, fail_once(id) AS v, ts FROM src)) WHERE rn = 1");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW kept_latest AS SELECT * FROM latest WHERE (EXTRACT(SECOND"
                        + " FROM ts) + 1) % 3 <> 0");
        return tEnv;
    }

    private static List<String> collect(StreamTableEnvironment tEnv, String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(sql).collect()) {
            it.forEachRemaining(row -> rows.add((String) row.getField(0)));
        }
        Collections.sort(rows);
        return rows;
    }

    /** An uninterrupted stock run in which no row is late: every row counted in each window. */
    private static List<String> stockResult(String window, String phase, String eventTime)
            throws Exception {
        StateJobs.FailOnce.reset();
        ExecNodeContext.resetIdCounter();
        List<String> rows =
                collect(env(false, 2, "hashmap", 0, phase, eventTime, Map.of()), query(window));
        long counted = 0;
        for (String row : rows) {
            counted += Long.parseLong(row.split("\\|")[2]);
        }
        // A row is in 3 HOP windows, in 1 TUMBLE window, and in the CUMULATE windows of its
        // 4 s cycle from its 1 s step on.
        long expected = 0;
        // Over the updating input only each group's latest row (the largest rowtime) is left.
        Map<Long, Long> latest = new HashMap<>();
        for (long id = 1; id <= ROWS; id++) {
            latest.merge(id / 10, millis(id, eventTime), Math::max);
        }
        for (long id = 1; id <= ROWS; id++) {
            long millis = millis(id, eventTime);
            if (window.contains("_UPDATING") && latest.get(id / 10) != millis) {
                continue;
            }
            expected +=
                    window.startsWith("SESSION")
                            ? kept(millis)
                            : window.startsWith("HOP")
                                    ? 3
                                    : window.startsWith("CUMULATE") ? 4 - millis % 4000 / 1000 : 1;
        }
        assertThat(counted).isEqualTo(expected);
        return rows;
    }

    /** Row id's event time in milliseconds after 2024-01-01. */
    private static long millis(long id, String eventTime) {
        return eventTime.equals(IN_ORDER) ? id : (id - 1) % (ROWS / 2);
    }

    /** The rows the SESSION query keeps: those not in seconds 2, 5, 8, ... of event time. */
    private static long sessionRows(String eventTime) {
        long kept = 0;
        for (long id = 1; id <= ROWS; id++) {
            long millis = millis(id, eventTime);
            kept += kept(millis);
        }
        return kept;
    }

    /** 1 when a row at {@code millis} is kept by the SESSION queries, else 0. */
    private static long kept(long millis) {
        return (millis / 1000 + 1) % 3 != 0 ? 1 : 0;
    }

    private static void assertWindowsNative(
            StreamTableEnvironment tEnv, String window, String phase) {
        List<SupportReport.Decision> decisions =
                StreamFusion.planner(tEnv).lastReport().decisions();
        List<String> expected =
                phase.equals("LEGACY")
                        ? List.of("GroupWindowAggregate(")
                        : phase.equals("TWO_PHASE")
                                ? List.of("LocalWindowAggregate(", "GlobalWindowAggregate(")
                                : List.of("WindowAggregate(");
        for (String operator : expected) {
            assertThat(decisions).anyMatch(d -> d.isNative && d.operator.startsWith(operator));
        }
        // The updating input's deduplication stays on Flink too.
        assertThat(decisions)
                .filteredOn(d -> !d.isNative)
                .allMatch(
                        d ->
                                d.operator.startsWith("WatermarkAssigner(")
                                        || (window.contains("_UPDATING")
                                                && d.operator.startsWith("Deduplicate(")));
    }

    /**
     * Window TVFs over slices keep their windows natively (checkpoints: raw keyed state;
     * savepoints: Flink's layout): in memory with the hashmap backend, in the native store with
     * RocksDB, in Flink state with "+flink". Sessions and legacy group windows keep Flink's states
     * and timers: in the native store with "+store" and with RocksDB (maps and all), in Flink state
     * otherwise.
     */
    private static void assertStateOwner(String backend, String window, long stateRowsBefore) {
        assertThat(NativeMetrics.nativeStateRows() > stateRowsBefore)
                .as("windows in native state (%s, %s)", backend, window)
                .isEqualTo(
                        sliced(window) ? !backend.endsWith(FLINK) : usesTheStore(backend, window));
    }

    /** A window TVF over slices (TUMBLE, HOP, CUMULATE) without DISTINCT or an updating input. */
    private static boolean sliced(String window) {
        return window.equals("TUMBLE") || window.equals("HOP") || window.equals("CUMULATE");
    }

    /** A session window or a legacy group window: Flink's states and timers through the port. */
    private static boolean timeWindows(String window) {
        return window.startsWith("SESSION") || window.contains("_LEGACY");
    }

    @ParameterizedTest
    @CsvSource({
        "hashmap, TUMBLE, TWO_PHASE",
        "rocksdb, HOP, ONE_PHASE",
        "hashmap, CUMULATE, ONE_PHASE",
        "hashmap, SESSION, LEGACY",
        "hashmap, SESSION_TVF, ONE_PHASE",
        "rocksdb, HOP_LEGACY, LEGACY",
        "hashmap, TUMBLE_DISTINCT, TWO_PHASE",
        "hashmap, HOP_UPDATING, ONE_PHASE",
        "rocksdb, SESSION_TVF_UPDATING, ONE_PHASE",
        "rocksdb, CUMULATE_UPDATING_DISTINCT, ONE_PHASE",
        "hashmap, SESSION_TVF_DISTINCT, ONE_PHASE",
        "rocksdb+flink, HOP, ONE_PHASE",
        "hashmap+store, TUMBLE, TWO_PHASE",
        "rocksdb+flink, SESSION, LEGACY",
        "hashmap+store, TUMBLE_DISTINCT_LEGACY, LEGACY"
    })
    void failureAndRestoreFromCheckpointGiveStockResults(
            String backend, String window, String phase, @TempDir Path dir) throws Exception {
        List<String> expected = stockResult(window, phase, IN_ORDER);

        long before = NativeMetrics.recordsIn();
        long stateRows = NativeMetrics.nativeStateRows();
        List<String> storesBefore = NativeMetrics.storeDirectories();
        ExecNodeContext.resetIdCounter();
        StreamTableEnvironment nat =
                env(
                        true,
                        2,
                        backend,
                        8_000,
                        phase,
                        IN_ORDER,
                        StateJobs.checkpointing(dir),
                        StateJobs.Ids.MAILBOX);
        // Held from the second source subtask's 5,000th row on, failed after a checkpoint.
        List<String> actual =
                StateJobs.failingAfterCheckpoint(
                        MINI_CLUSTER.miniCluster(),
                        ROWS / 2 + 5_000,
                        () -> collect(nat, query(window)));
        assertWindowsNative(nat, window, phase);
        assertStateOwner(backend, window, stateRows);
        assertThat(NativeMetrics.recordsIn() - before).isGreaterThanOrEqualTo(ROWS);
        // Rows the SESSION query filters out never reach fail_once (over the updating input the
        // filter comes after the deduplication).
        StateJobs.assertRestoredFromCheckpoint(
                window.startsWith("SESSION") && !window.contains("_UPDATING")
                        ? (int) sessionRows(IN_ORDER)
                        : ROWS);
        assertThat(actual).isEqualTo(expected);
        if (usesTheStore(backend, window)) {
            // The failed tasks' stores and the finished job's are gone.
            StateJobs.assertStoreDirectoriesDeleted(storesBefore);
        }
    }

    /**
     * A checkpoint aborted after the windows' native snapshot was written into it (the sink, a task
     * of its own with chaining off, fails its own snapshot of it): the job fails over to the
     * checkpoint before, whose key groups alone are restored, and fires stock's windows (a window
     * fired again after the failover is the same row). In the native store (RocksDB) and in native
     * memory (hashmap).
     */
    @ParameterizedTest
    @CsvSource({
        "rocksdb, HOP, ONE_PHASE",
        "hashmap, TUMBLE, TWO_PHASE",
        "rocksdb, SESSION, LEGACY"
    })
    void aCheckpointAbortedAfterTheNativeSnapshotRestoresTheOneBefore(
            String backend, String window, String phase, @TempDir Path dir) throws Exception {
        List<String> expected = stockResult(window, phase, IN_ORDER);
        assertThat(new TreeSet<>(expected)).as("distinct windows").hasSameSizeAs(expected);
        StateJobs.FailOnce.reset();
        long stateRows = NativeMetrics.nativeStateRows();
        ExecNodeContext.resetIdCounter();
        StreamTableEnvironment nat =
                env(
                        true,
                        2,
                        backend,
                        8_000,
                        phase,
                        IN_ORDER,
                        StateJobs.checkpointingUnchained(dir),
                        StateJobs.Ids.MAILBOX);
        nat.executeSql(
                "CREATE TEMPORARY TABLE aborting (r STRING) WITH ('connector' = '"
                        + CheckpointAbortingTables.IDENTIFIER
                        + "')");
        CheckpointAbortingTables.arm();
        nat.executeSql("INSERT INTO aborting " + query(window)).await();
        assertStateOwner(backend, window, stateRows);
        StateJobs.assertRestoredFromTheCheckpointBeforeTheAbort();
        // The log holds "+I[r]" per window row.
        TreeSet<String> fired = new TreeSet<>();
        for (String entry : CheckpointAbortingTables.rows()) {
            assertThat(entry).startsWith("+I[").endsWith("]");
            fired.add(entry.substring(3, entry.length() - 1));
        }
        assertThat(new ArrayList<>(fired)).isEqualTo(expected);
    }

    /**
     * Whether the window keeps its accumulators and timers in the native store: with "+store", and
     * by default (AUTO) with RocksDB (sessions and legacy group windows with their DISTINCT or
     * MIN/MAX maps too).
     */
    private static boolean usesTheStore(String backend, String window) {
        if (backend.endsWith(STORE)) {
            return sliced(window) || timeWindows(window);
        }
        return backend.equals("rocksdb") && (sliced(window) || timeWindows(window));
    }

    /** The rest of the matrix above, under {@code ./sf test --full}. */
    @Tag("full")
    @ParameterizedTest
    @CsvSource({
        "rocksdb, TUMBLE, TWO_PHASE",
        "hashmap, HOP, ONE_PHASE",
        "rocksdb, HOP, TWO_PHASE",
        "rocksdb, CUMULATE, TWO_PHASE",
        "rocksdb, SESSION, LEGACY",
        "hashmap, TUMBLE_LEGACY, LEGACY",
        "rocksdb, TUMBLE_DISTINCT, ONE_PHASE",
        "rocksdb, TUMBLE_UPDATING, ONE_PHASE",
        "rocksdb, CUMULATE_UPDATING, ONE_PHASE",
        "rocksdb, TUMBLE_DISTINCT_LEGACY, LEGACY",
        "hashmap, HOP_DISTINCT, TWO_PHASE",
        "rocksdb, HOP_DISTINCT_LEGACY, LEGACY",
        "rocksdb, CUMULATE_DISTINCT, ONE_PHASE",
        "hashmap, CUMULATE_DISTINCT, TWO_PHASE",
        "rocksdb, TUMBLE_UPDATING_DISTINCT, TWO_PHASE",
        "hashmap, HOP_UPDATING_DISTINCT, TWO_PHASE",
        "rocksdb, SESSION_DISTINCT, LEGACY"
    })
    void failureAndRestoreFromCheckpointGiveStockResultsFull(
            String backend, String window, String phase, @TempDir Path dir) throws Exception {
        failureAndRestoreFromCheckpointGiveStockResults(backend, window, phase, dir);
    }

    @ParameterizedTest
    @CsvSource({
        "hashmap, 1, HOP, TWO_PHASE",
        "hashmap, 3, CUMULATE, TWO_PHASE",
        "rocksdb, 3, SESSION, LEGACY",
        "hashmap, 3, TUMBLE_DISTINCT, TWO_PHASE",
        "rocksdb, 3, HOP_UPDATING_DISTINCT, ONE_PHASE",
        "hashmap, 3, SESSION_TVF_UPDATING, ONE_PHASE",
        "rocksdb, 1, SESSION_TVF_DISTINCT, ONE_PHASE",
        "rocksdb+flink, 3, CUMULATE, TWO_PHASE",
        "rocksdb+store, 1, TUMBLE, ONE_PHASE"
    })
    void savepointAtTwoRestoresAtAnotherParallelism(
            String backend, int restoreParallelism, String window, String phase, @TempDir Path dir)
            throws Exception {
        assertSavepointRestore(true, true, backend, restoreParallelism, window, phase, dir);
    }

    /** The rest of the matrix above, under {@code ./sf test --full}. */
    @Tag("full")
    @ParameterizedTest
    @CsvSource({
        "rocksdb, 3, HOP, TWO_PHASE",
        "hashmap, 3, TUMBLE, ONE_PHASE",
        "rocksdb, 1, TUMBLE, ONE_PHASE",
        "hashmap, 1, SESSION, LEGACY",
        "rocksdb, 3, SESSION_TVF, ONE_PHASE",
        "hashmap, 3, HOP_LEGACY, LEGACY",
        "rocksdb, 1, TUMBLE_DISTINCT, ONE_PHASE",
        "rocksdb, 3, HOP_DISTINCT, TWO_PHASE",
        "hashmap, 3, CUMULATE_DISTINCT, TWO_PHASE",
        "rocksdb, 1, CUMULATE_DISTINCT, ONE_PHASE",
        "hashmap, 1, CUMULATE_UPDATING_DISTINCT, TWO_PHASE",
        "rocksdb, 3, CUMULATE_UPDATING, ONE_PHASE",
        "hashmap, 3, SESSION_DISTINCT, LEGACY"
    })
    void savepointAtTwoRestoresAtAnotherParallelismFull(
            String backend, int restoreParallelism, String window, String phase, @TempDir Path dir)
            throws Exception {
        savepointAtTwoRestoresAtAnotherParallelism(backend, restoreParallelism, window, phase, dir);
    }

    /**
     * A savepoint taken with one engine restores with the other: the state, timers and uids are
     * Flink's (native-owned windows are written in Flink's layout for a savepoint and moved back
     * into native state on restore), so StreamFusion can be switched on or off for a running job.
     */
    @ParameterizedTest
    @CsvSource({
        "true, rocksdb, HOP, TWO_PHASE",
        "true, hashmap, CUMULATE, ONE_PHASE",
        "false, hashmap, HOP, TWO_PHASE",
        "false, hashmap, SESSION, LEGACY",
        "true, hashmap, TUMBLE_UPDATING_DISTINCT, ONE_PHASE",
        "false, rocksdb, SESSION_TVF_UPDATING, ONE_PHASE",
        "true, rocksdb, SESSION_DISTINCT, LEGACY",
        "true, rocksdb+flink, TUMBLE, TWO_PHASE",
        "false, rocksdb+store, HOP, ONE_PHASE",
        "true, hashmap+store, HOP_LEGACY, LEGACY",
        "false, rocksdb, SESSION, LEGACY",
        "false, rocksdb+store, SESSION_TVF_UPDATING, ONE_PHASE"
    })
    void savepointsMoveBetweenStockAndNative(
            boolean nativeFirst, String backend, String window, String phase, @TempDir Path dir)
            throws Exception {
        assertSavepointRestore(nativeFirst, !nativeFirst, backend, 2, window, phase, dir);
    }

    /** The rest of the matrix above, under {@code ./sf test --full}. */
    @Tag("full")
    @ParameterizedTest
    @CsvSource({
        "false, rocksdb, HOP, TWO_PHASE",
        "false, hashmap, TUMBLE, ONE_PHASE",
        "true, hashmap, HOP, TWO_PHASE",
        "true, rocksdb, SESSION, LEGACY",
        "true, hashmap, SESSION_TVF, ONE_PHASE",
        "false, rocksdb, HOP_LEGACY, LEGACY",
        "true, hashmap, TUMBLE_DISTINCT, TWO_PHASE",
        "false, rocksdb, TUMBLE_DISTINCT, ONE_PHASE",
        "true, rocksdb, TUMBLE_DISTINCT_LEGACY, LEGACY",
        "false, hashmap, HOP_DISTINCT, ONE_PHASE",
        "true, rocksdb, CUMULATE_DISTINCT, TWO_PHASE",
        "false, rocksdb, HOP_UPDATING_DISTINCT, TWO_PHASE",
        "true, hashmap, HOP_UPDATING, ONE_PHASE",
        "false, hashmap, SESSION_TVF_DISTINCT, ONE_PHASE"
    })
    void savepointsMoveBetweenStockAndNativeFull(
            boolean nativeFirst, String backend, String window, String phase, @TempDir Path dir)
            throws Exception {
        savepointsMoveBetweenStockAndNative(nativeFirst, backend, window, phase, dir);
    }

    /**
     * A retained checkpoint (native-owned windows: raw keyed state, one section per key group)
     * restores at another parallelism: each new subtask gets the sections of its key groups.
     */
    @ParameterizedTest
    @CsvSource({"1, HOP, ONE_PHASE", "3, TUMBLE, TWO_PHASE"})
    void checkpointAtTwoRestoresAtAnotherParallelism(
            int restoreParallelism, String window, String phase, @TempDir Path dir)
            throws Exception {
        assertRestore(true, true, "hashmap", restoreParallelism, window, phase, dir, true);
    }

    /**
     * The windows' accumulators (sessions and legacy group windows: states and timers) in the
     * native store (RocksDB backend): retained checkpoints of parallelism 2 restore at 1 and at 3,
     * their key groups' sections merged and split by Flink.
     */
    @ParameterizedTest
    @CsvSource({
        "1, HOP, TWO_PHASE",
        "3, TUMBLE, ONE_PHASE",
        "3, SESSION, LEGACY",
        "1, HOP_LEGACY, LEGACY"
    })
    void checkpointWithTheNativeStoreRestoresAtAnotherParallelism(
            int restoreParallelism, String window, String phase, @TempDir Path dir)
            throws Exception {
        assertRestore(true, true, "rocksdb" + STORE, restoreParallelism, window, phase, dir, true);
    }

    /** The rest of the matrix above, under {@code ./sf test --full}. */
    @Tag("full")
    @ParameterizedTest
    @CsvSource({"3, CUMULATE, ONE_PHASE", "3, HOP, TWO_PHASE"})
    void checkpointAtTwoRestoresAtAnotherParallelismFull(
            int restoreParallelism, String window, String phase, @TempDir Path dir)
            throws Exception {
        checkpointAtTwoRestoresAtAnotherParallelism(restoreParallelism, window, phase, dir);
    }

    private static void assertSavepointRestore(
            boolean firstNative,
            boolean secondNative,
            String backend,
            int restoreParallelism,
            String window,
            String phase,
            Path dir)
            throws Exception {
        assertRestore(
                firstNative, secondNative, backend, restoreParallelism, window, phase, dir, false);
    }

    /**
     * Job 1 stops mid-way with a savepoint (or is cancelled after retained checkpoints), job 2
     * restores from it and runs to the end; together they equal an uninterrupted stock run.
     */
    private static void assertRestore(
            boolean firstNative,
            boolean secondNative,
            String backend,
            int restoreParallelism,
            String window,
            String phase,
            Path dir,
            boolean fromCheckpoint)
            throws Exception {
        String savepoint = stopMidway(firstNative, backend, window, phase, dir, fromCheckpoint);
        assertRestoresToStockResult(
                window, phase, savepoint, secondNative, backend, restoreParallelism);
    }

    private static final String SINK =
            "CREATE TEMPORARY TABLE out_sink (r STRING) WITH ('connector'='blackhole')";

    /**
     * Job 1: at parallelism 2, stopped with a savepoint in {@code dir} while the source is mid-way
     * (or cancelled after retained checkpoints); returns the savepoint's (checkpoint's) path.
     */
    static String stopMidway(
            boolean firstNative,
            String backend,
            String window,
            String phase,
            Path dir,
            boolean fromCheckpoint)
            throws Exception {
        Record.SEEN.clear();
        long stateRows = NativeMetrics.nativeStateRows();
        ExecNodeContext.resetIdCounter();
        StreamTableEnvironment first =
                env(
                        firstNative,
                        2,
                        backend,
                        4_000,
                        phase,
                        COMPLETE,
                        fromCheckpoint ? StateJobs.retainedCheckpoints(dir) : Map.of());
        first.executeSql(SINK);
        String insert = "INSERT INTO out_sink " + query(window);
        String savepoint =
                fromCheckpoint
                        ? StateJobs.checkpointMidway(
                                MINI_CLUSTER.miniCluster(), first, insert, dir, ROWS)
                        : StateJobs.savepointMidway(first, insert, dir, ROWS);
        if (firstNative) {
            assertWindowsNative(first, window, phase);
            assertStateOwner(backend, window, stateRows);
        }
        // Every window is still open: its accumulators and timers are in the savepoint.
        assertThat(Record.SEEN).as("windows fired by job 1").isEmpty();
        return savepoint;
    }

    /**
     * Job 2: the query restored from {@code savepoint} at {@code parallelism}, run to the end of
     * the source; every window it fires must equal an uninterrupted stock run's.
     */
    static void assertRestoresToStockResult(
            String window,
            String phase,
            String savepoint,
            boolean secondNative,
            String backend,
            int parallelism)
            throws Exception {
        List<String> expected = stockResult(window, phase, COMPLETE);
        StateJobs.FailOnce.reset();
        Record.SEEN.clear();
        long stateRows = NativeMetrics.nativeStateRows();
        ExecNodeContext.resetIdCounter();
        StreamTableEnvironment second =
                env(
                        secondNative,
                        parallelism,
                        backend,
                        0,
                        phase,
                        COMPLETE,
                        Map.of(StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint));
        second.executeSql(SINK);
        second.executeSql("INSERT INTO out_sink " + query(window)).await();
        StateJobs.assertResumedFromSavepoint(ROWS);
        if (secondNative) {
            assertWindowsNative(second, window, phase);
            assertStateOwner(backend, window, stateRows);
        }
        List<String> actual = new ArrayList<>(Record.SEEN);
        Collections.sort(actual);
        assertThat(actual).isEqualTo(expected);
    }
}
