package io.streamfusion.runtime.window;

import io.streamfusion.runtime.jni.NativeHandle;
import io.streamfusion.runtime.jni.NativeLib;

import javax.annotation.Nullable;

/**
 * Owns one native window aggregation (a WindowAggregateNode plan compiled by the engine) and frees
 * it on {@link #close()}. Each call hands over Java arrays and copies results back; see {@link
 * NativeLib} for the protocol of each step.
 */
public final class NativeWindowAggregate extends NativeHandle implements WholeMapSteps {

    /** Result of {@link #prepare}: the groups of a batch and the rows dropped as late. */
    public static final class Groups {
        public final int count;
        public final byte[] keyBytes;
        public final int[] keyOffsets;
        public final long[] namespaces;
        public final long[] lateTimers;
        public final long dropped;

        private Groups(int count, int keyBytes, long dropped) {
            this.count = count;
            this.keyBytes = new byte[keyBytes];
            this.keyOffsets = new int[count + 1];
            this.namespaces = new long[count];
            this.lateTimers = new long[count];
            this.dropped = dropped;
        }
    }

    /** No timer for a group (all its rows arrived in time). */
    public static final long NO_TIMER = Long.MIN_VALUE;

    private final long[] sizes = new long[3];

    public NativeWindowAggregate(byte[] plan, long memoryBudgetBytes) {
        super(
                NativeLib.createWindowAggregate(plan, memoryBudgetBytes),
                "Native window aggregation");
    }

    /** Step 1: assigns slices at watermark or shifted processing time {@code time}, groups rows. */
    public Groups prepare(byte[] rows, int[] offsets, int numRows, long time) {
        long h = handle();
        NativeLib.windowAggregatePrepare(h, rows, offsets, numRows, time, sizes);
        Groups groups = new Groups((int) sizes[0], (int) sizes[1], sizes[2]);
        NativeLib.windowAggregateCopyGroups(
                h, groups.keyBytes, groups.keyOffsets, groups.namespaces, groups.lateTimers);
        return groups;
    }

    /**
     * Step 2: accumulates the groups' rows into their accumulators from state; fills {@code
     * newOffsets} (groups + 1 entries) and returns the new accumulator images.
     */
    public byte[] combine(byte[] accs, int[] accOffsets, int[] newOffsets) {
        return combine(accs, accOffsets, null, null, newOffsets);
    }

    /**
     * As {@link #combine(byte[], int[], int[])}, with DISTINCT aggregates: {@code
     * distinctValues[p]} is lookup p's bitmask where {@code distinctPresent[p]} is 1.
     */
    public byte[] combine(
            byte[] accs,
            int[] accOffsets,
            long[] distinctValues,
            byte[] distinctPresent,
            int[] newOffsets) {
        long h = handle();
        int bytes =
                NativeLib.windowAggregateCombine(
                        h, accs, accOffsets, distinctValues, distinctPresent);
        if (wholeMapRequests(null, null) > 0) {
            return null;
        }
        byte[] out = new byte[bytes];
        NativeLib.windowAggregateCopyAccs(h, out, newOffsets);
        return out;
    }

    /**
     * The whole MIN/MAX maps a {@link #combine} or {@link #fire} that returned null needs: each
     * request's group (or fire) and map.
     */
    public static final class WholeMaps {
        public final int[] groups;
        public final int[] maps;

        WholeMaps(int count) {
            groups = new int[count];
            maps = new int[count];
        }
    }

    @Override
    public int wholeMapRequests(@Nullable int[] groups, @Nullable int[] maps) {
        return NativeLib.windowAggregateWholeMaps(handle(), groups, maps);
    }

    /** The entries of {@link #wholeMaps}: see {@link NativeLib#windowAggregateSupplyWholeMaps}. */
    @Override
    public void supplyWholeMaps(
            int[] requestOf, int count, byte[] images, int[] offsets, long[] counts) {
        NativeLib.windowAggregateSupplyWholeMaps(
                handle(), requestOf, count, images, offsets, counts);
    }

    /** The distinct-map entries of a batch: group, map and value image of each. */
    public static final class Lookups {
        public final int[] groups;
        public final int[] maps;
        public final byte[] values;
        public final int[] offsets;

        private Lookups(int count, int bytes) {
            groups = new int[count];
            maps = new int[count];
            values = new byte[bytes];
            offsets = new int[count + 1];
        }

