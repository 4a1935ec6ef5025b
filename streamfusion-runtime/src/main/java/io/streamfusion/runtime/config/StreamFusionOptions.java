package io.streamfusion.runtime.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.TimeUtils;

import java.time.Duration;
import java.util.List;

/** Every configuration key of StreamFusion, with its default and documentation. */
public final class StreamFusionOptions {

    /** What to do when an operator cannot run natively. */
    public enum FallbackMode {
        /** Keep the stock Flink operator and record the reason (default). */
        ALLOW,
        /** Fail the job with the reason: "native" is never silently untrue. */
        FORBID
    }

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("streamfusion.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether StreamFusion replaces supported operators by native ones.");

    public static final ConfigOption<FallbackMode> FALLBACK =
            ConfigOptions.key("streamfusion.fallback")
                    .enumType(FallbackMode.class)
                    .defaultValue(FallbackMode.ALLOW)
                    .withDescription(
                            "'allow' keeps a stock Flink operator where native execution is not "
                                    + "supported (the reason is shown by EXPLAIN); 'forbid' fails "
                                    + "the query instead.");

    public static final ConfigOption<List<String>> EXCLUDED_OPERATORS =
            ConfigOptions.key("streamfusion.operators.excluded")
                    .stringType()
                    .asList()
                    .defaultValues()
                    .withDescription(
                            "Operators kept on Flink although they could run natively, by ExecNode"
                                    + " kind (e.g. 'GlobalGroupAggregate', 'Calc'): isolates a"
                                    + " difference or a slowdown to one operator. EXPLAIN shows"
                                    + " the exclusion as their fallback reason.");

    public static final ConfigOption<Boolean> ISLANDS =
            ConfigOptions.key("streamfusion.islands")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Join native operators on forward edges into one island (one"
                                    + " native pipeline, rows converted once at its entry and once"
                                    + " at its exit). false runs every native operator as an island"
                                    + " of its own: isolates a difference or a slowdown to the"
                                    + " joining.");

    public static final ConfigOption<Integer> BATCH_SIZE =
            ConfigOptions.key("streamfusion.batch.size")
                    .intType()
                    .defaultValue(4096)
                    .withDescription("Rows collected into one batch at a native island's entry.");

    public static final ConfigOption<Duration> BATCH_MAX_DELAY =
            ConfigOptions.key("streamfusion.batch.max-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription(
                            "Longest time a record waits in a partly filled batch before it is "
                                    + "processed (processing time).");

    public static final ConfigOption<Integer> WINDOW_BUFFER_ROWS =
            ConfigOptions.key("streamfusion.window.buffer-rows")
                    .intType()
                    .defaultValue(65536)
                    .withDescription(
                            "Rows a native window aggregation buffers before it combines them into"
                                    + " state; like Flink's window buffer it also combines before"
                                    + " every watermark and checkpoint barrier and at end of"
                                    + " input.");

    /** Where a native event-time window aggregation keeps its windows. */
    public enum WindowState {
        /**
         * NATIVE with the heap (hashmap) backend, STORE with RocksDB (measured faster than Flink's
         * RocksDB state through the state port), FLINK with any other.
         */
        AUTO,
        /** Flink's keyed state and timers, laid out as the stock operator's. */
        FLINK,
        /** Native state and timers, snapshotted into raw keyed state. */
        NATIVE,
        /**
         * As NATIVE, with the slices' accumulators and the timers in a native store on disk
         * (LevelDB) in the TaskManager's local directories; nothing per key in native memory.
         * Legacy group windows and session windows: their Flink states and event-time timers in
         * that store.
         */
        STORE
    }

    public static final ConfigOption<WindowState> WINDOW_STATE =
            ConfigOptions.key("streamfusion.window.state")
                    .enumType(WindowState.class)
                    .defaultValue(WindowState.AUTO)
                    .withDescription(
                            "Where native event-time window aggregations (TUMBLE, HOP, CUMULATE;"
                                + " one-phase or global) keep their windows: FLINK keeps them in"
                                + " Flink keyed state and timers laid out as the stock operator's"
                                + " (savepoints interchangeable with stock Flink); NATIVE keeps"
                                + " them in native memory (bounded by streamfusion.memory.budget)"
                                + " with native timers, snapshotted into Flink raw keyed state by"
                                + " key group; STORE is NATIVE with the windows' accumulators and"
                                + " timers in a native LevelDB store in the TaskManager's local"
                                + " directories, so they may exceed memory (nothing per key stays"
                                + " in memory; the store takes a quarter of"
                                + " streamfusion.memory.budget); AUTO is NATIVE with the hashmap"
                                + " state backend, STORE with RocksDB (measured faster there than"
                                + " Flink's RocksDB state) and FLINK with any other backend."
                                + " Windows with DISTINCT or MIN/MAX maps keep Flink state under"
                                + " AUTO. Legacy group windows and session windows: STORE keeps"
                                + " their states and event-time timers in the native store"
                                + " (checkpoints: raw keyed state; savepoints: Flink's layout),"
                                + " AUTO does so with RocksDB; otherwise, and on processing time,"
                                + " Flink keyed state and timers.");

