package io.streamfusion.runtime.jni;

import javax.annotation.Nullable;

/**
 * Owns one native group aggregation (a GroupAggregateNode plan compiled by the engine) and frees it
 * on {@link #close()}. Each call hands over Java arrays and copies results back; see {@link
 * NativeLib} for the protocol of each step.
 */
public final class NativeGroupAggregate extends NativeHandle {

    public NativeGroupAggregate(byte[] plan, long memoryBudgetBytes) {
        super(NativeLib.createGroupAggregate(plan, memoryBudgetBytes), "Native group aggregation");
    }

    /** Step 1: decodes the rows and finds their distinct keys. */
    public KeyImages prepare(byte[] rows, int[] offsets, int numRows) {
        long h = handle();
        long prepared = NativeLib.groupAggregatePrepare(h, rows, offsets, numRows);
        KeyImages keys = new KeyImages((int) prepared, (int) (prepared >>> 32));
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

    /** See {@link NativeLib#groupAggregateCopyMapRequests}. */
    public void copyMapRequests(int[] keys, int[] maps) {
        NativeLib.groupAggregateCopyMapRequests(handle(), keys, maps);
    }

    /** See {@link NativeLib#groupAggregateSupplyMaps}. */
    public void supplyMaps(int[] requestOf, int count, byte[] images, int[] offsets) {
        NativeLib.groupAggregateSupplyMaps(handle(), requestOf, count, images, offsets);
    }

    /** See {@link NativeLib#groupAggregateOrderSizes}. */
    public void orderSizes(int[] sizes) {
        NativeLib.groupAggregateOrderSizes(handle(), sizes);
    }

    /** See {@link NativeLib#groupAggregateCopyOrderEntries}. */
    public void copyOrderEntries(
            byte[] kinds,
            int[] keys,
            int[] maps,
            long[] orders,
            int[] lengths,
            long[] longs,
            byte[] images,
            int[] imageOffsets) {
        NativeLib.groupAggregateCopyOrderEntries(
                handle(), kinds, keys, maps, orders, lengths, longs, images, imageOffsets);
    }

    /** See {@link NativeLib#groupAggregateSupplyOrderEntries}. */
    public void supplyOrderEntries(
            int count,
            int[] requestOf,
            long[] orders,
            int[] lengths,
            long[] longs,
            int numLongs,
            byte[] images,
            int[] imageOffsets,
            int numImages) {
        NativeLib.groupAggregateSupplyOrderEntries(
                handle(),
                count,
                requestOf,
                orders,
                lengths,
                longs,
                numLongs,
                images,
                imageOffsets,
                numImages);
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

    @Override
    long memoryBytes(long handle) {
        return NativeLib.groupAggregateMemoryBytes(handle);
    }

    @Override
    void free(long handle) {
        NativeLib.closeGroupAggregate(handle);
    }
}
