package io.streamfusion.runtime.island;

import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.jni.NativeException;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.metrics.MemoryGauges;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.udf.UdfBridge;

import org.apache.flink.table.functions.FunctionContext;

/**
 * The operator shell of a stateless native island: a chain of native operators on the operator
 * contract (Calc, a watermark assigner, the local phase of a window aggregation), run as one native
 * pipeline. With a watermark assigner, the shell runs its periodic timer and emits its watermarks
 * between the output rows where Flink's operator would (see {@link
 * NativeBatchOperator#openPipeline}).
 *
 * <p>Rows are collected into a batch (entry transpose) and run through the native pipeline; the
 * native output is emitted as BinaryRowData (exit transpose), each row with the timestamp its
 * records would carry on stock Flink: its input row's where every operator on the way keeps it (the
 * watermark assigner, GroupAggFunction), none after a Calc (Flink's generated Calc emits records of
 * its own, without one) and for rows that descend from no input row (a local window aggregation's
 * accumulator rows). A batch is processed when it is full, before a watermark or watermark status
 * is forwarded, before a checkpoint barrier ({@link #prepareSnapshotPreBarrier}), at end of input,
 * and, unless the island ends in a local window aggregation (whose batches end where Flink's local
 * window buffer is flushed), when its oldest row has waited {@code maxDelayMillis} of processing
 * time, so no record is ever held back.
 *
 * <p>User-defined functions of the plan are instantiated, opened and closed here, as Flink's
 * generated Calc does; the pipeline calls them back once per batch.
 */
public class NativeIslandOperator extends NativeBatchOperator {

    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final int outputArity;
    private final long memoryBudgetBytes;
    private final boolean flushesOnTimer;

    private transient NativePipeline pipeline;

    /** Whether an operator of the island keeps rows across batches (a local window phase). */
    private transient boolean buffers;

    private transient UdfBridge udfs;

    public NativeIslandOperator(ShellSpec spec) {
        this(spec, true);
    }

    /**
     * {@code flushesOnTimer}: whether a batch also ends after {@code spec.maxDelayMillis} of
     * processing time (false for an island ending in a local window aggregation).
     */
    public NativeIslandOperator(ShellSpec spec, boolean flushesOnTimer) {
        super(spec, spec.maxDelayMillis);
        this.plan = spec.plan;
        this.outputArity = spec.outputArity;
        this.memoryBudgetBytes = spec.memoryBudgetBytes;
        this.flushesOnTimer = flushesOnTimer;
    }

    @Override
    protected boolean flushesOnTimer() {
        return flushesOnTimer;
    }

    @Override
    public void open() throws Exception {
        super.open();
        Plan parsed = Plans.parse(plan);
        udfs = UdfBridge.forPlan(parsed, getRuntimeContext().getUserCodeClassLoader());
        if (udfs != null) {
            udfs.open(new FunctionContext(getRuntimeContext()));
        }
        pipeline = openPipeline(plan, run -> new NativePipeline(run, memoryBudgetBytes, udfs));
        buffers =
                parsed.getOperatorsList().stream()
                        .anyMatch(op -> op.getWindowAggregate().getBufferRows() > 1);
        openBatches(FieldUse.of(parsed), outputArity);
        MemoryGauges.register(
                getMetricGroup(), () -> pipeline == null ? 0L : pipeline.memoryBytes());
    }

    /** Runs the collected rows through the native pipeline and emits its output. */
    @Override
    protected void flush() throws Exception {
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
        // Each output record carries the timestamp stock Flink's operators would give it (see the
        // class comment).
        finishBatch(emitOutput(pipeline, result, batch.anyTimestamp()));
    }

    /**
     * Emits what the island's operators buffer across batches (see {@link NativePipeline#flush}).
     */
    @Override
    protected void flushBuffers() throws Exception {
        if (buffers) {
            emitFlushed(pipeline);
        }
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