        /** A native call copying lookups; with {@code groups} null only their sizes. */
        interface Copy {
            void copy(int[] sizes, int[] groups, int[] maps, byte[] values, int[] offsets);
        }

        static Lookups read(Copy copy) {
            int[] counts = new int[2];
            copy.copy(counts, null, null, null, null);
            Lookups lookups = new Lookups(counts[0], counts[1]);
            copy.copy(counts, lookups.groups, lookups.maps, lookups.values, lookups.offsets);
            return lookups;
        }
    }

    /** With DISTINCT aggregates, after {@link #prepare}: the lookups the batch needs. */
    public Lookups lookups() {
        long h = handle();
        return Lookups.read(
                (sizes, groups, maps, values, offsets) ->
                        NativeLib.windowAggregateLookups(h, sizes, groups, maps, values, offsets));
    }

    /**
     * The distinct-map entries a combine changed: lookup p to put (its new value) or, as ~p, to
     * remove (a count back at 0).
     */
    public static final class Updated {
        public final int[] lookups;
        public final long[] values;

        private Updated(int count) {
            lookups = new int[count];
            values = new long[count];
        }

        /** A native call copying the entries unless {@code lookups} is null; their number. */
        interface Copy {
            int copy(int[] lookups, long[] values);
        }

        static Updated read(Copy copy) {
            Updated updated = new Updated(copy.copy(null, null));
            copy.copy(updated.lookups, updated.values);
            return updated;
        }
    }

    /** After a combine with DISTINCT aggregates: the map entries to write. */
    public Updated updated() {
        long h = handle();
        return Updated.read(
                (lookups, values) -> NativeLib.windowAggregateUpdated(h, lookups, values));
    }

    /** Before a {@link #fire} of HOP windows with DISTINCT aggregates: their slices' entries. */
    public void setFireEntries(
            int[] fireOf,
            int[] mapOf,
            long[] masks,
            int count,
            byte[] images,
            int[] offsets,
            @Nullable long[] bases,
            @Nullable byte[] basePresent,
            @Nullable int[] slices) {
        NativeLib.windowAggregateSetFireEntries(
                handle(), fireOf, mapOf, masks, count, images, offsets, bases, basePresent, slices);
    }

    /** See {@link NativeLib#windowAggregateMergedEntries}. */
    public void mergedEntries(long[] values, byte[] writes) {
        NativeLib.windowAggregateMergedEntries(handle(), values, writes);
    }

    /** The result of {@link #fire}. */
    public static final class Fired {
        public final int rows;
        public final byte[] bytes;
        public final int[] offsets;

        /** A cumulative window's merged accumulator per fire (its first slice's new state). */
        public final byte[] accs;

        public final int[] accOffsets;

        private Fired(int rows, int bytes, int accBytes, int fires) {
            this.rows = rows;
            this.bytes = new byte[bytes];
            this.offsets = new int[rows + 1];
            this.accs = new byte[accBytes];
            this.accOffsets = new int[accBytes > 0 ? fires + 1 : 1];
        }
    }

    /**
     * Fires {@code numFires} windows (see {@link NativeLib#windowAggregateFire}); null when a
     * rescan needs whole maps first ({@link #wholeMaps}).
     */
    public Fired fire(
            byte[] keys,
            int[] keyOffsets,
            long[] windowEnds,
            int numFires,
            byte[] accs,
            int[] accOffsets) {
        long h = handle();
        int[] fireSizes = new int[3];
        NativeLib.windowAggregateFire(
                h, keys, keyOffsets, windowEnds, numFires, accs, accOffsets, fireSizes);
        if (wholeMapRequests(null, null) > 0) {
            return null;
        }
        Fired fired = new Fired(fireSizes[0], fireSizes[1], fireSizes[2], numFires);
        NativeLib.windowAggregateCopyOutput(h, fired.bytes, fired.offsets);
        if (fireSizes[2] > 0) {
            NativeLib.windowAggregateCopyAccs(h, fired.accs, fired.accOffsets);
        }
        return fired;
    }

    @Override
    protected long memoryBytes(long handle) {
        return NativeLib.windowAggregateMemoryBytes(handle);
    }

    @Override
    protected void free(long handle) {
        NativeLib.closeWindowAggregate(handle);
    }
}
