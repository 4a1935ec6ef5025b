package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.state.KeyedStatePort;
import io.streamfusion.runtime.state.StateCodec;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.metrics.Meter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.Arrays;

/**
 * The operator shell of a native aggregation over a SESSION window: the legacy group window ({@code
 * GROUP BY ..., SESSION(rowtime, gap)}), standing in for Flink's WindowOperator with its
 * MergingWindowProcessFunction, or the window TVF, standing in for WindowAggOperator with
 * UnsliceSyncStateWindowAggProcessor (the same merging, plus the union list state "watermark").
 * State and timers are Flink's own and laid out as Flink lays them out: the keyed {@code
 * ValueState<RowData>} "window-aggs" namespaced by state window ({@link TimeWindow.Serializer}, a
 * {@link RowDataSerializer} of the accumulator types), the {@code MapState<TimeWindow, TimeWindow>}
 * "session-window-mapping" from each in-flight window to its state window, the DISTINCT and MIN/MAX
 * maps per state window, and the timer service "window-timers" (one timer per key and window at its
 * end - 1).
 *
 * <p>The aggregation runs as a native island on the operator contract
 * (native/src/streamfusion/operators/window/session_window_operator.h) and reaches its state and
 * timers through the state port: this shell declares them, numbered as the native operator names
 * them, and a {@link KeyedStatePort} serves its reads, writes and timer operations. Rows are
 * collected into a batch and handed over when the batch is full, before a watermark, before a
 * checkpoint barrier and at the end of input, so that a batch sees one watermark, as each of
 * Flink's records does: native code groups the rows by key, reads each key's windows, replays its
 * rows against them as Flink's MergingWindowSet does, reads the accumulators (and map entries)
 * involved once, and writes back the net change (accumulators, window mapping, timers). Flink's
 * timer service fires the windows: each fired timer is handed to the port ({@link
 * KeyedStatePort#timerFired}), and the native operator takes them when its time advances, reads
 * their windows' state, and emits their rows in timer order before the watermark that fired them is
 * forwarded.
 *
 * <p>On processing time (Flink's ProcessingTimeSessionWindows / the TVF on a PROCTIME attribute)
 * each row's time is its arrival's, taken when it reaches this operator as Flink's operator takes
 * it per record, and handed over with the batch; no row is late; batches are also flushed on the
 * batch timer and before a window fires, and the windows' timers are processing-time timers.
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

    private transient NativePipeline pipeline;
    private transient KeyedStatePort port;
    private transient InternalTimerService<TimeWindow> timers;
    private transient Meter lateRecordsDroppedRate;
    private transient boolean proctime;
    private transient long[] arrivals;

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
    public void open() throws Exception {
        super.open();
        timers = getInternalTimerService("window-timers", new TimeWindow.Serializer(), this);
        if (tvf) {
            timers.initializeWatermark(currentWatermark);
        }
        port = new KeyedStatePort(keyArity, this::setCurrentKey);
        declareStates();
        port.declareTimers(0, timers, StateCodec.timeWindow());
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        Plan parsed = Plans.parse(plan);
        proctime = parsed.getOperators(0).getSessionWindowAggregate().getProctime();
        arrivals = proctime ? new long[64] : null;
        pipeline = openPipeline(plan, p -> new NativePipeline(p, memoryBudgetBytes));
        openBatches(FieldUse.of(parsed), outputArity);
        if (tvf && currentWatermark != Long.MIN_VALUE) {
            // The restored watermark decides which rows are late, as the timer service's does.
            guarded(() -> advance(currentWatermark));
        }
        getMetricGroup()
                .gauge(
                        "streamfusionNativeMemoryBytes",
                        () -> pipeline == null ? 0L : pipeline.memoryBytes());
    }

    /**
     * The states, numbered as the native operator names them: 0 "window-aggs" and 1
     * "session-window-mapping" (declared through the same calls as Flink's WindowOperator: the
     * mapping in the VoidNamespace); for each map m (PerWindowStateDataViewStore's) 2 + 2m its
     * MapState and 3 + 2m its NULL value's ValueState, namespaced by state window.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void declareStates() throws Exception {
        KeyedStateBackend<RowData> backend = getKeyedStateBackend();
        TimeWindow.Serializer windows = new TimeWindow.Serializer();
        port.declareNamespacedValue(
                0,
                "window-aggs",
                (InternalKvState<?, ?, ?>)
                        backend.getOrCreateKeyedState(
                                windows,
                                new ValueStateDescriptor<>(
                                        "window-aggs", new RowDataSerializer(accTypes))),
                StateCodec.row(accTypes),
                StateCodec.timeWindow());
        MapState<TimeWindow, TimeWindow> mapping =
                getPartitionedState(
                        new MapStateDescriptor<>(
                                "session-window-mapping",
                                new TimeWindow.Serializer(),
                                new TimeWindow.Serializer()));
        port.declareMap(
                1,
                "session-window-mapping",
                mapping,
                StateCodec.timeWindow(),
                StateCodec.timeWindow());
        ClassLoader loader = getRuntimeContext().getUserCodeClassLoader();
        for (int m = 0; m < distincts.length; m++) {
            DistinctState d = distincts[m];
            StateCodec counts = d.lanes == 1 ? StateCodec.longValue() : StateCodec.longArray();
            port.declareNamespacedMap(
                    2 + 2 * m,
                    d.stateId,
                    (InternalKvState<?, ?, ?>)
                            backend.getOrCreateKeyedState(
                                    windows,
                                    new MapStateDescriptor<>(
                                            d.stateId,
                                            (TypeSerializer) ExternalSerializer.of(d.keyType),
                                            (TypeSerializer) ExternalSerializer.of(d.valueType))),
                    StateCodec.sqlValue(d.keyType, loader),
                    counts,
                    StateCodec.timeWindow());
            String nullName = d.stateId + DistinctState.NULL_STATE_POSTFIX;
            if (!d.nullKey) {
                port.declareAbsent(3 + 2 * m, nullName);
                continue;
            }
            port.declareNamespacedValue(
                    3 + 2 * m,
                    nullName,
                    (InternalKvState<?, ?, ?>)
                            backend.getOrCreateKeyedState(
                                    windows,
                                    new ValueStateDescriptor<>(
                                            nullName,
                                            (TypeSerializer) ExternalSerializer.of(d.valueType))),
                    counts,
                    StateCodec.timeWindow());
        }
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

    /**
     * Combines the batch into state: Flink's per-record processElement, for a batch at once.
     * Windows whose processing-time timers fired before these rows arrived are fired first.
     */
    @Override
    protected void flush() throws Exception {
        drainFires();
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        long result =
                proctime
                        ? pipeline.processRows(batch.bytes(), batch.offsets(), rows, arrivals)
                        : pipeline.processRows(batch.bytes(), batch.offsets(), rows);
        if (result == NativeLib.STATE_PENDING) {
            result = pipeline.serveState(port);
        }
        finishBatch(emitOutput(pipeline, result, false));
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
        timeServiceManager.advanceWatermark(mark);
        Watermark fired = mark;
        guarded(() -> advance(fired.getTimestamp()));
        output.emitWatermark(mark);
    }

    /**
     * Event time advances to {@code watermark} natively (the timer service's watermark, which
     * decides the late rows of the next batches): the windows whose timers fired are emitted.
     */
    private void advance(long watermark) throws Exception {
        long result = pipeline.advanceEventTime(watermark);
        if (result == NativeLib.STATE_PENDING) {
            result = pipeline.serveState(port);
        }
        emitUntimed(pipeline, result);
        long dropped = pipeline.lateRowsDropped();
        if (dropped > 0) {
            lateRecordsDroppedRate.markEvent(dropped);
        }
    }

    /** WindowOperator.onEventTime: the window's timer fires it (natively, see {@link #advance}). */
    @Override
    public void onEventTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        port.timerFired(timer.getKey(), timer.getNamespace(), timer.getTimestamp());
    }

    /**
     * WindowOperator.onProcessingTime: as onEventTime, after the rows that arrived before the timer
     * reached state (they may have merged the window into a longer one, whose own timer then fires
     * it: the native operator finds the window gone from the mapping).
     */
    @Override
    public void onProcessingTime(InternalTimer<RowData, TimeWindow> timer) throws Exception {
        fireOnProcessingTime(
                timer,
                timers,
                () -> port.timerFired(timer.getKey(), timer.getNamespace(), timer.getTimestamp()));
    }

    /** Fires and emits the windows whose timers fired and were not handed over yet. */
    @Override
    protected void drainFires() throws Exception {
        if (pipeline == null || !port.hasFiredTimers()) {
            return;
        }
        if (!proctime) {
            advance(timers.currentWatermark());
            return;
        }
        long result =
                pipeline.advanceProcessingTime(
                        getProcessingTimeService().getCurrentProcessingTime());
        if (result == NativeLib.STATE_PENDING) {
            result = pipeline.serveState(port);
        }
        emitUntimed(pipeline, result);
    }

    @Override
    protected AutoCloseable nativeAggregate() {
        return pipeline;
    }
}
