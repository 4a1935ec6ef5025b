package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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
import org.apache.flink.table.types.logical.LogicalType;

import java.util.Arrays;
import java.util.Map;

/**
 * The operator shell of a native aggregation over a SESSION window: the legacy group window ({@code
 * GROUP BY ..., SESSION(rowtime, gap)}), standing in for Flink's WindowOperator with its
 * MergingWindowProcessFunction, or the window TVF, standing in for WindowAggOperator with
 * UnsliceSyncStateWindowAggProcessor (the same merging, plus the union list state "watermark").
 * State and timers are Flink's own and laid out as Flink lays them out: the keyed {@code
 * ValueState<RowData>} "window-aggs" namespaced by state window ({@link TimeWindow.Serializer}, a
 * {@link RowDataSerializer} of the accumulator types), the {@code MapState<TimeWindow, TimeWindow>}
 * "session-window-mapping" from each in-flight window to its state window, and the timer service
 * "window-timers" (one timer per key and window at its end - 1).
 *
 * <p>Rows are collected into a batch and combined into state when the batch is full, before a
 * watermark, before a checkpoint barrier and at the end of input, so that a batch sees one
 * watermark, as each of Flink's records does: native code groups the rows by key, replays each
 * key's rows against its windows as Flink's MergingWindowSet does, and accumulates them; Java reads
 * each key's windows and the accumulators involved once, and writes back the net change
 * (accumulators, window mapping, timers). Flink's timers fire the windows; the fired windows'
 * results are computed natively in bulk before the watermark that fired them is forwarded.
 *
 * <p>On processing time (Flink's ProcessingTimeSessionWindows / the TVF on a PROCTIME attribute)
 * each row's time is its arrival's, taken when it reaches this operator as Flink's operator takes
 * it per record; no row is late; batches are also flushed on the batch timer and before a window
 * fires, and the windows' timers are processing-time timers.
 */
