package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.operators.NativeIslandOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Replaces a {@link StreamExecCalc} by a native island running the same projection and filter.
 * Created by {@link io.streamfusion.planner.NativeIslandProcessor} only; never part of a
 * compiled (JSON) plan, which stays stock.
 */
public class StreamExecNativeCalc extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    private final byte[] plan;
    private final RowType inputType;

    public StreamExecNativeCalc(StreamExecCalc original, byte[] plan, RowType inputType) {
        super(
                original.getId(),
                ExecNodeContext.newContext(StreamExecCalc.class).withId(original.getId()),
                original.getPersistedConfig(),
                original.getInputProperties(),
                original.getOutputType(),
                "Native" + original.getDescription());
        this.plan = plan;
        this.inputType = inputType;
        setInputEdges(original.getInputEdges());
    }

    /** The serialized plan this node runs. */
    public byte[] plan() {
        return plan;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        ExecEdge inputEdge = getInputEdges().get(0);
        Transformation<RowData> input = (Transformation<RowData>) inputEdge.translateToPlan(planner);
        RowType outputType = (RowType) getOutputType();
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        plan,
                        inputType,
                        outputType.getFieldCount(),
                        config.get(StreamFusionOptions.BATCH_SIZE),
                        config.get(StreamFusionOptions.BATCH_MAX_DELAY).toMillis(),
                        config.get(StreamFusionOptions.MEMORY_BUDGET).getBytes());
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta("native-calc", config),
                operator,
                InternalTypeInfo.of(outputType),
                input.getParallelism(),
                false);
    }
}
