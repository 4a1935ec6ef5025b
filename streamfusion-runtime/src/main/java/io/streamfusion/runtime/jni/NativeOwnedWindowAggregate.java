package io.streamfusion.runtime.jni;

/**
 * Owns one native event-time window aggregation that keeps its accumulators and timers itself
 * (partitioned by Flink's key group) and frees it on {@link #close()}. See {@link NativeLib} for
 * the protocol of each call.
 */
public final class NativeOwnedWindowAggregate extends NativeHandle {

    /** The rows of fired windows: images and offsets. */
    public static final class Fired {
        public final int rows;
        public final byte[] bytes;
        public final int[] offsets;

        private Fired(int rows, int bytes) {
            this.rows = rows;
            this.bytes = new byte[bytes];
            this.offsets = new int[rows + 1];
        }
    }

    /** A snapshot: one section per key group with state. */
    public static final class Snapshot {
        public final byte[] bytes;
        public final int[] keyGroups;
        public final int[] offsets;

        private Snapshot(int sections, int bytes) {
            this.bytes = new byte[bytes];
            this.keyGroups = new int[sections];
            this.offsets = new int[sections + 1];
        }
    }

    private final int[] sizes = new int[2];

    public NativeOwnedWindowAggregate(byte[] plan, long memoryBudgetBytes, int maxParallelism) {
        super(
                NativeLib.createOwnedWindowAggregate(plan, memoryBudgetBytes, maxParallelism),
                "Native window aggregation");
    }

    /** Combines rows into the state at {@code watermark}; returns the rows dropped as late. */
    public long add(byte[] rows, int[] offsets, int numRows, long watermark) {
        return NativeLib.ownedWindowAggregateAdd(handle(), rows, offsets, numRows, watermark);
    }

    /** Fires the windows due at {@code watermark}. */
    public Fired advance(long watermark) {
        long h = handle();
        NativeLib.ownedWindowAggregateAdvance(h, watermark, sizes);
        Fired fired = new Fired(sizes[0], sizes[1]);
        if (fired.rows > 0) {
            NativeLib.ownedWindowAggregateCopyOutput(h, fired.bytes, fired.offsets);
        }
        return fired;
    }

    /** Serializes the state by key group. */
    public Snapshot snapshot() {
        long h = handle();
        NativeLib.ownedWindowAggregateSnapshot(h, sizes);
        Snapshot snapshot = new Snapshot(sizes[0], sizes[1]);
        NativeLib.ownedWindowAggregateCopySnapshot(
                h, snapshot.bytes, snapshot.keyGroups, snapshot.offsets);
        return snapshot;
    }

    /** Adds one key group's section of a snapshot. */
    public void restore(int keyGroup, byte[] section) {
        NativeLib.ownedWindowAggregateRestore(handle(), keyGroup, section);
    }

    @Override
    long memoryBytes(long handle) {
        return NativeLib.ownedWindowAggregateMemoryBytes(handle);
    }

    @Override
    void free(long handle) {
        NativeLib.closeOwnedWindowAggregate(handle);
    }
}
