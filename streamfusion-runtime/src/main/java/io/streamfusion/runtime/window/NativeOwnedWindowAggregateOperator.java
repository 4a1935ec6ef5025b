package io.streamfusion.runtime.window;

import io.streamfusion.plan.Plan;
import io.streamfusion.plan.WindowAggregateNode;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.MemoryGauges;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.state.RawKeyedSections;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Meter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The operator shell of a native event-time window TVF aggregation (TUMBLE, HOP or CUMULATE;
 * one-phase, or the global phase) whose accumulators and window timers the engine keeps itself
 * (docs/architecture.md, "State"), chosen by {@code streamfusion.window.state}. Its results,
 * late-row handling and emission points are those of {@link NativeWindowAggregateOperator}; what
 * changes is that no Flink keyed state, timer or key switch is touched per group or per window:
 *
 * <ul>
 *   <li>a flush (full buffer, watermark, checkpoint barrier, end of input) hands the rows and the
 *       watermark to native code, which combines them into its state;
 *   <li>a watermark fires the due windows natively in one call; their rows are emitted before the
 *       watermark is forwarded;
 *   <li>a checkpoint writes the native state into Flink's raw keyed state, one section per key
 *       group (Flink's key group of each key), so failure recovery and restores at another
 *       parallelism are Flink's own; the watermark is kept in the union list state "watermark" as
 *       WindowAggOperator keeps it.
 * </ul>
 *
 * <p>The state lives in native memory bounded by the operator's budget, or with its accumulators in
 * a native store on disk (streamfusion.window.state STORE, and AUTO with RocksDB), keys and timers
 * in memory. Savepoints are written in Flink's layout of the windows (keyed state "window-aggs" and
 * timers "window-timers", see {@link FlinkWindowState}) and such state is moved into the native
 * state on restore, so savepoints move between this operator, the stock one and the native one over
 * Flink state.
 */
