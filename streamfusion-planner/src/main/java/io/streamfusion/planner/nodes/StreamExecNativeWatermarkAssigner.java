package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.NativeIslandOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWatermarkAssigner;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Replaces a {@link StreamExecWatermarkAssigner} by the native assigner, which runs only inside an
 * island: with the native Calc after it (that Calc's island then reads this node's input), or with
 * the native Calc before it (this node's island), or both. An assigner in no island is replaced by
 * Flink's own node again ({@link #original}): alone between two Flink operators its two row
 * conversions would cost more than it saves. Created by {@link
 * io.streamfusion.planner.NativeIslandProcessor} only; never part of a compiled (JSON) plan.
 */
public class StreamExecNativeWatermarkAssigner extends IslandShellNode {

    /** The transformation name Flink's node gives its operator (part of the default uid). */
    private static final String TRANSFORMATION = "watermark-assigner";

    /** When this assigner runs the island it ends: its plan and the type of the rows it reads. */
    private byte[] islandPlan;

    private RowType islandInput;

    public StreamExecNativeWatermarkAssigner(
            StreamExecWatermarkAssigner original, byte[] plan, RowType inputType) {
        super(original, plan, inputType);
    }

    @Override
    public IslandRole islandRole() {
        return IslandRole.WATERMARK;
    }

    @Override
    public void hostIsland(byte[] plan, RowType islandInput, int membersBefore) {
        this.islandPlan = plan;
        this.islandInput = islandInput;
    }

    @Override
    public String refusedAlone(boolean islandsEnabled) {
        return islandsEnabled
                ? "A watermark assigner with no native operator next to it on a forward edge"
                        + " stays Flink's: alone between Flink operators, its two row conversions"
                        + " would cost more than it saves"
                : "The native watermark assigner runs only in an island (streamfusion.islands ="
                        + " false)";
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        if (consumerIslandInput() != null) {
            // Computed by the consumer's island (see joinConsumerIsland) from its input.
            return placeholderBeforeIsland(input, consumerIslandInput(), config, TRANSFORMATION);
        }
        if (islandPlan == null) {
            throw new IllegalStateException(
                    "A native watermark assigner outside any island: " + getDescription());
        }
        RowType outputType = (RowType) getOutputType();
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        shellSpec(
                                        islandPlan,
                                        islandInput,
                                        outputType.getFieldCount(),
                                        config.get(StreamFusionOptions.BATCH_SIZE),
                                        config)
                                .build());
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta(TRANSFORMATION, config),
                operator,
                InternalTypeInfo.of(outputType),
                input.getParallelism(),
                false);
    }
}
