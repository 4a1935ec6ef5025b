package io.streamfusion.runtime.jni;

import javax.annotation.Nullable;

/**
 * Every native method of StreamFusion. The entry points live in
 * native/src/streamfusion/jni/jni_entry.cc; each turns a native failure into a {@link
 * NativeException}. Handles are owned by one {@link AutoCloseable} Java object each.
 */
public final class NativeLib {
    static {
        NativeLibraryLoader.load();
    }

    private NativeLib() {}

    /** Forces the library to load (and fail early with a clear message if it cannot). */
    public static void ensureLoaded() {}

    public static native String version();

    /** The native function registry: one line per function, "name TAB signature TAB doc". */
    public static native String listFunctions();

    /** Bytes held by every native memory pool of this process. */
    public static native long globalMemoryBytes();

    /**
     * JNI crossings of this process's operator work so far: calls of the natives below (not of this
     * one, the version, planning and memory gauges) and up-calls into the JVM from a batch (UDFs,
     * java.lang.Math, Flink's text formats and parsers).
     */
    public static native long jniCrossings();

    /**
     * Compiles a serialized {@code streamfusion.plan.Plan} and discards it: null when the engine
     * supports it, otherwise the reason it does not.
     */
    public static native String validatePlan(byte[] plan);

    /**
     * Compiles a serialized {@code streamfusion.plan.Plan}; returns the pipeline handle. {@code
     * udfBridge} (an {@link io.streamfusion.runtime.udf.UdfBridge}) runs the plan's user-defined
     * functions; null when the plan has none.
     */
    public static native long createPipeline(
            byte[] plan, long memoryBudgetBytes, @Nullable Object udfBridge);

    /**
     * Runs {@code numRows} BinaryRowData images ({@code rows[offsets[i] .. offsets[i+1])}) through
     * the pipeline, with {@code times[i]} the time of row i where an operator takes one per row (a
     * processing-time session window: each row's arrival; null otherwise). Returns {@code
     * (outputBytes << 32) | outputRows}; fetch the output with {@link #copyOutput} before the next
     * call.
     */
    public static native long processRows(
            long handle, byte[] rows, int[] offsets, int numRows, @Nullable long[] times);

    /**
     * Flushes the island: each operator in order hands out what it buffers (a local window phase
     * its partial accumulators), which runs through the operators after it. Returns {@code
     * (outputBytes << 32) | outputRows} as {@link #processRows}; no output row has a source row.
     */
    public static native long flushPipeline(long handle);

    /**
     * Event time advances to {@code watermark} in the island: each operator in order fires what is
     * due, which runs through the operators after it. Returns {@code (outputBytes << 32) |
     * outputRows} as {@link #processRows}; no output row has a source row.
     */
    public static native long advanceEventTime(long handle, long watermark);

    /**
     * A processing-time timer fired at {@code now} in the island (the periodic timer of its
     * watermark assigner): each operator in order fires what is due, which runs through the
     * operators after it. Returns {@code (outputBytes << 32) | outputRows} as {@link #processRows}.
     */
    public static native long advanceProcessingTime(long handle, long now);

    /** The upstream watermark status (idle or active) of the island's watermark assigner. */
    public static native void watermarkStatus(long handle, boolean idle);

    /**
     * The watermarks that leave the island with the output of the last call, as pairs (output rows
     * before it, watermark); null when there are none.
     */
    @Nullable
    public static native long[] takeWatermarks(long handle);

    /**
     * The state the island's operators keep themselves, for a checkpoint: int32 sections, then per
     * section int32 key group, int32 length and its bytes (ascending key groups; little-endian).
     */
    public static native byte[] snapshotPipeline(long handle);

    /** Adds one key group's section of a {@link #snapshotPipeline} to the island, before input. */
    public static native void restorePipeline(long handle, int keyGroup, byte[] section);

    /** Rows the island's operators dropped as late since the last call. */
    public static native long lateRowsDropped(long handle);

    /**
     * {@link #processRows} and {@link #flushPipeline} return this when the island's state port has
     * a message: take it with {@link #exchangeState}.
     */
    public static final long STATE_PENDING = Long.MIN_VALUE;

    /**
     * Set (bit 31, above any output row count) in the result of a call after which watermarks leave
     * the island with its output: take them with {@link #takeWatermarks}.
     */
    public static final long WATERMARKS_PENDING = 1L << 31;

    /**
     * The island's state message, after {@code answers} (the answers to the reads of the last
     * message, or null for a call's first message) let its blocked operator go on: int32 status (1:
     * reads wait for answers, 0: done), when done the output's int32 rows and int32 bytes (fetched
     * with {@link #copyOutput}), then the message the JVM serves with a {@link
     * io.streamfusion.runtime.state.KeyedStatePort}.
     */
    public static native byte[] exchangeState(long handle, byte[] answers);

    /**
     * Copies the last output: row images into {@code rows}, outputRows + 1 offsets, and when {@code
     * sourceRows} is not null the input row each output row came from.
     */
    public static native void copyOutput(
            long handle, byte[] rows, int[] offsets, @Nullable int[] sourceRows);

    /**
     * Runs one Arrow batch given through the C Data Interface (addresses of ArrowArray and
     * ArrowSchema structs; the input is consumed) and exports the result into the output structs.
     */
    public static native void processArrow(
            long handle, long inArray, long inSchema, long outArray, long outSchema);

    /** Native bytes held by one pipeline (its pool and output buffer). */
    public static native long pipelineMemoryBytes(long handle);

    public static native void closePipeline(long handle);

