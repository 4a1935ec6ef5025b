package io.streamfusion.runtime.window;

import io.streamfusion.runtime.jni.NativeHandle;
import io.streamfusion.runtime.jni.NativeLib;

import javax.annotation.Nullable;

/**
 * Owns one native session window aggregation (a SessionWindowAggregateNode plan compiled by the
 * engine) and frees it on {@link #close()}. Each call hands over Java arrays and copies results
 * back; see {@link NativeLib} for the protocol of each step.
 */
public final class NativeSessionWindowAggregate extends NativeHandle implements WholeMapSteps {

    /** Longs per group: key, window start, end, state start, state end, reads from, to, own. */
    public static final int GROUP_WIDTH = 8;

    /** Longs per removed mapping entry: key, window start, end. */
    public static final int REMOVED_WIDTH = 3;

    /** Longs per added mapping entry: key, window start, end, state start, state end. */
    public static final int ADDED_WIDTH = 5;

    /** Longs per state window merged away: key, state start, state end. */
    public static final int CLEARED_WIDTH = 3;

    /** The net change of a batch to the keys' windows (see NativeLib#sessionWindowMerge). */
    public static final class Change {
        public final long[] groups;
        public final long[] reads;
        public final long[] removed;
        public final long[] added;
        public final long[] cleared;
        public final long dropped;

        private Change(long[] sizes) {
            this.groups = new long[(int) sizes[0]];
            this.reads = new long[(int) sizes[1]];
            this.removed = new long[(int) sizes[2]];
            this.added = new long[(int) sizes[3]];
            this.cleared = new long[(int) sizes[4]];
            this.dropped = sizes[5];
        }

        public int groupCount() {
            return groups.length / GROUP_WIDTH;
        }
    }

    private final long[] sizes = new long[6];

    public NativeSessionWindowAggregate(byte[] plan, long memoryBudgetBytes) {
        super(
                NativeLib.createSessionWindowAggregate(plan, memoryBudgetBytes),
                "Native session window aggregation");
    }

    /** Step 1: groups the rows by key. */
    public KeyImages prepare(byte[] rows, int[] offsets, int numRows) {
        long h = handle();
        int count = NativeLib.sessionWindowPrepare(h, rows, offsets, numRows);
        KeyImages keys = new KeyImages(count, NativeLib.sessionWindowKeyBytes(h));
        NativeLib.sessionWindowCopyKeys(h, keys.bytes, keys.offsets);
        return keys;
    }

    /**
     * Step 2: merges the rows into the keys' in-flight windows at {@code watermark}; on processing
     * time the rows' arrival times are {@code rowTimes} (null on event time).
     */
    public Change merge(
            long[] windows,
            int[] windowOffsets,
            long watermark,
            @Nullable long[] rowTimes,
            int numRows) {
        long h = handle();
        NativeLib.sessionWindowMerge(
                h, windows, windowOffsets, watermark, rowTimes, numRows, sizes);
        Change change = new Change(sizes);
        NativeLib.sessionWindowCopyMerge(
                h, change.groups, change.reads, change.removed, change.added, change.cleared);
        return change;
    }

    /**
     * Step 3: the groups' new accumulators; fills {@code newOffsets} (groups + 1 entries). With
     * DISTINCT or MIN/MAX maps {@code distinctValues[p]} is lookup p's value where {@code
     * distinctPresent[p]} is 1 (null without). Null when a MIN/MAX rescan needs whole maps first
     * ({@link #wholeMaps}): supply them and combine again.
     */
    public @Nullable byte[] combine(
            byte[] accs,
            int[] accOffsets,
            @Nullable long[] distinctValues,
            @Nullable byte[] distinctPresent,
            int[] newOffsets) {
        long h = handle();
        int bytes =
                NativeLib.sessionWindowCombine(
                        h, accs, accOffsets, distinctValues, distinctPresent);
        if (wholeMapRequests(null, null) > 0) {
            return null;
        }
        byte[] out = new byte[bytes];
        NativeLib.sessionWindowCopyAccs(h, out, newOffsets);
        return out;
    }

    @Override
    public int wholeMapRequests(@Nullable int[] groups, @Nullable int[] maps) {
        return NativeLib.sessionWindowWholeMaps(handle(), groups, maps);
    }

    @Override
    public void supplyWholeMaps(
            int[] requestOf, int count, byte[] images, int[] offsets, long[] counts) {
        NativeLib.sessionWindowSupplyWholeMaps(handle(), requestOf, count, images, offsets, counts);
    }

    /**
     * With DISTINCT or MIN/MAX maps, between steps 2 and 3: the entries of the maps merged into
     * each group, tagged with their read (see {@link NativeLib#sessionWindowSetMergeEntries});
     * returns the lookups the batch then needs.
     */
    public NativeWindowAggregate.Lookups setMergeEntries(
            int[] readOf, int[] mapOf, long[] masks, int count, byte[] images, int[] offsets) {
        long h = handle();
        NativeLib.sessionWindowSetMergeEntries(h, readOf, mapOf, masks, count, images, offsets);
        return NativeWindowAggregate.Lookups.read(
                (sizes, groups, maps, values, offs) ->
                        NativeLib.sessionWindowLookups(h, sizes, groups, maps, values, offs));
    }

    /** After a combine with DISTINCT aggregates: the map entries to write. */
    public NativeWindowAggregate.Updated updated() {
        long h = handle();
        return NativeWindowAggregate.Updated.read(
                (lookups, values) -> NativeLib.sessionWindowUpdated(h, lookups, values));
    }

    /** Fires {@code numFires} windows; fills {@code offsets} (fires + 1) and returns the rows. */
    public byte[] fire(
            byte[] keys,
            int[] keyOffsets,
            long[] windows,
            int numFires,
            byte[] accs,
            int[] accOffsets,
            int[] offsets) {
        long h = handle();
        byte[] out =
                new byte
                        [NativeLib.sessionWindowFire(
                                h, keys, keyOffsets, windows, numFires, accs, accOffsets)];
        NativeLib.sessionWindowCopyOutput(h, out, offsets);
        return out;
    }

    /** The rows of the last {@link #fire} (a window whose COUNT(*) is 0 is not emitted). */
    public int outputRows() {
        return NativeLib.sessionWindowOutputRows(handle());
    }

    @Override
    protected long memoryBytes(long handle) {
        return NativeLib.sessionWindowMemoryBytes(handle);
    }

    @Override
    protected void free(long handle) {
        NativeLib.closeSessionWindowAggregate(handle);
    }
}