public class NativeOwnedWindowAggregateOperator extends NativeWindowOperatorBase
        implements Triggerable<RowData, Long> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG =
            LoggerFactory.getLogger(NativeOwnedWindowAggregateOperator.class);

    private final byte[] plan;
    private final int keyArity;
    private final LogicalType[] accTypes;
    private final int outputArity;
    private final long memoryBudgetBytes;
    private final boolean budgetConfigured;

    private transient NativePipeline agg;
    private transient RawKeyedSections restored;
    private transient Meter lateRecordsDroppedRate;
    private transient FlinkWindowState flinkState;

    /** Set while a savepoint is taken: the windows are in Flink's layout, not in raw state. */
    private transient boolean savepoint;

    public NativeOwnedWindowAggregateOperator(ShellSpec spec) {
        // Event time only: a batch never waits for a timer.
        super(spec, Long.MAX_VALUE, true);
        this.plan = spec.plan;
        this.keyArity = spec.keyArity;
        this.accTypes = spec.accTypes;
        this.outputArity = spec.outputArity;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
        this.budgetConfigured = spec.budgetConfigured;
    }

    /**
     * The native state's budget: streamfusion.memory.budget when the job sets it; otherwise its
     * default or, when larger, the operator's share of the slot's managed memory (declared for the
     * window aggregation as Flink declares it for its window buffer; the hashmap backend leaves
     * managed memory unused).
     */
    private long stateBudget() {
        return budgetConfigured
                ? memoryBudgetBytes
                : Math.max(memoryBudgetBytes, computeMemorySize());
    }

    @Override
    protected boolean isUsingCustomRawKeyedState() {
        return true;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restored = RawKeyedSections.read(context);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        int maxParallelism = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
        long budget = stateBudget();
        NativeMetrics.setWindowStateBudget(budget);
        getMetricGroup().gauge("streamfusionNativeStateBudgetBytes", () -> budget);
        // The island's plan (the aggregation, maybe a Calc after it), its state partitioned by
        // Flink's key groups.
        Plan.Builder island = Plans.parse(plan).toBuilder();
        for (int i = 0; i < island.getOperatorsCount(); i++) {
            if (island.getOperators(i).hasWindowAggregate()) {
                WindowAggregateNode.Builder window =
                        island.getOperatorsBuilder(i).getWindowAggregateBuilder();
                window.setOwnedStateKeyGroups(maxParallelism);
                if (!window.getSpillToStore()
                        && !(getKeyedStateBackend() instanceof HeapKeyedStateBackend)) {
                    LOG.warn(
                            "Native window state with the {} state backend: windows are kept in"
                                    + " native memory (bounded by streamfusion.memory.budget), not"
                                    + " in the backend; streamfusion.window.state=STORE keeps"
                                    + " their slices and timers in a native store on disk",
                            getKeyedStateBackend().getClass().getSimpleName());
                }
                if (window.getSpillToStore()) {
                    // The accumulators' store: in one of the TaskManager's local directories,
                    // its cache a quarter of the budget; it deletes its directory when closed.
                    Path dir = nativeStoreDirectory("window");
                    window.setStoreDirectory(dir.toString()).setStoreMemoryBytes(budget / 4);
                    LOG.info("Native window state spills to {}", dir);
                }
            }
        }
        agg = new NativePipeline(island.build().toByteArray(), budget);
        // The restored watermark: rows are combined at it until the next one (nothing is due yet:
        // the state is empty).
        checkNoOutput(agg.advanceEventTime(currentWatermark));
        restored.restoreInto(agg);
        restored = null;
        // Flink's layout of the windows: the state of a savepoint (this operator's, the stock
        // operator's or the native one's over Flink state) is moved into the native state.
        RowDataSerializer accSerializer = new RowDataSerializer(accTypes);
        ValueState<RowData> state =
                getKeyedStateBackend()
                        .getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ValueStateDescriptor<>(
                                        FlinkWindowState.STATE_NAME, accSerializer));
        InternalTimerService<Long> timers =
                getInternalTimerService(
                        FlinkWindowState.TIMERS_NAME, LongSerializer.INSTANCE, this);
        flinkState =
                new FlinkWindowState(
                        (InternalValueState<RowData, Long, RowData>) state,
                        timers,
                        accSerializer,
                        keyArity,
                        this);
        KeyedStateBackend<RowData> backend = getKeyedStateBackend();
        try (Stream<Tuple2<RowData, Long>> keys =
                backend.getKeysAndNamespaces(FlinkWindowState.STATE_NAME)) {
            int moved = flinkState.importInto(agg, keys, maxParallelism);
            if (moved > 0) {
                LOG.info("Moved the windows of {} keys from Flink's window state", moved);
            }
        }
        openBatches(FieldUse.of(Plans.parse(plan)), outputArity);
        lateRecordsDroppedRate = lateRecordsDroppedMeter();
        MemoryGauges.register(getMetricGroup(), () -> agg.memoryBytes());
    }

    /** As Flink's window buffer, a batch waits for a watermark (or a barrier, end, full buffer). */
    @Override
    protected boolean flushesOnTimer() {
        return false;
    }

    @Override
    protected void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        checkNoOutput(agg.processRows(batch.bytes(), batch.offsets(), rows));
        NativeMetrics.addNativeStateRows(rows);
        finishBatch(0);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flushGuarded();
        if (mark.getTimestamp() > currentWatermark) {
            currentWatermark = mark.getTimestamp();
        }
        // Also at an old watermark: a late row may have registered a timer that is already due,
        // which Flink's timer service fires at its next watermark.
        guarded(
                () -> {
                    emitUntimed(agg, agg.advanceEventTime(currentWatermark));
                    long dropped = agg.lateRowsDropped();
                    if (dropped > 0) {
                        lateRecordsDroppedRate.markEvent(dropped);
                    }
                });
        output.emitWatermark(new Watermark(currentWatermark));
    }

    /**
     * A savepoint holds the windows in Flink's layout (so stock Flink, or this engine over Flink
     * state, restores it): they are written into Flink's state and timers before the snapshot and
     * removed once its synchronous part (which copies the heap state, or snapshots RocksDB) is
     * done. Checkpoints keep the native sections in raw keyed state.
     */
    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId,
            long timestamp,
            CheckpointOptions checkpointOptions,
            CheckpointStreamFactory factory)
            throws Exception {
        if (!checkpointOptions.getCheckpointType().isSavepoint()) {
            return super.snapshotState(checkpointId, timestamp, checkpointOptions, factory);
        }
        checkNotFailed();
        Object key = getCurrentKey();
        FlinkWindowState.Exported exported = flinkState.export(agg.snapshot());
        savepoint = true;
        try {
            return super.snapshotState(checkpointId, timestamp, checkpointOptions, factory);
        } finally {
            savepoint = false;
            exported.clear();
            if (key != null) {
                setCurrentKey(key);
            }
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        checkNotFailed();
        if (savepoint) {
            return;
        }
        RawKeyedSections.write(context, agg.snapshot(), "Native window state");
    }

    /** Flink timers exist only while a savepoint is taken; none may fire. */
    @Override
    public void onEventTime(InternalTimer<RowData, Long> timer) {
        throw new IllegalStateException(
                "A Flink timer fired for native window state (window end "
                        + timer.getNamespace()
                        + ")");
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, Long> timer) {
        onEventTime(timer);
    }

    /** Rows are only combined into the state: windows come out at watermarks. */
    private static void checkNoOutput(long result) {
        if (CallResult.statePending(result) || CallResult.rows(result) != 0) {
            throw new IllegalStateException("Native window state emitted rows outside a watermark");
        }
    }

    /** Windows fire within {@link #processWatermark}: none is ever pending. */
    @Override
    protected void drainFires() {}

    @Override
    protected AutoCloseable nativeAggregate() {
        return agg;
    }
}