public class NativeSessionWindowAggregateOperator extends NativeWindowOperatorBase
        implements Triggerable<RowData, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final int outputArity;
    private final boolean tvf;
    private final DistinctState[] distincts;
    private final long memoryBudgetBytes;

    private transient NativeSessionWindowAggregate agg;
    private transient InternalTimerService<TimeWindow> timers;
    private transient InternalValueState<RowData, TimeWindow, RowData> windowState;
    private transient MapState<TimeWindow, TimeWindow> mapping;
    private transient RowDataSerializer accSerializer;
    private transient Meter lateRecordsDroppedRate;
    private transient ImageBuffer reads;
    private transient long[] windows;
    private transient FireQueue fires;
    private transient boolean proctime;
    private transient long[] arrivals;
    private transient WindowDistinctMaps<TimeWindow> distinctMaps;
    private transient FireEntries mergeEntries;

    public NativeSessionWindowAggregateOperator(ShellSpec spec, boolean tvf) {
        super(spec.inputType, spec.batchSize, spec.maxDelayMillis, tvf);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.outputArity = spec.outputArity;
        this.tvf = tvf;
        this.distincts = spec.distincts;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        timers = getInternalTimerService("window-timers", new TimeWindow.Serializer(), this);
        if (tvf) {
            timers.initializeWatermark(currentWatermark);
        }
        accSerializer = new RowDataSerializer(accTypes);
        ValueState<RowData> state =
                getKeyedStateBackend()
                        .getOrCreateKeyedState(
                                new TimeWindow.Serializer(),
                                new ValueStateDescriptor<>("window-aggs", accSerializer));
        windowState = (InternalValueState<RowData, TimeWindow, RowData>) state;
        // MergingWindowProcessFunction's, through the same call (VoidNamespace).
        mapping =
                getPartitionedState(
                        new MapStateDescriptor<>(
                                "session-window-mapping",
                                new TimeWindow.Serializer(),
                                new TimeWindow.Serializer()));
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        agg = new NativeSessionWindowAggregate(plan, memoryBudgetBytes);
        Plan parsed = Plans.parse(plan);
        proctime = parsed.getOperators(0).getSessionWindowAggregate().getProctime();
        arrivals = proctime ? new long[64] : null;
        openBatches(FieldUse.of(parsed), outputArity);
        reads = new ImageBuffer();
        windows = new long[64];
        fires = new FireQueue(2);
        distinctMaps = openDistinctMaps(distincts, new TimeWindow.Serializer());
        mergeEntries = new FireEntries();
        getMetricGroup().gauge("streamfusionNativeMemoryBytes", () -> agg.memoryBytes());
    }

    /**
     * No event-time window can fire before a watermark: such a batch waits for one (or a barrier,
     * or the end). A processing-time batch is flushed on the timer too, so that its rows' windows
     * get their timers.
     */
    @Override
    protected boolean flushesOnTimer() {
        return proctime;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (proctime) {
            // WindowOperator takes each record's processing time (UTC shift only).
            int row = batch.numRows();
            if (row >= arrivals.length) {
                arrivals = Arrays.copyOf(arrivals, Math.max(row + 1, arrivals.length * 2));
            }
            arrivals[row] = getProcessingTimeService().getCurrentProcessingTime();
        }
        super.processElement(element);
    }

    /** Combines the batch into state: Flink's per-record processElement, for a batch at once. */
    @Override
    protected void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        KeyImages keys = agg.prepare(batch.bytes(), batch.offsets(), rows);
        BinaryRowData[] keyRows = new BinaryRowData[keys.count];
        int[] windowOffsets = new int[keys.count + 1];
        int w = 0;
        for (int k = 0; k < keys.count; k++) {
            keyRows[k] =
                    ImageBuffer.ownRow(keyArity, keys.bytes, keys.offsets[k], keys.offsets[k + 1]);
            setCurrentKey(keyRows[k]);
            for (Map.Entry<TimeWindow, TimeWindow> entry : mapping.entries()) {
                if (w + 4 > windows.length) {
                    windows = Arrays.copyOf(windows, windows.length * 2);
                }
                windows[w++] = entry.getKey().getStart();
                windows[w++] = entry.getKey().getEnd();
                windows[w++] = entry.getValue().getStart();
                windows[w++] = entry.getValue().getEnd();
            }
            windowOffsets[k + 1] = w / 4;
        }
        NativeSessionWindowAggregate.Change change =
                proctime
                        ? agg.merge(windows, windowOffsets, Long.MIN_VALUE, arrivals, rows)
                        : agg.merge(windows, windowOffsets, timers.currentWatermark(), null, rows);
        if (change.dropped > 0) {
            lateRecordsDroppedRate.markEvent(change.dropped);
        }
        // The accumulators of the state windows each group now holds, in the groups' order; with
        // DISTINCT or MIN/MAX maps also the map entries of those merged into the group's, tagged
        // with their read (Flink merges a merged window's maps when it has an accumulator).
        int groups = change.groupCount();
        int width = NativeSessionWindowAggregate.GROUP_WIDTH;
        long[] info = change.groups;
        BinaryRowData[] groupKeys = new BinaryRowData[groups];
        TimeWindow[] groupWindows = new TimeWindow[groups];
        reads.clear();
        for (int g = 0; g < groups; g++) {
            groupKeys[g] = keyRows[(int) info[g * width]];
            groupWindows[g] = new TimeWindow(info[g * width + 3], info[g * width + 4]);
            setCurrentKey(groupKeys[g]);
            for (long r = info[g * width + 5]; r < info[g * width + 6]; r++) {
                TimeWindow read =
                        new TimeWindow(change.reads[(int) r * 2], change.reads[(int) r * 2 + 1]);
                windowState.setCurrentNamespace(read);
                RowData acc = windowState.value();
                reads.append(acc, accSerializer);
                boolean own = r == info[g * width + 5] && info[g * width + 7] != 0;
                if (distinctMaps != null && acc != null && !own) {
                    distinctMaps.appendEntries(read, (int) r, mergeEntries);
                }
            }
        }
        int[] newOffsets = new int[groups + 1];
        byte[] newAccs;
        if (distinctMaps == null) {
            newAccs = agg.combine(reads.bytes(), reads.offsets(), null, null, newOffsets);
        } else {
            distinctMaps.read(
                    agg.setMergeEntries(
                            mergeEntries.fires,
                            mergeEntries.maps,
                            mergeEntries.masks,
                            mergeEntries.count(),
                            mergeEntries.values.bytes(),
                            mergeEntries.values.offsets()),
                    groupKeys,
                    groupWindows);
            mergeEntries.clear();
            while ((newAccs =
                            agg.combine(
                                    reads.bytes(),
                                    reads.offsets(),
                                    distinctMaps.masks,
                                    distinctMaps.present,
                                    newOffsets))
                    == null) {
                // MIN/MAX over an updating input: a retraction or merge removed the extreme of
                // a group's map, which Flink then scans whole.
                distinctMaps.supplyWholeMaps(agg, g -> groupKeys[g], g -> groupWindows[g]);
            }
            distinctMaps.write(agg.updated(), groupKeys, groupWindows);
        }
        for (int g = 0; g < groups; g++) {
            setCurrentKey(groupKeys[g]);
            windowState.setCurrentNamespace(groupWindows[g]);
            windowState.update(
                    ImageBuffer.ownRow(accTypes.length, newAccs, newOffsets[g], newOffsets[g + 1]));
        }
        // The state windows merged away: their accumulators and maps (clearWindowState).
        long[] cleared = change.cleared;
        for (int i = 0; i < cleared.length; i += NativeSessionWindowAggregate.CLEARED_WIDTH) {
            setCurrentKey(keyRows[(int) cleared[i]]);
            TimeWindow window = new TimeWindow(cleared[i + 1], cleared[i + 2]);
            windowState.setCurrentNamespace(window);
            windowState.clear();
            if (distinctMaps != null) {
                distinctMaps.clear(window);
            }
        }
        // The trigger's timers follow the windows: deleted with a merged window, registered for
        // a new one (at its end - 1, the UTC shift).
        long[] removed = change.removed;
        for (int i = 0; i < removed.length; i += NativeSessionWindowAggregate.REMOVED_WIDTH) {
            setCurrentKey(keyRows[(int) removed[i]]);
            TimeWindow window = new TimeWindow(removed[i + 1], removed[i + 2]);
            mapping.remove(window);
            if (proctime) {
                timers.deleteProcessingTimeTimer(window, window.maxTimestamp());
            } else {
                timers.deleteEventTimeTimer(window, window.maxTimestamp());
            }
        }
        long[] added = change.added;
        for (int i = 0; i < added.length; i += NativeSessionWindowAggregate.ADDED_WIDTH) {
            setCurrentKey(keyRows[(int) added[i]]);
            TimeWindow window = new TimeWindow(added[i + 1], added[i + 2]);
            mapping.put(window, new TimeWindow(added[i + 3], added[i + 4]));
            if (proctime) {
                timers.registerProcessingTimeTimer(window, window.maxTimestamp());
            } else {
                timers.registerEventTimeTimer(window, window.maxTimestamp());
            }
        }
        finishBatch(0);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flushGuarded();
        if (mark.getTimestamp() > currentWatermark) {
            currentWatermark = mark.getTimestamp();
        } else if (tvf) {
            // WindowAggOperator forwards its restored watermark instead of a lower one.
            mark = new Watermark(currentWatermark);
        }
        fireUpTo(mark);
    }

    /**
     * WindowOperator.onEventTime: the window's timer fires it (its state window's accumulator is
     * read) and cleans it up (accumulator cleared, window retired from the mapping).
     */
    @Override
    public void onEventTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        fireWindow(timer);
    }

    /**
     * WindowOperator.onProcessingTime: as onEventTime, after the rows that arrived before the timer
     * reached state (they may have merged the window into a longer one, whose own timer then fires
     * it: Flink's deleted timer).
     */
    @Override
    public void onProcessingTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        fireOnProcessingTime(
                timer,
                timers,
                () -> {
                    if (mapping.contains(timer.getNamespace())) {
                        fireWindow(timer);
                    }
                });
    }

    private void fireWindow(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        TimeWindow window = timer.getNamespace();
        if (timer.getTimestamp() != window.maxTimestamp()) {
            return;
        }
        TimeWindow stateWindow = mapping.get(window);
        RowData acc = null;
        if (stateWindow != null) {
            windowState.setCurrentNamespace(stateWindow);
            acc = windowState.value();
        }
        fires.add((BinaryRowData) getCurrentKey(), window.getStart(), window.getEnd());
        fires.accs.append(acc, accSerializer);
        if (stateWindow != null) {
            windowState.clear();
            if (distinctMaps != null) {
                distinctMaps.clear(stateWindow);
            }
        }
        mapping.remove(window);
        if (fires.count() >= batchSize) {
            drainFires();
        }
    }

    /** Computes and emits the fired windows' results. */
    @Override
    protected void drainFires() throws Exception {
        int n = fires.count();
        if (n == 0) {
            return;
        }
        int[] offsets = new int[n + 1];
        byte[] rows =
                agg.fire(
                        fires.keys.bytes(),
                        fires.keys.offsets(),
                        fires.windows(),
                        n,
                        fires.accs.bytes(),
                        fires.accs.offsets(),
                        offsets);
        fires.clear();
        int emitted = agg.outputRows();
        emit(rows, offsets, emitted, null);
        countEmitted(emitted);
    }

    @Override
    protected AutoCloseable nativeAggregate() {
        return agg;
    }
}
