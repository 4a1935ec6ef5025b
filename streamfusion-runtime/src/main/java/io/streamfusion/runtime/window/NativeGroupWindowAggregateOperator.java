package io.streamfusion.runtime.window;

import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.transpose.FieldUse;

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

import java.time.ZoneOffset;

/**
 * The operator shell of a native legacy group window aggregation over a TUMBLE or HOP window, on
 * event or processing time ({@code GROUP BY ..., TUMBLE(rowtime, size)} or {@code HOP(rowtime,
 * slide, size)}), standing in for Flink's WindowOperator with its GeneralWindowProcessFunction
 * (TUMBLE) or PanedWindowProcessFunction (HOP, panes of gcd(size, slide)). State and timers are
 * Flink's own and laid out as Flink lays them out: the keyed {@code ValueState<RowData>}
 * "window-aggs" namespaced by window (TUMBLE) or pane (HOP) ({@link TimeWindow.Serializer}), and
 * the timer service "window-timers" with one timer per key and window at its end - 1.
 *
 * <p>Rows are collected into a batch and combined into state when the batch is full, before a
 * watermark, before a checkpoint barrier and at the end of input, so that a batch sees one
 * watermark (processing time: one pane): native code assigns panes, drops late rows (a pane whose
 * last window has fired) and accumulates each (key, pane) in arrival order; Java reads and writes
 * each group's accumulator once and registers the timers of the windows the pane belongs to that
 * have not fired. Flink's timers fire the windows; each fired window's panes are read (earliest
 * first, the order Flink merges them in) and its expiring panes cleared, and the windows' results
 * are computed natively in bulk before the watermark that fired them is forwarded.
 */
