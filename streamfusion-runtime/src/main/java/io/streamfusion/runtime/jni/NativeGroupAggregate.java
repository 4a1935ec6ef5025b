package io.streamfusion.runtime.jni;

import javax.annotation.Nullable;

/**
 * Owns one native group aggregation (a GroupAggregateNode plan compiled by the engine) and frees
 * it on {@link #close()}. Each call hands over Java arrays and copies results back; see {@link
 * NativeLib} for the protocol of each step.
 */
public final class NativeGroupAggregate implements AutoCloseable {

    /** The distinct grouping keys of a prepared batch, in order of first appearance. */
    public static final class Keys {
        public final int count;
        public final byte[] bytes;
        public final int[] offsets;

        private Keys(int count, int bytes) {
            this.count = count;
            this.bytes = new byte[bytes];
            this.offsets = new int[count + 1];
        }
    }

    private long handle;

    public NativeGroupAggregate(byte[] plan, long memoryBudgetBytes) {
        this.handle = NativeLib.createGroupAggregate(plan, memoryBudgetBytes);
    }

    private long handle() {
        if (handle == 0) {
            throw new IllegalStateException("Native group aggregation used after close");
        }
        return handle;
    }

    /** Step 1: decodes the rows and finds their distinct keys. */
    public Keys prepare(byte[] rows, int[] offsets, int numRows) {
        long h = handle();
        long prepared = NativeLib.groupAggregatePrepare(h, rows, offsets, numRows);
        Keys keys = new Keys((int) prepared, (int) (prepared >>> 32));
        NativeLib.groupAggregateCopyKeys(h, keys.bytes, keys.offsets);
        return keys;
    }

    /** See {@link NativeLib#groupAggregateLookupSizes}. */
    public void lookupSizes(int[] sizes) {
        NativeLib.groupAggregateLookupSizes(handle(), sizes);
    }

    /** See {@link NativeLib#groupAggregateCopyLookups}. */
    public void copyLookups(int[] keys, int[] maps, byte[] values, int[] offsets) {
        NativeLib.groupAggregateCopyLookups(handle(), keys, maps, values, offsets);
    }

    /** Step 2 (see {@link NativeLib#groupAggregateProcess}). */
    public void process(
            byte[] accs,
            int[] accOffsets,
            @Nullable long[] distinctValues,
            @Nullable byte[] distinctPresent,
            int[] sizes) {
        NativeLib.groupAggregateProcess(
                handle(), accs, accOffsets, distinctValues, distinctPresent, sizes);
    }

    /** See {@link NativeLib#groupAggregateCopyOutput}. */
    public void copyOutput(
            byte[] rows,
            int[] offsets,
            int[] sourceRows,
            byte[] accs,
            int[] accOffsets,
            byte[] actions,
            @Nullable int[] updatedLookups,
            @Nullable long[] updatedValues) {
        NativeLib.groupAggregateCopyOutput(
                handle(),
                rows,
                offsets,
                sourceRows,
                accs,
                accOffsets,
                actions,
                updatedLookups,
                updatedValues);
    }

    public long memoryBytes() {
        return handle == 0 ? 0 : NativeLib.groupAggregateMemoryBytes(handle);
    }

    @Override
    public void close() {
        if (handle != 0) {
            NativeLib.closeGroupAggregate(handle);
            handle = 0;
        }
    }
}
