package io.streamfusion.runtime.operators;

import io.streamfusion.runtime.jni.NativeWindowAggregate;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.transpose.FieldUse;

import org.apache.flink.table.types.logical.RowType;

/**
 * The operator shell of the native local phase of a two-phase window aggregation, standing in for
 * Flink's LocalSlicingWindowAggOperator: no state; each batch is combined natively into one
 * accumulator row per (key, slice) (grouping fields, accumulators, slice end), emitted without a
 * timestamp. A batch ends when it is full, before a watermark, before a checkpoint barrier and at
 * end of input; the plan takes only functions whose global result does not depend on where the
 * partial results are cut.
 */
public class NativeLocalWindowAggregateOperator extends NativeBatchOperator {

    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final int outputArity;
    private final long memoryBudgetBytes;

    private transient NativeWindowAggregate agg;
    private transient ImageBuffer noState;

    public NativeLocalWindowAggregateOperator(
            byte[] plan,
            RowType inputType,
            int outputArity,
            int batchSize,
            long maxDelayMillis,
            long memoryBudgetBytes) {
        super(inputType, batchSize, maxDelayMillis);
        this.plan = plan;
        this.outputArity = outputArity;
        this.memoryBudgetBytes = memoryBudgetBytes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        agg = new NativeWindowAggregate(plan, memoryBudgetBytes);
        openBatches(FieldUse.of(Plans.parse(plan)), outputArity);
        noState = new ImageBuffer();
        getMetricGroup().gauge("streamfusionNativeMemoryBytes", () -> agg.memoryBytes());
    }

    /** As Flink's local window buffer: a batch waits for a watermark, a barrier or the end. */
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
        // The local phase drops nothing as late: the time argument is unused.
        NativeWindowAggregate.Groups groups =
                agg.prepare(batch.bytes(), batch.offsets(), rows, Long.MIN_VALUE);
        noState.clear();
        for (int g = 0; g < groups.count; g++) {
            noState.appendEmpty();
        }
        int[] offsets = new int[groups.count + 1];
        byte[] out = agg.combine(noState.bytes(), noState.offsets(), offsets);
        emit(out, offsets, groups.count, null);
        finishBatch(groups.count);
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (agg != null) {
                agg.close();
            }
        }
    }
}
