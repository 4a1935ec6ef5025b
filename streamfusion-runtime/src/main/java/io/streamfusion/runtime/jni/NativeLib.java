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

    /** The native function registry: one line per function, "name TAB signature TAB doc". */
    public static native String listFunctions();

    /** Bytes held by every native memory pool of this process. */
    public static native long globalMemoryBytes();

    /**
     * JNI crossings of this process's operator work so far: calls of the natives below (not of this
     * one, the function list, planning and memory gauges) and up-calls into the JVM from a batch
     * (UDFs, java.lang.Math, Flink's text formats and parsers).
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

    /**
     * The island's port store (Plan.port_store) as state port messages of writes, or with {@code
     * clears} of clears, each of about {@code messageBytes} at most, handed to {@code sink} in
     * turn: its state in Flink's layout for a savepoint, and removed again after it.
     */
    public static native void exportStore(
            long handle,
            boolean clears,
            int messageBytes,
            java.util.function.Consumer<byte[]> sink);

    /** Applies a state port message of writes to the island's port store. */
    public static native void importStore(long handle, byte[] message);

    /** Rows the island's operators dropped as late since the last call. */
    public static native long lateRowsDropped(long handle);

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
     * sourceRows} is not null the input row each output row came from. With {@code rows} null the
     * row images are not copied: the result is a direct buffer over them in the island's memory,
     * valid until the island's next call (the borrowed exit); else null.
     */
    @Nullable
    public static native java.nio.ByteBuffer copyOutput(
            long handle, @Nullable byte[] rows, int[] offsets, @Nullable int[] sourceRows);

    /** Native bytes held by one pipeline (its pool and output buffer). */
    public static native long pipelineMemoryBytes(long handle);

    public static native void closePipeline(long handle);
}
