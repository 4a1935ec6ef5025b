package io.streamfusion.runtime;

import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.state.KeyedStatePort;
import io.streamfusion.runtime.udf.UdfBridge;

import javax.annotation.Nullable;

/** Owns one native pipeline handle (an island's compiled operators). */
public final class NativePipeline implements AutoCloseable {
    private long handle;

    public NativePipeline(byte[] plan, long memoryBudgetBytes) {
        this(plan, memoryBudgetBytes, null);
    }

    /** A pipeline whose plan calls user-defined functions, which {@code udfs} runs. */
    public NativePipeline(byte[] plan, long memoryBudgetBytes, @Nullable UdfBridge udfs) {
        this.handle = NativeLib.createPipeline(plan, memoryBudgetBytes, udfs);
    }

    /** See {@link NativeLib#processRows}. */
    public long processRows(byte[] rows, int[] offsets, int numRows) {
        return NativeLib.processRows(checkedHandle(), rows, offsets, numRows, null);
    }

    /** See {@link NativeLib#processRows}: with a time per row. */
    public long processRows(byte[] rows, int[] offsets, int numRows, long[] times) {
        return NativeLib.processRows(checkedHandle(), rows, offsets, numRows, times);
    }

    /** See {@link NativeLib#flushPipeline}. */
    public long flush() {
        return NativeLib.flushPipeline(checkedHandle());
    }

    /**
     * Serves the state messages of a call that returned {@link CallResult#STATE_PENDING}: answers
     * the reads of the island's blocked operator until it is done, and applies its writes. Returns
     * {@code (outputBytes << 32) | outputRows} as the call would have.
     */
    public long serveState(KeyedStatePort port) throws Exception {
        byte[] answers = null;
        while (true) {
            byte[] message = exchangeState(answers);
            if (readInt(message, 0) == 0) {
                port.serve(message, 12);
                return ((long) readInt(message, 8) << 32) | (readInt(message, 4) & 0xffffffffL);
            }
            answers = port.serve(message, 4);
            if (answers == null) {
                throw new IllegalStateException("A native operator blocked without state reads");
            }
        }
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xff)
                | (b[at + 1] & 0xff) << 8
                | (b[at + 2] & 0xff) << 16
                | (b[at + 3] & 0xff) << 24;
    }

    /** See {@link NativeLib#advanceEventTime}. */
    public long advanceEventTime(long watermark) {
        return NativeLib.advanceEventTime(checkedHandle(), watermark);
    }

    /** See {@link NativeLib#advanceProcessingTime}. */
    public long advanceProcessingTime(long now) {
        return NativeLib.advanceProcessingTime(checkedHandle(), now);
    }

    /** See {@link NativeLib#watermarkStatus}. */
    public void watermarkStatus(boolean idle) {
        NativeLib.watermarkStatus(checkedHandle(), idle);
    }

    /** See {@link NativeLib#takeWatermarks}. */
    @Nullable
    public long[] takeWatermarks() {
        return NativeLib.takeWatermarks(checkedHandle());
    }

    /** The state the island's operators keep themselves: one section per key group with state. */
    public static final class Snapshot {
        public final byte[] bytes;
        public final int[] keyGroups;

        /** Section i is {@code bytes[offsets[i], offsets[i + 1])}. */
        public final int[] offsets;

        Snapshot(byte[] message) {
            int sections = readInt(message, 0);
            keyGroups = new int[sections];
            offsets = new int[sections + 1];
            bytes = new byte[message.length - 4 - 8 * sections];
            int at = 4;
            int out = 0;
            for (int i = 0; i < sections; i++) {
                keyGroups[i] = readInt(message, at);
                int length = readInt(message, at + 4);
                at += 8;
                offsets[i] = out;
                System.arraycopy(message, at, bytes, out, length);
                at += length;
                out += length;
            }
            offsets[sections] = out;
        }
    }

    /** See {@link NativeLib#snapshotPipeline}. */
    public Snapshot snapshot() {
        return new Snapshot(NativeLib.snapshotPipeline(checkedHandle()));
    }

    /** See {@link NativeLib#restorePipeline}. */
    public void restore(int keyGroup, byte[] section) {
        NativeLib.restorePipeline(checkedHandle(), keyGroup, section);
    }

    /** See {@link NativeLib#exportStore}. */
    public void exportStore(
            boolean clears, int messageBytes, java.util.function.Consumer<byte[]> sink) {
        NativeLib.exportStore(checkedHandle(), clears, messageBytes, sink);
    }

    /** See {@link NativeLib#importStore}. */
    public void importStore(byte[] message) {
        NativeLib.importStore(checkedHandle(), message);
    }

    /** See {@link NativeLib#lateRowsDropped}. */
    public long lateRowsDropped() {
        return NativeLib.lateRowsDropped(checkedHandle());
    }

    /** See {@link NativeLib#exchangeState}. */
    public byte[] exchangeState(@Nullable byte[] answers) {
        return NativeLib.exchangeState(checkedHandle(), answers);
    }

    public void copyOutput(byte[] rows, int[] offsets, @Nullable int[] sourceRows) {
        NativeLib.copyOutput(checkedHandle(), rows, offsets, sourceRows);
    }

    /**
     * The last output's row images where the island keeps them (valid until this pipeline's next
     * call), with the offsets and source rows copied as {@link #copyOutput} copies them.
     */
    public java.nio.ByteBuffer borrowOutput(int[] offsets, @Nullable int[] sourceRows) {
        return NativeLib.copyOutput(checkedHandle(), null, offsets, sourceRows);
    }

    public long memoryBytes() {
        return handle == 0 ? 0 : NativeLib.pipelineMemoryBytes(handle);
    }

    private long checkedHandle() {
        if (handle == 0) {
            throw new IllegalStateException("Native pipeline used after close");
        }
        return handle;
    }

    @Override
    public void close() {
        if (handle != 0) {
            NativeLib.closePipeline(handle);
            handle = 0;
        }
    }
}
