package io.streamfusion.runtime.island;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.Evidence;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.state.PortStoreState;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;
import io.streamfusion.runtime.transpose.RowImageEmitter;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.TableStreamOperator;
import org.apache.flink.table.types.logical.RowType;

import java.util.function.Function;

import javax.annotation.Nullable;

/**
 * What every native operator shell shares: rows are collected into a batch (entry transpose) and
 * handed to {@link #flush()} when the batch is full, before a watermark or watermark status is
 * forwarded, before a checkpoint barrier ({@link #prepareSnapshotPreBarrier}), at end of input, and
 * (unless {@link #flushesOnTimer()} says no) when its oldest row has waited {@code maxDelayMillis}
 * of processing time, so no record is held back; native output is emitted as BinaryRowData (exit
 * transpose).
 */
public abstract class NativeBatchOperator extends TableStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    protected final RowType inputType;
    protected final int batchSize;
    private final long maxDelayMillis;

    /** Whether the exit borrows the island's output memory ({@link ShellSpec#borrowedExit}). */
    private final boolean borrowedExit;

    protected transient RowImageBatch batch;
    private transient RowImageEmitter emitter;
    private transient boolean borrowing;
    private transient StreamRecord<RowData> outRecord;
    private transient boolean flushTimerPending;
    private transient Counter nativeRecordsIn;
    private transient Counter nativeRecordsOut;

    /** The native store's checkpoints and savepoints ({@link #portStoreState}), or null. */
    protected transient PortStoreState portStore;

    /**
     * The first exception that escaped a flush or an emission. A batch may then be partly emitted
     * or partly in state; the operator does no more work and, above all, takes no checkpoint, which
     * could persist those rows and have them replayed again after the restore.
     */
    private transient Throwable failure;

    /**
     * The island whose watermark assigner this shell drives (timers, upstream watermarks and
     * statuses, the watermarks between its output rows), or null when it has none.
     */
    private transient NativePipeline assignerIsland;

    private transient long watermarkInterval;

    /** A shell of {@code spec}'s island whose oldest row waits at most {@code maxDelayMillis}. */
    protected NativeBatchOperator(ShellSpec spec, long maxDelayMillis) {
        this.inputType = spec.inputType;
        this.batchSize = spec.batchSize;
        this.maxDelayMillis = maxDelayMillis;
        this.borrowedExit = spec.borrowedExit;
    }

    /** Called from {@link #open()} of the subclass once it knows what it reads and writes. */
    protected void openBatches(FieldUse use, int outputArity) {
        batch = new RowImageBatch(inputType, use, batchSize);
        // The planner checked the job's object reuse; a job may still set it on its environment
        // after planning, and then a chained consumer could keep a row past its batch.
        borrowing = borrowedExit && !getExecutionConfig().isObjectReuseEnabled();
        emitter = new RowImageEmitter(outputArity);
        outRecord = new StreamRecord<>(null);
        nativeRecordsIn = getMetricGroup().counter("streamfusionNativeRecordsIn");
        nativeRecordsOut = getMetricGroup().counter("streamfusionNativeRecordsOut");
        Evidence.opened(getRuntimeContext().getJobInfo().getJobId().toString(), getOperatorName());
    }

    /**
     * What the shell's island keeps in the native store as its state port's states (named for logs
     * and errors), or null when it keeps no state there. Such a shell opens its island with {@link
     * PortStoreState#withPortStore} and calls {@link PortStoreState#restore} on {@link #portStore}
     * before its first input; checkpoints and savepoints are then taken here.
     */
    protected String portStoreState() {
        return null;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        String what = portStoreState();
        if (what != null) {
            portStore = new PortStoreState(what);
            portStore.initialize(context);
        }
    }

    @Override
    protected boolean isUsingCustomRawKeyedState() {
        return portStoreState() != null;
    }

    /**
     * A savepoint holds state in the native store in Flink's layout (so stock Flink, or this engine
     * over Flink state, restores it); checkpoints keep the store's sections in raw keyed state
     * ({@link PortStoreState}).
     */
    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId,
            long timestamp,
            CheckpointOptions checkpointOptions,
            CheckpointStreamFactory factory)
            throws Exception {
        if (portStore == null || !checkpointOptions.getCheckpointType().isSavepoint()) {
            return super.snapshotState(checkpointId, timestamp, checkpointOptions, factory);
        }
        Object key = getCurrentKey();
        return portStore.savepoint(
                () -> super.snapshotState(checkpointId, timestamp, checkpointOptions, factory),
                () -> {
                    if (key != null) {
                        setCurrentKey(key);
                    }
                });
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (portStore != null) {
            portStore.checkpoint(context);
        }
    }

    /**
     * A fresh directory for a native store of this subtask (named after {@code what}, the operator
     * and the subtask): in one of the TaskManager's local directories (the IOManager's spilling
     * directories, spread by subtask). The store creates it and deletes it when closed.
     */
    protected java.nio.file.Path nativeStoreDirectory(String what) {
        String[] dirs =
                getContainingTask().getEnvironment().getIOManager().getSpillingDirectoriesPaths();
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        java.nio.file.Path dir =
                java.nio.file.Paths.get(
                        dirs[subtask % dirs.length],
                        "streamfusion-"
                                + what
                                + "-store-"
                                + getOperatorID()
                                + "-"
                                + subtask
                                + "-"
                                + java.util.UUID.randomUUID());
        NativeMetrics.addStoreDirectory(dir.toString());
        return dir;
    }

    /**
     * Creates the island's pipeline with {@code create} from {@code plan}. When the island has a
     * watermark assigner, the plan gets the interval and processing time that Flink's operator
     * reads when it opens (the job's auto-watermark interval, not the planner's configuration),
     * this shell drives the assigner, and its periodic timer starts as Flink's operator starts it.
     */
    protected NativePipeline openPipeline(byte[] plan, Function<byte[], NativePipeline> create)
            throws Exception {
        Plan parsed = Plans.parse(plan);
        int assigner = -1;
        for (int i = 0; i < parsed.getOperatorsCount(); i++) {
            if (parsed.getOperators(i).hasWatermarkAssigner()) {
                assigner = i;
            }
        }
        if (assigner < 0) {
            return create.apply(plan);
        }
        watermarkInterval = getExecutionConfig().getAutoWatermarkInterval();
        long opened = getProcessingTimeService().getCurrentProcessingTime();
        Plan.Builder timed = parsed.toBuilder();
        timed.getOperatorsBuilder(assigner)
                .getWatermarkAssignerBuilder()
                .setIntervalMillis(watermarkInterval)
                .setOpenProcessingTime(opened);
        assignerIsland = create.apply(timed.build().toByteArray());
        if (watermarkInterval > 0) {
            getProcessingTimeService()
                    .registerTimer(opened + watermarkInterval, time -> onWatermarkTimer());
        }
        return assignerIsland;
    }

    /**
     * The assigner's periodic timer: the rows collected so far come first (Flink processed them
     * before the timer's mail), then the timer step, then the next timer, from the firing's time.
     */
    private void onWatermarkTimer() throws Exception {
        flushGuarded();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        guarded(() -> emitUntimed(assignerIsland, assignerIsland.advanceProcessingTime(now)));
        getProcessingTimeService()
                .registerTimer(now + watermarkInterval, time -> onWatermarkTimer());
    }

    /**
     * With an assigner, an upstream watermark is dropped as Flink's operator drops it, except the
     * end of event time, which the island's assigner takes after the rows before it.
     */
    private void assignerWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() != Long.MAX_VALUE) {
            return;
        }
        flushGuarded();
        guarded(() -> emitUntimed(assignerIsland, assignerIsland.advanceEventTime(Long.MAX_VALUE)));
    }

    /**
     * Whether a processing-time timer may end a batch (not when a batch is a mini-batch bundle).
     */
    protected boolean flushesOnTimer() {
        return true;
    }

    /** Processes the collected rows (if any), emits the output and clears the batch. */
    protected abstract void flush() throws Exception;

    /**
     * After {@link #flush()} at a watermark, a checkpoint barrier and the end of input: emits what
     * native operators buffer across batches (a local window phase's partial accumulators, as
     * Flink's local window buffer is flushed there). Default: nothing is buffered.
     */
    protected void flushBuffers() throws Exception {}

    /** {@link #flush()}, then {@link #flushBuffers()}, refused after a failure. */
    private void flushAll() throws Exception {
        flushGuarded();
        guarded(this::flushBuffers);
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (element.hasTimestamp()) {
            batch.add(element.getValue(), element.getTimestamp());
        } else {
            batch.addUntimed(element.getValue());
        }
        if (batch.numRows() >= batchSize) {
            flushGuarded();
        } else if (!flushTimerPending && flushesOnTimer()) {
            flushTimerPending = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + maxDelayMillis, time -> onFlushTimer());
        }
    }

    private void onFlushTimer() throws Exception {
        flushTimerPending = false;
        flushGuarded();
    }

    /** {@link #flush()}, refused after a failure and remembering its own. */
    protected void flushGuarded() throws Exception {
        guarded(this::flush);
    }

    /** Runs {@code work} of this operator, refused after a failure and remembering its own. */
    protected void guarded(GuardedWork work) throws Exception {
        checkNotFailed();
        try {
            work.run();
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        }
    }

    /** Work whose failure leaves the operator's batch or state partly processed. */
    protected interface GuardedWork {
        void run() throws Exception;
    }

    /** Throws once a flush or an emission of this operator has failed (see {@link #failure}). */
    protected void checkNotFailed() {
        if (failure != null) {
            throw new IllegalStateException(
                    "A StreamFusion batch failed earlier ("
                            + failure
                            + "); the operator processes nothing more and takes no checkpoint"
                            + " while its task fails",
                    failure);
        }
    }

    /**
     * Emits {@code rows} output row images. When {@code sources} is given, output row i keeps the
     * timestamp of input row sources[i], Long.MIN_VALUE included (as Flink's GroupAggFunction and
     * watermark assigner do), none where sources[i] is -1 or that row had none (the native side
     * gives -1 after a Calc, whose generated code emits records without a timestamp); otherwise the
     * records carry none.
     */
    protected void emit(MemorySegment bytes, int[] offsets, int rows, @Nullable int[] sources)
            throws Exception {
        emit(bytes, offsets, rows, sources, null);
    }

    /**
     * As {@link #emit(MemorySegment, int[], int, int[])}, with the {@code watermarks} of an
     * island's assigner between the rows: pairs (rows before it, watermark), in order.
     */
    private void emit(
            @Nullable MemorySegment bytes,
            int[] offsets,
            int rows,
            @Nullable int[] sources,
            @Nullable long[] watermarks)
            throws Exception {
        checkNotFailed();
        try {
            emitRows(bytes, offsets, rows, sources, watermarks);
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        }
    }

    private void emitRows(
            @Nullable MemorySegment bytes,
            int[] offsets,
            int rows,
            @Nullable int[] sources,
            @Nullable long[] watermarks)
            throws Exception {
        // next[0]: rows emitted; next[1]: the next watermark pair.
        int[] next = {0, 0};
        if (sources == null || !batch.anyTimestamp()) {
            outRecord.eraseTimestamp();
            if (rows > 0) {
                emitter.emit(
                        bytes,
                        offsets,
                        rows,
                        row -> {
                            emitWatermarksBefore(watermarks, next);
                            next[0]++;
                            output.collect(outRecord.replace(row));
                        });
            }
            emitWatermarksBefore(watermarks, next);
            return;
        }
        emitter.emit(
                bytes,
                offsets,
                rows,
                row -> {
                    emitWatermarksBefore(watermarks, next);
                    int source = sources[next[0]++];
                    if (source < 0 || !batch.hasTimestamp(source)) {
                        outRecord.eraseTimestamp();
                    } else {
                        outRecord.setTimestamp(batch.timestamp(source));
                    }
                    output.collect(outRecord.replace(row));
                });
        emitWatermarksBefore(watermarks, next);
    }

    /**
     * Emits the {@code watermarks} (pairs: rows before it, watermark) due before row {@code
     * next[0]}, from pair {@code next[1]} on; the watermarks after the last row when it is the end.
     */
    private void emitWatermarksBefore(@Nullable long[] watermarks, int[] next) {
        if (watermarks == null) {
            return;
        }
        while (next[1] < watermarks.length && watermarks[next[1]] <= next[0]) {
            output.emitWatermark(new Watermark(watermarks[next[1] + 1]));
            next[1] += 2;
        }
    }

    /** Counts a processed batch and clears it. */
    protected void finishBatch(int outRows) {
        int rows = batch.numRows();
        NativeMetrics.addSerializedRows(batch.numSerialized());
        batch.clear();
        nativeRecordsIn.inc(rows);
        nativeRecordsOut.inc(outRows);
        NativeMetrics.addBatch(rows, outRows);
    }

    /**
     * Flushes {@code pipeline} (what its operators keep across batches) and emits what that forces
     * out; no row of it has a timestamp.
     */
    protected void emitFlushed(NativePipeline pipeline) throws Exception {
        emitUntimed(pipeline, pipeline.flush());
    }

    /**
     * Emits and counts the output of a {@code pipeline} call that took no input batch (a flush,
     * fired windows, an advance of time): no row of it has a timestamp.
     */
    protected void emitUntimed(NativePipeline pipeline, long result) throws Exception {
        countEmitted(emitOutput(pipeline, result, false));
    }

    /**
     * Emits the output of a {@code pipeline} call that returned {@code result} ({@code (outputBytes
     * << 32) | outputRows}); returns its rows. With {@code timed}, each row gets the timestamp of
     * the batch's input row it descends from; else none (fired windows, flushed buffers, bundles).
     */
    protected int emitOutput(NativePipeline pipeline, long result, boolean timed) throws Exception {
        int outRows = CallResult.rows(result);
        long[] watermarks = CallResult.watermarksPending(result) ? pipeline.takeWatermarks() : null;
        if (outRows > 0) {
            int[] offsets = new int[outRows + 1];
            int[] sources = timed ? new int[outRows] : null;
            MemorySegment rows;
            if (borrowing) {
                // Valid until the pipeline's next call: every row is copied (chained edge, object
                // reuse off) or serialized (network edge) inside output.collect.
                rows =
                        MemorySegmentFactory.wrapOffHeapMemory(
                                pipeline.borrowOutput(offsets, sources));
                NativeMetrics.addBorrowedRows(outRows);
            } else {
                byte[] bytes = new byte[CallResult.bytes(result)];
                pipeline.copyOutput(bytes, offsets, sources);
                rows = MemorySegmentFactory.wrap(bytes);
            }
            emit(rows, offsets, outRows, sources, watermarks);
        } else if (watermarks != null) {
            emit(null, null, 0, null, watermarks);
        }
        return outRows;
    }

    /** Counts output rows computed outside a batch (fired windows, flushed buffers). */
    protected void countEmitted(int outRows) {
        nativeRecordsOut.inc(outRows);
        NativeMetrics.addBatch(0, outRows);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (assignerIsland != null) {
            assignerWatermark(mark);
            return;
        }
        flushAll();
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus watermarkStatus) throws Exception {
        flushGuarded();
        if (assignerIsland != null) {
            assignerIsland.watermarkStatus(watermarkStatus.isIdle());
        }
        super.processWatermarkStatus(watermarkStatus);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flushAll();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        flushAll();
    }

    /** Before the shell closes its island (and its native store with it). */
    @Override
    public void close() throws Exception {
        if (portStore != null) {
            portStore.close();
        }
        super.close();
    }

    /**
     * With an assigner, Flink's operator ends event time in {@code finish()} (unless upstream did),
     * before the operators after it finish.
     */
    @Override
    public void finish() throws Exception {
        if (assignerIsland != null) {
            assignerWatermark(Watermark.MAX_WATERMARK);
        }
        flushAll();
        super.finish();
    }
}
