package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.NativeIslandOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Replaces a {@link StreamExecCalc} by a native island running the same projection and filter.
 * Created by {@link io.streamfusion.planner.NativeIslandProcessor} only; never part of a compiled
 * (JSON) plan, which stays stock.
 */
public class StreamExecNativeCalc extends IslandShellNode {

    /**
     * The transformation name of Flink's Calc (CommonExecCalc.CALC_TRANSFORMATION), part of the uid
     * Flink generates for it: an island or a placeholder in the Calc's place gets the Calc's.
     */
    private static final String TRANSFORMATION = "calc";

    /**
     * Set when the operator feeding this Calc runs it in its own island: the type of the rows that
     * island emits, which pass through this node's placeholder.
     */
    private RowType producerIslandOutput;

    /**
     * When this Calc runs the operators before it in its island: the island's plan and the type of
     * the rows it reads; else null.
     */
    private byte[] chainPlan;

    private RowType chainInputType;

    public StreamExecNativeCalc(StreamExecCalc original, byte[] plan, RowType inputType) {
        super(original, plan, inputType);
    }

    @Override
    public IslandRole islandRole() {
        return IslandRole.STATELESS;
    }

    @Override
    public void joinProducerIsland(RowType islandOutput) {
        this.producerIslandOutput = islandOutput;
    }

    @Override
    public void hostIsland(byte[] plan, RowType islandInput, int membersBefore) {
        this.chainPlan = plan;
        this.chainInputType = islandInput;
    }

    /** The plan this Calc's island runs: the Calc, after the operators it runs before it. */
    @Override
    public byte[] plan() {
        return chainPlan != null ? chainPlan : plan;
    }

    /** The type of the rows this Calc's island reads. */
    @Override
    public RowType inputType() {
        return chainInputType != null ? chainInputType : inputType;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        RowType outputType = (RowType) getOutputType();
        if (consumerIslandInput() != null) {
            // Computed by the consumer's island (see joinConsumerIsland) from its input.
            return placeholderBeforeIsland(input, consumerIslandInput(), config, TRANSFORMATION);
        }
        if (producerIslandOutput != null) {
            // Computed by the producer's island (see joinProducerIsland), which emits its rows.
            return placeholderAfterIsland(input, producerIslandOutput, config, TRANSFORMATION);
        }
        // With operators before it in its island, the input is their placeholder, which already
        // hands its rows over without a copy.
        if (soleConsumerOfInput() && chainPlan == null) {
            readWithoutCopy(input, inputType());
        }
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        shellSpec(
                                        plan(),
                                        inputType(),
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