    /** Where a native group aggregation keeps its state. */
    public enum GroupState {
        /**
         * STORE with the RocksDB backend (measured faster there than Flink's RocksDB state through
         * the port, docs/benchmarks.md), FLINK with any other.
         */
        AUTO,
        /** Flink's keyed state, read and written through the state port, laid out as stock's. */
        FLINK,
        /**
         * The same states in a native store on disk (LevelDB) in the TaskManager's local
         * directories, which serves the state port inside the island.
         */
        STORE
    }

    public static final ConfigOption<GroupState> GROUP_STATE =
            ConfigOptions.key("streamfusion.group.state")
                    .enumType(GroupState.class)
                    .defaultValue(GroupState.AUTO)
                    .withDescription(
                            "Where native group aggregations (GROUP BY without windows; the"
                                + " stateful phase) keep their accumulators and DISTINCT, MIN/MAX"
                                + " and FIRST/LAST_VALUE maps: FLINK in Flink keyed state through"
                                + " the state port, laid out as the stock operator's; STORE in a"
                                + " native LevelDB store in the TaskManager's local directories"
                                + " that spills to disk (checkpoints: its key groups in raw keyed"
                                + " state; savepoints: Flink's layout; its cache takes a quarter of"
                                + " streamfusion.memory.budget; not with state TTL, which keeps"
                                + " Flink state); AUTO is STORE with the RocksDB backend (measured"
                                + " faster there than Flink's RocksDB state through the port) and"
                                + " FLINK with any other.");

    public static final ConfigOption<MemorySize> MEMORY_BUDGET =
            ConfigOptions.key("streamfusion.memory.budget")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256mb"))
                    .withDescription(
                            "Native memory one native operator may hold; exceeding it fails the "
                                    + "job with a clear error. Unless set, native window state "
                                    + "(streamfusion.window.state) may also use the operator's "
                                    + "share of the slot's managed memory when that is larger.");

    public static final ConfigOption<Boolean> BORROWED_STRING_EXIT =
            ConfigOptions.key("streamfusion.experimental.borrowedStringExit")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Experimental: an island's exit hands downstream rows whose bytes,"
                                    + " strings included, stay in the island's native output"
                                    + " memory until its next batch, instead of copying them into"
                                    + " the JVM. Only with object reuse off (pipeline.object-reuse"
                                    + " = false), where Flink copies a row at a chained edge and"
                                    + " serializes it at a network edge before the next batch;"
                                    + " refused with the reason in EXPLAIN otherwise.");

    public static final List<ConfigOption<?>> ALL =
            List.of(
                    ENABLED,
                    FALLBACK,
                    EXCLUDED_OPERATORS,
                    ISLANDS,
                    BATCH_SIZE,
                    BATCH_MAX_DELAY,
                    WINDOW_BUFFER_ROWS,
                    WINDOW_STATE,
                    GROUP_STATE,
                    MEMORY_BUDGET,
                    BORROWED_STRING_EXIT);

    /** The largest batch an island's entry collects, and a window aggregation buffers. */
    public static final int MAX_BATCH_ROWS = 1 << 20;

    /** The longest {@link #BATCH_MAX_DELAY}. */
    public static final Duration MAX_BATCH_DELAY = Duration.ofHours(1);

    /**
     * Checks every {@code streamfusion.*} key of {@code config} (given as {@code keys}, the keys
     * set in the configuration): unknown keys and values outside an option's range are refused with
     * the key, the value and what is allowed, before a job is built from them.
     *
     * @throws IllegalArgumentException naming the first offending key
     */
    public static void validate(ReadableConfig config, Iterable<String> keys) {
        for (String key : keys) {
            if (key.startsWith("streamfusion.")
                    && ALL.stream().noneMatch(option -> option.key().equals(key))) {
                throw new IllegalArgumentException(
                        "Unknown StreamFusion option '"
                                + key
                                + "'; the options are "
                                + ALL.stream().map(ConfigOption::key).toList());
            }
        }
        checkRange(BATCH_SIZE, config.get(BATCH_SIZE), 1, MAX_BATCH_ROWS);
        checkRange(WINDOW_BUFFER_ROWS, config.get(WINDOW_BUFFER_ROWS), 1, MAX_BATCH_ROWS);
        Duration delay = config.get(BATCH_MAX_DELAY);
        if (delay.toMillis() < 1 || delay.compareTo(MAX_BATCH_DELAY) > 0) {
            throw outOfRange(
                    BATCH_MAX_DELAY,
                    TimeUtils.formatWithHighestUnit(delay),
                    "from 1 ms to " + MAX_BATCH_DELAY.toHours() + " h");
        }
        MemorySize budget = config.get(MEMORY_BUDGET);
        if (budget.getBytes() < 1) {
            throw outOfRange(MEMORY_BUDGET, budget, "of at least 1 byte (there is no unlimited)");
        }
    }

    private static void checkRange(ConfigOption<Integer> option, int value, int min, int max) {
        if (value < min || value > max) {
            throw outOfRange(option, value, "from " + min + " to " + max);
        }
    }

    private static IllegalArgumentException outOfRange(
            ConfigOption<?> option, Object value, String allowed) {
        return new IllegalArgumentException(
                "Invalid value '"
                        + value
                        + "' for StreamFusion option '"
                        + option.key()
                        + "': allowed are values "
                        + allowed);
    }

    private StreamFusionOptions() {}
}
