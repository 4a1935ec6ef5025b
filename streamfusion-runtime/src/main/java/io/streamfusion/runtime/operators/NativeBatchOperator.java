package io.streamfusion.runtime.operators;

import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.metrics.Evidence;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;
import io.streamfusion.runtime.transpose.RowImageEmitter;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.TableStreamOperator;
import org.apache.flink.table.types.logical.RowType;

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

    protected transient RowImageBatch batch;
    private transient RowImageEmitter emitter;
    private transient StreamRecord<RowData> outRecord;
    private transient boolean flushTimerPending;
    private transient Counter nativeRecordsIn;
    private transient Counter nativeRecordsOut;

    /**
     * The first exception that escaped a flush or an emission. A batch may then be partly emitted
     * or partly in state; the operator does no more work and, above all, takes no checkpoint, which
     * could persist those rows and have them replayed again after the restore.
     */
    private transient Throwable failure;

    protected NativeBatchOperator(RowType inputType, int batchSize, long maxDelayMillis) {
        this.inputType = inputType;
        this.batchSize = batchSize;
        this.maxDelayMillis = maxDelayMillis;
    }

    /** Called from {@link #open()} of the subclass once it knows what it reads and writes. */
    protected void openBatches(FieldUse use, int outputArity) {
        batch = new RowImageBatch(inputType, use, batchSize);
        emitter = new RowImageEmitter(outputArity);
        outRecord = new StreamRecord<>(null);
        nativeRecordsIn = getMetricGroup().counter("streamfusionNativeRecordsIn");
        nativeRecordsOut = getMetricGroup().counter("streamfusionNativeRecordsOut");
        Evidence.opened(getRuntimeContext().getJobInfo().getJobId().toString(), getOperatorName());
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
        batch.add(
                element.getValue(),
                element.hasTimestamp() ? element.getTimestamp() : RowImageBatch.NO_TIMESTAMP);
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
     * timestamp of input row sources[i] (as Flink's Calc and GroupAggFunction do), none where
     * sources[i] is -1; otherwise the records carry none.
     */
    protected void emit(byte[] bytes, int[] offsets, int rows, @Nullable int[] sources)
            throws Exception {
        checkNotFailed();
        try {
            emitRows(bytes, offsets, rows, sources);
        } catch (Exception | Error e) {
            failure = e;
            throw e;
        }
    }

    private void emitRows(byte[] bytes, int[] offsets, int rows, @Nullable int[] sources)
            throws Exception {
        if (sources == null || !batch.anyTimestamp()) {
            outRecord.eraseTimestamp();
            emitter.emit(bytes, offsets, rows, row -> output.collect(outRecord.replace(row)));
            return;
        }
        long[] timestamps = batch.timestamps();
        int[] next = {0};
        emitter.emit(
                bytes,
                offsets,
                rows,
                row -> {
                    int source = sources[next[0]++];
                    long timestamp = source < 0 ? RowImageBatch.NO_TIMESTAMP : timestamps[source];
                    if (timestamp == RowImageBatch.NO_TIMESTAMP) {
                        outRecord.eraseTimestamp();
                    } else {
                        outRecord.setTimestamp(timestamp);
                    }
                    output.collect(outRecord.replace(row));
                });
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
        countEmitted(emitOutput(pipeline, pipeline.flush(), false));
    }

    /**
     * Emits the output of a {@code pipeline} call that returned {@code result} ({@code (outputBytes
     * << 32) | outputRows}); returns its rows. With {@code timed}, each row gets the timestamp of
     * the batch's input row it descends from; else none (fired windows, flushed buffers, bundles).
     */
    protected int emitOutput(NativePipeline pipeline, long result, boolean timed) throws Exception {
        int outRows = (int) result;
        if (outRows > 0) {
            byte[] bytes = new byte[(int) (result >>> 32)];
            int[] offsets = new int[outRows + 1];
            int[] sources = timed ? new int[outRows] : null;
            pipeline.copyOutput(bytes, offsets, sources);
            emit(bytes, offsets, outRows, sources);
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
        flushAll();
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus watermarkStatus) throws Exception {
        flushGuarded();
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

    @Override
    public void finish() throws Exception {
        flushAll();
        super.finish();
    }
}