    /**
     * Writes to {@code keyGroups} the key group of each of {@code numRows} BinaryRowData images of
     * {@code rowType} (a serialized plan RowType) keyed by {@code keyFields}, computed natively as
     * Flink's KeyGroupRangeAssignment computes it for the key row its key selector builds.
     */
    public static native void keyGroups(
            byte[] rowType,
            byte[] rows,
            int[] offsets,
            int numRows,
            int[] keyFields,
            int maxParallelism,
            int[] keyGroups);

    /** Compiles a serialized plan holding one WindowAggregateNode; returns its handle. */
    public static native long createWindowAggregate(byte[] plan, long memoryBudgetBytes);

    /**
     * Step 1 of a window batch at watermark (event time) or shifted processing time {@code time}:
     * assigns slices, drops late rows and groups the rest by (key, slice). Writes the number of
     * groups, their key bytes and the dropped rows to {@code sizes}.
     */
    public static native void windowAggregatePrepare(
            long handle, byte[] rows, int[] offsets, int numRows, long time, long[] sizes);

    /** The groups: key images, state namespaces and late rows' timers (MIN_VALUE: none). */
    public static native void windowAggregateCopyGroups(
            long handle, byte[] keys, int[] offsets, long[] namespaces, long[] lateTimers);

    /**
     * Step 2: accumulates each group's rows into its accumulator image from state ({@code
     * accs[accOffsets[g] .. accOffsets[g+1])}, empty when none). Returns the bytes of the new
     * accumulators, fetched with {@link #windowAggregateCopyAccs}.
     */
    public static native int windowAggregateCombine(
            long handle,
            byte[] accs,
            int[] accOffsets,
            @Nullable long[] distinctValues,
            @Nullable byte[] distinctPresent);

    /**
     * With DISTINCT aggregates: the prepared batch's distinct-map lookups, the group, map and value
     * image ({@code values[offsets[p] .. offsets[p+1])}) of each; with {@code groups} null, writes
     * their number and the bytes of the images to {@code sizes} instead.
     */
    public static native void windowAggregateLookups(
            long handle,
            int[] sizes,
            @Nullable int[] groups,
            @Nullable int[] maps,
            @Nullable byte[] values,
            @Nullable int[] offsets);

    /**
     * A HOP or CUMULATE window aggregation with DISTINCT aggregates, before {@link
     * #windowAggregateFire}: the entries of the fired windows' slice maps in the order Flink's
     * merge visits them; entry e of fire {@code fireOf[e]} and map {@code mapOf[e]}, bitmask {@code
     * masks[e]}, value a one-field row image ({@code images[offsets[e] .. offsets[e+1])}). CUMULATE
     * (the current slice's map merging into the first slice's) also passes each entry's value in
     * the first slice's map: {@code bases[e]} where {@code basePresent[e]} is 1. The maps of
     * MIN/MAX over an updating input follow the DISTINCT maps (a count per entry); for HOP {@code
     * slices[e]} is then each entry's slice, latest first (null otherwise).
     */
    public static native void windowAggregateSetFireEntries(
            long handle,
            int[] fireOf,
            int[] mapOf,
            long[] masks,
            int count,
            byte[] images,
            int[] offsets,
            @Nullable long[] bases,
            @Nullable byte[] basePresent,
            @Nullable int[] slices);

    /**
     * MIN/MAX over an updating input, after {@link #windowAggregateCombine} or {@link
     * #windowAggregateFire}: returns the number of whole maps a rescan needs (the step is then not
     * done) and, when {@code groups} is not null, copies each one's group (for a fire: the fire)
     * and map.
     */
    public static native int windowAggregateWholeMaps(
            long handle, @Nullable int[] groups, @Nullable int[] maps);

    /**
     * Every entry of the maps {@link #windowAggregateWholeMaps} asked for: entry i of request
     * {@code requestOf[i]}, its value a one-field row image ({@code images[offsets[i] ..
     * offsets[i+1])}) and its count {@code counts[i]}; the step then runs again.
     */
    public static native void windowAggregateSupplyWholeMaps(
            long handle, int[] requestOf, int count, byte[] images, int[] offsets, long[] counts);

    /**
     * After a {@link #windowAggregateFire} of CUMULATE windows with DISTINCT aggregates: each fire
     * entry's value in its first slice's map, and 1 in {@code writes} where Flink puts it there.
     */
    public static native void windowAggregateMergedEntries(
            long handle, long[] values, byte[] writes);

    /**
     * After {@link #windowAggregateCombine} with DISTINCT aggregates: returns the number of changed
     * map entries and, when {@code lookups} is not null, copies them (lookup p) with their new
     * bitmasks.
     */
    public static native int windowAggregateUpdated(
            long handle, @Nullable int[] lookups, @Nullable long[] values);

    public static native void windowAggregateCopyAccs(long handle, byte[] accs, int[] offsets);

    /**
     * Fires windows: fire f has a key image, a window end and the window's slice accumulator images
     * (slices per window of them, an empty range for none). Writes to {@code sizes} the output rows
     * and their bytes (fetched with {@link #windowAggregateCopyOutput}) and the bytes of a
     * cumulative window's merged accumulators (fetched with {@link #windowAggregateCopyAccs}, one
     * per fire; 0 for other windows).
     */
    public static native void windowAggregateFire(
            long handle,
            byte[] keys,
            int[] keyOffsets,
            long[] windowEnds,
            int numFires,
            byte[] accs,
            int[] accOffsets,
            int[] sizes);

    public static native void windowAggregateCopyOutput(long handle, byte[] rows, int[] offsets);

    public static native long windowAggregateMemoryBytes(long handle);

    public static native void closeWindowAggregate(long handle);
}
