package io.streamfusion.runtime.window;

import io.streamfusion.plan.WindowAggregateNode.Window;
import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Meter;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.runtime.util.TimeWindowUtil;
import org.apache.flink.table.types.logical.LogicalType;

import java.io.IOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The operator shell of a native window TVF aggregation over TUMBLE or HOP windows, standing in for
 * Flink's WindowAggOperator with its slicing processors: the one-phase aggregation, or the global
 * phase over the local phase's accumulators. State and timers are Flink's own and laid out as Flink
 * lays them out: the keyed {@code ValueState<RowData>} "window-aggs" with the slice end as
 * namespace ({@link LongSerializer}) and a {@link RowDataSerializer} of the accumulator types, the
 * timer service "window-timers" (one timer per key and window at window end - 1), and the union
 * list state "watermark". Checkpoints, RocksDB, restore and rescaling work as for the stock
 * operator.
 *
 * <p>Rows are collected into a batch (Flink's window buffer) and combined into state when the batch
 * is full, before a watermark, before a checkpoint barrier, at end of input and, for
 * processing-time windows, after {@code maxDelayMillis}: native code assigns slices, drops late
 * rows and accumulates each (key, slice) group, and Java reads and writes each group's accumulator
 * once and registers its timer. Flink's timers fire the windows; each fired window's slice
 * accumulators are read (and the expired slice cleared) at once, as Flink does, and the windows'
 * results are computed natively in bulk before the watermark that fired them is forwarded.
 */
public class NativeWindowAggregateOperator extends NativeWindowOperatorBase
        implements Triggerable<RowData, Long> {

    private static final long serialVersionUID = 1L;

    /** A merged DISTINCT entry to remove (WindowAggregate::kMergedRemove; kMergedPut is 1). */
    private static final byte MERGED_REMOVE = 2;

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final int outputArity;
    private final boolean eventTime;
    private final Window window;
    private final long size;
    private final long slice;
    private final long offset;
    private final int countStarField;
    private final String shiftTimeZone;
    private final DistinctState[] distincts;
    private final long memoryBudgetBytes;

    private transient ZoneId zone;
    private transient int slicesPerWindow;
    private transient NativeWindowAggregate agg;
    private transient InternalTimerService<Long> timers;
    private transient InternalValueState<RowData, Long, RowData> windowState;
    private transient RowDataSerializer accSerializer;
    private transient long currentProgress;
    private transient Meter lateRecordsDroppedRate;
    private transient ImageBuffer groupAccs;
    private transient Fires fires;
    private transient RowData[] sliceAccs;
    private transient WindowDistinctMaps<Long> distinctMaps;
    private transient FireEntries fireEntries;

    /**
     * @param eventTime false for a processing-time window
     * @param size the window size (CUMULATE: the max size)
     * @param slice the slice size: the window size for TUMBLE, the slide for HOP, the step for
     *     CUMULATE
     * @param countStarField the accumulator field of COUNT(*), -1 if none (Flink's
     *     indexOfCountStar): a window whose count is 0 is empty and not emitted
     * @param distincts the state-backed DISTINCT maps (TUMBLE, HOP), namespaced by slice end
     */
    public NativeWindowAggregateOperator(
            ShellSpec spec,
            boolean eventTime,
            Window window,
            long size,
            long slice,
            long offset,
            int countStarField,
            ZoneId shiftTimeZone) {
        super(spec.inputType, spec.batchSize, spec.maxDelayMillis, true);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.outputArity = spec.outputArity;
        this.eventTime = eventTime;
        this.window = window;
        this.size = size;
        this.slice = slice;
        this.offset = offset;
        this.countStarField = countStarField;
        this.shiftTimeZone = shiftTimeZone.getId();
        this.distincts = spec.distincts;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        zone = ZoneId.of(shiftTimeZone);
        // CUMULATE fires from its first slice's accumulator and the current slice's.
        slicesPerWindow = window == Window.CUMULATE ? 2 : (int) (size / slice);
        timers =
                getInternalTimerService(
                        FlinkWindowState.TIMERS_NAME, LongSerializer.INSTANCE, this);
        timers.initializeWatermark(currentWatermark);
        accSerializer = new RowDataSerializer(accTypes);
        ValueState<RowData> state =
                getKeyedStateBackend()
                        .getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ValueStateDescriptor<>(
                                        FlinkWindowState.STATE_NAME, accSerializer));
        windowState = (InternalValueState<RowData, Long, RowData>) state;
        currentProgress = eventTime ? currentWatermark : Long.MIN_VALUE;
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        agg = new NativeWindowAggregate(plan, memoryBudgetBytes);
        openBatches(FieldUse.of(Plans.parse(plan)), outputArity);
        groupAccs = new ImageBuffer();
        fires = new Fires();
        sliceAccs = new RowData[slicesPerWindow];
        distinctMaps = openDistinctMaps(distincts, LongSerializer.INSTANCE);
        fireEntries = new FireEntries();
        getMetricGroup().gauge("streamfusionNativeMemoryBytes", () -> agg.memoryBytes());
    }

    /**
     * As Flink's window buffer, an event-time batch waits for a watermark (or a barrier, the end of
     * input, or a full buffer): no window can fire before. A processing-time batch is flushed on
     * the timer too, so that its rows' windows get their timers.
     */
    @Override
    protected boolean flushesOnTimer() {
        return !eventTime;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (!eventTime) {
            assignProcessingTime(slice, offset, zone);
        }
        super.processElement(element);
    }

    /** Combines the batch into state (Flink's window buffer flush). */
    @Override
    protected void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        NativeWindowAggregate.Groups groups =
                agg.prepare(
                        batch.bytes(),
                        batch.offsets(),
                        rows,
                        eventTime ? currentProgress : batchTime);
        if (groups.dropped > 0) {
            lateRecordsDroppedRate.markEvent(groups.dropped);
        }
        BinaryRowData[] keys =
                combineGroups(
                        agg,
                        groups,
                        windowState,
                        slice -> slice,
                        keyArity,
                        accSerializer,
                        groupAccs,
                        distinctMaps);
        for (int g = 0; g < groups.count; g++) {
            long window = groups.namespaces[g];
            setCurrentKey(keys[g]);
            // AggCombiner: the slice's timer, unless its window has fired (event time); a
            // processing-time window's timer, registered per record in Flink.
            if (!eventTime) {
                timers.registerProcessingTimeTimer(window, timerTime(window));
            } else if (!TimeWindowUtil.isWindowFired(window, timers.currentWatermark(), zone)) {
                timers.registerEventTimeTimer(window, timerTime(window));
            }
            if (groups.lateTimers[g] != NativeWindowAggregate.NO_TIMER) {
                timers.registerEventTimeTimer(
                        groups.lateTimers[g], timerTime(groups.lateTimers[g]));
            }
        }
        finishBatch(0);
    }

    /** The timer time of a window: its end - 1, in the shift time zone. */
    private long timerTime(long windowEnd) {
        return TimeWindowUtil.toEpochMillsForTimer(windowEnd - 1, zone);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flushGuarded();
        if (mark.getTimestamp() > currentWatermark) {
            if (eventTime) {
                currentProgress = mark.getTimestamp();
            }
            currentWatermark = mark.getTimestamp();
            fireUpTo(mark);
        } else {
            fireUpTo(new Watermark(currentWatermark));
        }
    }

    @Override
    public void onEventTime(InternalTimer<RowData, Long> timer) throws Exception {
        fireWindow(timer.getNamespace());
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, Long> timer) throws Exception {
        fireOnProcessingTime(timer, timers, () -> fireWindow(timer.getNamespace()));
    }

    /**
     * Flink's fireWindow and clearWindow for the current key: reads the window's slice
     * accumulators, queues the window (TUMBLE and HOP: unless it is empty), registers the next
     * window of a HOP or CUMULATE, and clears the slices that expire with it.
     */
    private void fireWindow(long windowEnd) throws Exception {
        BinaryRowData key = (BinaryRowData) getCurrentKey();
        if (window == Window.CUMULATE) {
            fireCumulativeWindow(key, windowEnd);
            return;
        }
        long count = 0;
        for (int s = 0; s < slicesPerWindow; s++) {
            // Latest slice first: HoppingSlicesIterable's order.
            sliceAccs[s] = read(windowEnd - s * slice);
            if (sliceAccs[s] != null && countStarField >= 0) {
                count += sliceAccs[s].getLong(countStarField);
            }
        }
        boolean empty = countStarField >= 0 && count == 0;
        if (!empty) {
            int fire = fires.count();
            fires.add(key, windowEnd, sliceAccs, accSerializer, false, false);
            if (window == Window.HOP && distinctMaps != null) {
                // The window merges its slices' DISTINCT maps, latest slice first.
                for (int s = 0; s < slicesPerWindow; s++) {
                    fireEntries.slice = s;
                    distinctMaps.appendEntries(windowEnd - s * slice, fire, fireEntries);
                }
            }
        }
        if (window == Window.HOP && !empty) {
            registerTimer(windowEnd + slice);
        }
        // The expired slice: a tumbling window's own, a hopping window's first.
        clear(window == Window.HOP ? windowEnd - size + slice : windowEnd);
        drainIfFull();
    }

    /**
     * A cumulative window merges its current slice into its first slice's accumulator, which is
     * kept as the first slice's state for the next windows of the cycle (Flink's merge target). The
     * merge is computed natively when the fires are drained, so a key's next window waits for its
     * previous one to be drained.
     */
    private void fireCumulativeWindow(BinaryRowData key, long windowEnd) throws Exception {
        long start = TimeWindow.getWindowStartWithOffset(windowEnd - 1, offset, size);
        long first = start + slice;
        long last = start + size;
        if (fires.hasKey(key)) {
            drainFires();
        }
        sliceAccs[0] = read(first);
        sliceAccs[1] = windowEnd == first ? null : read(windowEnd);
        fires.add(key, windowEnd, sliceAccs, accSerializer, true, windowEnd != last);
        fires.firstSlices[fires.count() - 1] = first;
        if (distinctMaps != null && windowEnd != first) {
            // The current slice's DISTINCT maps merge into the first slice's.
            distinctMaps.appendMergeEntries(windowEnd, first, fires.count() - 1, fireEntries);
        }
        if (windowEnd + slice <= last) {
            registerTimer(windowEnd + slice);
        }
        // The cycle's last window clears its first slice once drained (a MIN/MAX merge may scan
        // the first slice's whole map).
        if (windowEnd != first) {
            clear(windowEnd);
        }
        drainIfFull();
    }

    private RowData read(long slice) throws IOException {
        windowState.setCurrentNamespace(slice);
        return windowState.value();
    }

    /** Flink's clearWindow of a slice: its accumulator and its DISTINCT maps (cleanup). */
    private void clear(long slice) {
        windowState.setCurrentNamespace(slice);
        windowState.clear();
        if (distinctMaps != null) {
            distinctMaps.clear(slice);
        }
    }

    private void registerTimer(long windowEnd) {
        if (eventTime) {
            timers.registerEventTimeTimer(windowEnd, timerTime(windowEnd));
        } else {
            timers.registerProcessingTimeTimer(windowEnd, timerTime(windowEnd));
        }
    }

    private void drainIfFull() throws Exception {
        if (fires.count() >= batchSize) {
            drainFires();
        }
    }

    /**
     * Computes and emits the queued windows' results; a cumulative window's merged accumulator
     * becomes its first slice's state, unless the window was its cycle's last.
     */
    @Override
    protected void drainFires() throws Exception {
        int n = fires.count();
        if (n == 0) {
            return;
        }
        if (distinctMaps != null && window != Window.TUMBLE) {
            fireEntries.sendTo(agg, window == Window.CUMULATE);
        }
        // Draining may happen inside a timer callback, whose key must stay set.
        Object current = getCurrentKey();
        NativeWindowAggregate.Fired fired;
        while ((fired =
                        agg.fire(
                                fires.keys.bytes(),
                                fires.keys.offsets(),
                                fires.windowEnds,
                                n,
                                fires.accs.bytes(),
                                fires.accs.offsets()))
                == null) {
            // CUMULATE, MIN/MAX over an updating input: a merge lost the extreme of a first
            // slice's map, which Flink then scans whole.
            distinctMaps.supplyWholeMaps(agg, f -> fires.keyRows.get(f), f -> fires.firstSlices[f]);
        }
        if (window == Window.CUMULATE) {
            for (int f = 0; f < n; f++) {
                setCurrentKey(fires.keyRows.get(f));
                if (!fires.keepsState[f]) {
                    // The cycle's last window: its first slice goes (a MIN/MAX merge may have
                    // scanned its map, so not before the drain).
                    clear(fires.firstSlices[f]);
                    continue;
                }
                windowState.setCurrentNamespace(fires.firstSlices[f]);
                windowState.update(
                        ImageBuffer.ownRow(
                                accTypes.length,
                                fired.accs,
                                fired.accOffsets[f],
                                fired.accOffsets[f + 1]));
            }
            if (distinctMaps != null) {
                writeMergedEntries();
            }
        }
        if (current != null) {
            setCurrentKey(current);
        }
        fires.clear();
        fireEntries.clear();
        emit(fired.bytes, fired.offsets, fired.rows, null);
        countEmitted(fired.rows);
    }

    /**
     * CUMULATE: puts the first slices' DISTINCT and MIN/MAX map entries the fires merged into (not
     * for a cycle's last window, whose first slice is cleared).
     */
    private void writeMergedEntries() throws Exception {
        int n = fireEntries.count();
        long[] values = new long[n];
        byte[] writes = new byte[n];
        agg.mergedEntries(values, writes);
        for (int e = 0; e < n; ) {
            int f = fireEntries.fires[e];
            int m = fireEntries.maps[e];
            // A long[] value's lanes are consecutive entries, put as one value.
            int lanes = distinctMaps.lanes(m);
            if (writes[e] != 0 && fires.keepsState[f]) {
                setCurrentKey(fires.keyRows.get(f));
                // MERGED_REMOVE: a count back at 0 (an updating input) leaves the map.
                distinctMaps.put(
                        fires.firstSlices[f],
                        m,
                        fireEntries.keys[e],
                        writes[e] == MERGED_REMOVE ? null : distinctMaps.valueOf(m, values, e));
            }
            e += lanes;
        }
    }

    @Override
    protected AutoCloseable nativeAggregate() {
        return agg;
    }

    /** Windows fired and not yet computed: key, window end and slice accumulator images each. */
    private static final class Fires {
        final ImageBuffer keys = new ImageBuffer();
        final ImageBuffer accs = new ImageBuffer();
        long[] windowEnds = new long[16];
        // CUMULATE: each fire's key, first slice, whether the merged accumulator is kept as the
        // first slice's state (not after the cycle's last window), and the keys queued.
        final List<BinaryRowData> keyRows = new ArrayList<>();
        long[] firstSlices = new long[16];
        boolean[] keepsState = new boolean[16];
        final Set<BinaryRowData> queuedKeys = new HashSet<>();

        Fires() {
            clear();
        }

        int count() {
            return keys.count();
        }

        boolean hasKey(BinaryRowData key) {
            return queuedKeys.contains(key);
        }

        void add(
                BinaryRowData key,
                long windowEnd,
                RowData[] sliceAccs,
                RowDataSerializer ser,
                boolean cumulative,
                boolean keepsStateAfter)
                throws IOException {
            int f = keys.count();
            if (f == windowEnds.length) {
                windowEnds = Arrays.copyOf(windowEnds, f * 2);
                firstSlices = Arrays.copyOf(firstSlices, f * 2);
                keepsState = Arrays.copyOf(keepsState, f * 2);
            }
            windowEnds[f] = windowEnd;
            keepsState[f] = keepsStateAfter;
            keys.append(key);
            if (cumulative) {
                BinaryRowData copy = key.copy();
                keyRows.add(copy);
                queuedKeys.add(copy);
            } else {
                keyRows.add(null);
            }
            for (RowData acc : sliceAccs) {
                accs.append(acc, ser);
            }
        }

        void clear() {
            keys.clear();
            accs.clear();
            keyRows.clear();
            queuedKeys.clear();
        }
    }
}
