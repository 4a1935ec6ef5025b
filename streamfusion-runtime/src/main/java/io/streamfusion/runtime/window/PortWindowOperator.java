package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.MemoryGauges;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.state.KeyedStatePort;
import io.streamfusion.runtime.state.PortStoreState;
import io.streamfusion.runtime.state.StateCodec;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.metrics.Meter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.runtime.state.internal.InternalValueState;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.List;

/**
 * What the shells of the window aggregations over Flink state and timers on the operator contract
 * share (everything namespaced by a window of type {@code N}: WindowOperator's {@link TimeWindow},
 * WindowAggOperator's slice or window end, a {@code Long}): the native operator runs as an island
 * and reaches its state and timers through a {@link KeyedStatePort}, which this class declares as
 * Flink's operator declares them: state 0 the accumulator {@code ValueState<RowData>}
 * "window-aggs", then the subclass's own states ({@link #declareStates}), then for each map m of
 * PerWindowStateDataViewStore (DISTINCT maps, MIN/MAX maps over an updating input) its MapState and
 * its NULL value's ValueState; timer service 0 is "window-timers".
 *
 * <p>Rows are handed over in batches; Flink's timer service fires the windows, and each fired timer
 * is handed to the port ({@link KeyedStatePort#timerFired}) in Flink's order: the native operator
 * takes them when its time advances, after the watermark advanced the timer service (the windows'
 * rows are emitted before the watermark is forwarded) or, on processing time, before the next batch
 * and on a timer of its own ({@link #fireOnProcessingTime}). On processing time each row's arrival
 * time, taken when it reaches this operator as Flink's operator takes it per record, is handed over
 * with its batch.
 *
 * <p>With the state in the native store (streamfusion.window.state STORE, or AUTO with RocksDB;
 * event time only) the same states and the "window-timers" live in the island's native store on
 * disk, which serves the port inside the island (native/src/streamfusion/state/port_store.h): no
 * JVM round per batch, and the store fires the timers at each watermark. Checkpoints hold the
 * store's key groups in raw keyed state; a savepoint holds states and timers in Flink's layout
 * ({@link PortStoreState}).
 */