public class NativeGroupWindowAggregateOperator extends NativeWindowOperatorBase
        implements Triggerable<RowData, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final int outputArity;
    private final boolean eventTime;
    private final long size;
    private final long slide;
    private final boolean hop;
    private final DistinctState[] distincts;
    private final long memoryBudgetBytes;

    private transient NativeWindowAggregate agg;
    private transient InternalTimerService<TimeWindow> timers;
    private transient InternalValueState<RowData, TimeWindow, RowData> windowState;
    private transient RowDataSerializer accSerializer;
    private transient Meter lateRecordsDroppedRate;
    private transient ImageBuffer groupAccs;
    private transient long paneSize;
    private transient int panesPerWindow;
    private transient FireQueue fires;
    private transient WindowDistinctMaps<TimeWindow> distinctMaps;
    private transient FireEntries fireEntries;

    /**
     * @param eventTime false for a processing-time window
     * @param slide the HOP slide; the size for TUMBLE (panes are gcd(size, slide))
     * @param hop a HOP window (panes merged at each fire), not a TUMBLE one
     * @param distincts the state-backed DISTINCT maps, namespaced by window or pane
     */
    public NativeGroupWindowAggregateOperator(
            ShellSpec spec, boolean eventTime, long size, long slide, boolean hop) {
        super(spec.inputType, spec.batchSize, spec.maxDelayMillis, false);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.outputArity = spec.outputArity;
        this.eventTime = eventTime;
        this.size = size;
        this.slide = slide;
        this.hop = hop;
        this.distincts = spec.distincts;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        timers = getInternalTimerService("window-timers", new TimeWindow.Serializer(), this);
        accSerializer = new RowDataSerializer(accTypes);
        ValueState<RowData> state =
                getKeyedStateBackend()
                        .getOrCreateKeyedState(
                                new TimeWindow.Serializer(),
                                new ValueStateDescriptor<>("window-aggs", accSerializer));
        windowState = (InternalValueState<RowData, TimeWindow, RowData>) state;
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        agg = new NativeWindowAggregate(plan, memoryBudgetBytes);
        openBatches(FieldUse.of(Plans.parse(plan)), outputArity);
        groupAccs = new ImageBuffer();
        paneSize = paneSize(size, slide);
        panesPerWindow = (int) (size / paneSize);
        fires = new FireQueue(1);
        distinctMaps = openDistinctMaps(distincts, new TimeWindow.Serializer());
        fireEntries = new FireEntries();
        getMetricGroup().gauge("streamfusionNativeMemoryBytes", () -> agg.memoryBytes());
    }

    /**
     * No event-time window can fire before a watermark: such a batch waits for one (or a barrier,
     * or the end). A processing-time batch is flushed on the timer too, so that its rows' windows
     * get their timers.
     */
    @Override
    protected boolean flushesOnTimer() {
        return !eventTime;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (!eventTime) {
            // WindowOperator takes each record's processing time (UTC shift only).
            assignProcessingTime(paneSize, 0, ZoneOffset.UTC);
        }
        super.processElement(element);
    }

    /** Flink's SlidingWindowAssigner pane: gcd(size, slide) (the size for TUMBLE). */
    public static long paneSize(long size, long slide) {
        return slide == 0 ? size : paneSize(slide, size % slide);
    }

    private static TimeWindow pane(long end, long paneSize) {
        return new TimeWindow(end - paneSize, end);
    }

    /** Combines the batch into state: Flink's per-record processElement, for a batch at once. */
    @Override
    protected void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        long watermark = timers.currentWatermark();
        NativeWindowAggregate.Groups groups =
                agg.prepare(
                        batch.bytes(), batch.offsets(), rows, eventTime ? watermark : batchTime);
        if (groups.dropped > 0) {
            lateRecordsDroppedRate.markEvent(groups.dropped);
        }
        BinaryRowData[] keys =
                combineGroups(
                        agg,
                        groups,
                        windowState,
                        end -> pane(end, paneSize),
                        keyArity,
                        accSerializer,
                        groupAccs,
                        distinctMaps);
        for (int g = 0; g < groups.count; g++) {
            long paneStart = groups.namespaces[g] - paneSize;
            setCurrentKey(keys[g]);
            // The trigger's timer of every window the pane is in that is not late (processing
            // time: of every window): SlidingWindowAssigner.assignWindows, latest first.
            long lastStart = paneStart - Math.floorMod(paneStart, slide);
            for (long start = lastStart; start > paneStart - size; start -= slide) {
                long end = start + size;
                TimeWindow window = new TimeWindow(start, end);
                if (!eventTime) {
                    timers.registerProcessingTimeTimer(window, end - 1);
                } else if (end - 1 > watermark) {
                    timers.registerEventTimeTimer(window, end - 1);
                }
            }
        }
        finishBatch(0);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flushGuarded();
        if (mark.getTimestamp() > currentWatermark) {
            currentWatermark = mark.getTimestamp();
        }
        fireUpTo(mark);
    }

    /**
     * WindowOperator.onEventTime / onProcessingTime: the window's timer fires it (its panes merged,
     * earliest first, into a fresh accumulator) and cleans it up (the pane whose last window it
     * is).
     */
    @Override
    public void onEventTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        fireWindow(timer);
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        fireOnProcessingTime(timer, timers, () -> fireWindow(timer));
    }

    private void fireWindow(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        TimeWindow window = timer.getNamespace();
        if (timer.getTimestamp() != window.maxTimestamp()) {
            return;
        }
        int fire = fires.count();
        fires.add((BinaryRowData) getCurrentKey(), window.getEnd());
        for (int p = 0; p < panesPerWindow; p++) {
            TimeWindow pane = pane(window.getStart() + (p + 1) * paneSize, paneSize);
            windowState.setCurrentNamespace(pane);
            fires.accs.append(windowState.value(), accSerializer);
            if (hop && distinctMaps != null) {
                // The window merges its panes' DISTINCT maps, earliest first.
                distinctMaps.appendEntries(pane, fire, fireEntries);
            }
        }
        // Its panes whose last window it is (SlidingWindowAssigner.getLastWindow): those that
        // start within its first slide.
        for (int p = 0; p < panesPerWindow && p * paneSize < slide; p++) {
            TimeWindow pane = pane(window.getStart() + (p + 1) * paneSize, paneSize);
            windowState.setCurrentNamespace(pane);
            windowState.clear();
            if (distinctMaps != null) {
                distinctMaps.clear(pane);
            }
        }
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
        if (hop && distinctMaps != null) {
            fireEntries.sendTo(agg, false);
            fireEntries.clear();
        }
        NativeWindowAggregate.Fired fired =
                agg.fire(
                        fires.keys.bytes(),
                        fires.keys.offsets(),
                        fires.windows(),
                        n,
                        fires.accs.bytes(),
                        fires.accs.offsets());
        fires.clear();
        emit(fired.bytes, fired.offsets, fired.rows, null);
        countEmitted(fired.rows);
    }

    @Override
    protected AutoCloseable nativeAggregate() {
        return agg;
    }
}
