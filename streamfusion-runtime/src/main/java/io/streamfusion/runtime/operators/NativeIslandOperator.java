package io.streamfusion.runtime.operators;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.jni.NativeException;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;
import io.streamfusion.runtime.transpose.RowImageEmitter;
import io.streamfusion.runtime.udf.UdfBridge;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.runtime.operators.TableStreamOperator;
import org.apache.flink.table.types.logical.RowType;

/**
 * The operator shell of a stateless native island (a chain of native operators such as Calc).
 *
 * <p>Rows are collected into a batch (entry transpose) and run through the native pipeline;
 * the native output is emitted as BinaryRowData (exit transpose). A batch is processed when it
 * is full, before a watermark or watermark status is forwarded, before a checkpoint barrier
 * ({@link #prepareSnapshotPreBarrier}), at end of input, and when its oldest row has waited
 * {@code maxDelayMillis} of processing time, so no record is ever held back.
 *
 * <p>User-defined functions of the plan are instantiated, opened and closed here, as Flink's
 * generated Calc does; the pipeline calls them back once per batch.
 */
public class NativeIslandOperator extends TableStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final RowType inputType;
    private final int outputArity;
    private final int batchSize;
    private final long maxDelayMillis;
    private final long memoryBudgetBytes;

    private transient NativePipeline pipeline;
    private transient UdfBridge udfs;
    private transient RowImageBatch batch;
    private transient RowImageEmitter emitter;
    private transient StreamRecord<RowData> outRecord;
    private transient boolean flushTimerPending;
    private transient Counter nativeRecordsIn;
    private transient Counter nativeRecordsOut;

    public NativeIslandOperator(
            byte[] plan,
            RowType inputType,
            int outputArity,
            int batchSize,
            long maxDelayMillis,
            long memoryBudgetBytes) {
        this.plan = plan;
        this.inputType = inputType;
        this.outputArity = outputArity;
        this.batchSize = batchSize;
        this.maxDelayMillis = maxDelayMillis;
        this.memoryBudgetBytes = memoryBudgetBytes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        Plan parsed = Plan.parseFrom(plan);
        udfs = UdfBridge.forPlan(parsed, getRuntimeContext().getUserCodeClassLoader());
        if (udfs != null) {
            udfs.open(new FunctionContext(getRuntimeContext()));
        }
        pipeline = new NativePipeline(plan, memoryBudgetBytes, udfs);
        batch = new RowImageBatch(inputType, FieldUse.of(parsed), batchSize);
        emitter = new RowImageEmitter(outputArity);
        outRecord = new StreamRecord<>(null);
        nativeRecordsIn = getMetricGroup().counter("streamfusionNativeRecordsIn");
        nativeRecordsOut = getMetricGroup().counter("streamfusionNativeRecordsOut");
        getMetricGroup()
                .gauge(
                        "streamfusionNativeMemoryBytes",
                        () -> pipeline == null ? 0L : pipeline.memoryBytes());
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        batch.add(
                element.getValue(),
                element.hasTimestamp() ? element.getTimestamp() : RowImageBatch.NO_TIMESTAMP);
        if (batch.numRows() >= batchSize) {
            flush();
        } else if (!flushTimerPending) {
            flushTimerPending = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + maxDelayMillis, time -> onFlushTimer());
        }
    }

    private void onFlushTimer() throws Exception {
        flushTimerPending = false;
        flush();
    }

    /** Runs the collected rows through the native pipeline and emits its output. */
    private void flush() throws Exception {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        long result;
        try {
            result = pipeline.processRows(batch.bytes(), batch.offsets(), rows);
        } catch (NativeException e) {
            Throwable failure = udfs == null ? null : udfs.takeFailure();
            if (failure == null) {
                throw e;
            }
            // The user-defined function's own exception, as Flink's generated code lets it out.
            if (failure instanceof Exception) {
                throw (Exception) failure;
            }
            if (failure instanceof Error) {
                throw (Error) failure;
            }
            throw new RuntimeException(failure);
        }
        int outRows = (int) result;
        int outBytes = (int) (result >>> 32);
        if (outRows > 0) {
            byte[] bytes = new byte[outBytes];
            int[] offsets = new int[outRows + 1];
            if (batch.anyTimestamp()) {
                // Each output record keeps the timestamp of the input record it came from, as
                // Flink's Calc does.
                int[] sources = new int[outRows];
                pipeline.copyOutput(bytes, offsets, sources);
                long[] timestamps = batch.timestamps();
                int[] next = {0};
                emitter.emit(
                        bytes,
                        offsets,
                        outRows,
                        row -> {
                            long timestamp = timestamps[sources[next[0]++]];
                            if (timestamp == RowImageBatch.NO_TIMESTAMP) {
                                outRecord.eraseTimestamp();
                            } else {
                                outRecord.setTimestamp(timestamp);
                            }
                            output.collect(outRecord.replace(row));
                        });
            } else {
                pipeline.copyOutput(bytes, offsets, null);
                outRecord.eraseTimestamp();
                emitter.emit(
                        bytes, offsets, outRows, row -> output.collect(outRecord.replace(row)));
            }
        }
        NativeMetrics.addSerializedRows(batch.numSerialized());
        batch.clear();
        nativeRecordsIn.inc(rows);
        nativeRecordsOut.inc(outRows);
        NativeMetrics.addBatch(rows, outRows);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus watermarkStatus) throws Exception {
        flush();
        super.processWatermarkStatus(watermarkStatus);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (pipeline != null) {
                pipeline.close();
                pipeline = null;
            }
            if (udfs != null) {
                UdfBridge closing = udfs;
                udfs = null;
                closing.close();
            }
        }
    }
}