abstract class PortWindowOperator<N> extends NativeWindowOperatorBase
        implements Triggerable<RowData, N> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(PortWindowOperator.class);

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final int outputArity;
    private final DistinctState[] distincts;
    private final long memoryBudgetBytes;
    private final boolean keepsWatermark;

    /**
     * The states and the event-time timers are in the island's native store, not in Flink's keyed
     * state and timer service (see the class comment).
     */
    private final boolean stateInStore;

    protected transient NativePipeline pipeline;
    protected transient KeyedStatePort port;
    protected transient InternalTimerService<N> timers;

    /** State 0 of the port, the accumulators "window-aggs". */
    protected transient InternalValueState<RowData, N, RowData> windowAggs;

    protected transient boolean proctime;
    private transient Meter lateRecordsDroppedRate;
    private transient long[] arrivals;

    /**
     * @param keepsWatermark WindowAggOperator's union list state "watermark" (the window TVFs), to
     *     which the timer service is initialized and which replaces a lower watermark
     * @param stateInStore keep the states and event-time timers in the native store
     */
    protected PortWindowOperator(ShellSpec spec, boolean keepsWatermark, boolean stateInStore) {
        super(spec, spec.maxDelayMillis, keepsWatermark);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.outputArity = spec.outputArity;
        this.distincts = spec.distincts;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
        this.keepsWatermark = keepsWatermark;
        this.stateInStore = stateInStore;
    }

    /** Whether the plan's window is on processing time. */
    protected abstract boolean isProcessingTime(Plan plan);

    /** The serializer of the windows that namespace state and timers. */
    protected abstract TypeSerializer<N> namespaceSerializer();

    /** Their codec for the port. */
    protected abstract StateCodec namespaceCodec();

    /**
     * A timer's time in the timer service, for the time the native operator gives (default: the
     * same).
     */
    protected long timerTime(long nativeTime) {
        return nativeTime;
    }

    /** Processing time: the time handed over with a row arriving now (default: the time). */
    protected long arrivalTime() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }

    /**
     * Declares the subclass's states from 1 on, between the accumulators and the maps; returns the
     * number of the first map's state.
     */
    protected int declareStates() throws Exception {
        return 1;
    }

    @Override
    protected String portStoreState() {
        return stateInStore ? "Native window state" : null;
    }

    @Override
    public void open() throws Exception {
        super.open();
        timers = getInternalTimerService("window-timers", namespaceSerializer(), this);
        if (keepsWatermark) {
            timers.initializeWatermark(currentWatermark);
        }
        port = new KeyedStatePort(keyArity, this::setCurrentKey);
        declareWindowStates();
        port.declareTimers(0, timers, namespaceCodec(), this::timerTime);
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        Plan parsed = Plans.parse(plan);
        proctime = isProcessingTime(parsed);
        arrivals = proctime ? new long[64] : null;
        if (stateInStore && proctime) {
            throw new IllegalStateException(
                    "A processing-time window keeps Flink's timers, not the native store's");
        }
        byte[] runPlan =
                stateInStore
                        ? portStore.withPortStore(
                                parsed,
                                nativeStoreDirectory("window"),
                                memoryBudgetBytes / 4,
                                getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks(),
                                port,
                                List.of("window-timers"))
                        : plan;
        pipeline = openPipeline(runPlan, p -> new NativePipeline(p, memoryBudgetBytes));
        if (stateInStore) {
            // State and timers in Flink's layout (a savepoint) move into the store.
            int moved = portStore.restore(pipeline, port, getKeyedStateBackend());
            if (moved > 0) {
                LOG.info(
                        "Moved the windows of {} keys from Flink state into the native store",
                        moved);
            }
        }
        openBatches(FieldUse.of(parsed), outputArity);
        if (keepsWatermark && currentWatermark != Long.MIN_VALUE) {
            // The restored watermark decides which rows are late, as the timer service's does.
            guarded(() -> advance(currentWatermark));
        }
        MemoryGauges.register(
                getMetricGroup(), () -> pipeline == null ? 0L : pipeline.memoryBytes());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void declareWindowStates() throws Exception {
        KeyedStateBackend<RowData> backend = getKeyedStateBackend();
        TypeSerializer<N> windows = namespaceSerializer();
        StateCodec namespaces = namespaceCodec();
        windowAggs =
                (InternalValueState<RowData, N, RowData>)
                        backend.getOrCreateKeyedState(
                                windows,
                                new ValueStateDescriptor<>(
                                        "window-aggs", new RowDataSerializer(accTypes)));
        port.declareNamespacedValue(
                0, "window-aggs", windowAggs, StateCodec.row(accTypes), namespaces);
        int first = declareStates();
        ClassLoader loader = getRuntimeContext().getUserCodeClassLoader();
        for (int m = 0; m < distincts.length; m++) {
            DistinctState d = distincts[m];
            StateCodec counts = d.lanes == 1 ? StateCodec.longValue() : StateCodec.longArray();
            port.declareNamespacedMap(
                    first + 2 * m,
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
                    namespaces);
            String nullName = d.stateId + DistinctState.NULL_STATE_POSTFIX;
            if (!d.nullKey) {
                port.declareAbsent(first + 2 * m + 1, nullName);
                continue;
            }
            port.declareNamespacedValue(
                    first + 2 * m + 1,
                    nullName,
                    (InternalKvState<?, ?, ?>)
                            backend.getOrCreateKeyedState(
                                    windows,
                                    new ValueStateDescriptor<>(
                                            nullName,
                                            (TypeSerializer) ExternalSerializer.of(d.valueType))),
                    counts,
                    namespaces);
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
            arrivals[row] = arrivalTime();
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
        if (stateInStore) {
            NativeMetrics.addNativeStateRows(rows);
        }
        if (CallResult.statePending(result)) {
            result = pipeline.serveState(port);
        }
        finishBatch(emitOutput(pipeline, result, false));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flushGuarded();
        if (mark.getTimestamp() > currentWatermark) {
            currentWatermark = mark.getTimestamp();
        } else if (keepsWatermark) {
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
        if (CallResult.statePending(result)) {
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
    public void onEventTime(InternalTimer<RowData, N> timer) throws Exception {
        port.timerFired(timer.getKey(), timer.getNamespace(), timer.getTimestamp());
    }

    /**
     * WindowOperator.onProcessingTime: as onEventTime, after the rows that arrived before the timer
     * reached state.
     */
    @Override
    public void onProcessingTime(InternalTimer<RowData, N> timer) throws Exception {
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
        if (CallResult.statePending(result)) {
            result = pipeline.serveState(port);
        }
        emitUntimed(pipeline, result);
    }

    @Override
    protected AutoCloseable nativeAggregate() {
        return pipeline;
    }
}
