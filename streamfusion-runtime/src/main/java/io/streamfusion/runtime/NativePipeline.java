package io.streamfusion.runtime;

import io.streamfusion.runtime.jni.NativeLib;
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
        return NativeLib.processRows(checkedHandle(), rows, offsets, numRows);
    }

    /** See {@link NativeLib#flushPipeline}. */
    public long flush() {
        return NativeLib.flushPipeline(checkedHandle());
    }

    public void copyOutput(byte[] rows, int[] offsets, @Nullable int[] sourceRows) {
        NativeLib.copyOutput(checkedHandle(), rows, offsets, sourceRows);
    }

    public void processArrow(long inArray, long inSchema, long outArray, long outSchema) {
        NativeLib.processArrow(checkedHandle(), inArray, inSchema, outArray, outSchema);
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
