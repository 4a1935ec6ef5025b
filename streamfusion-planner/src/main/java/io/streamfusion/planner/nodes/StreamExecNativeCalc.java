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
public class StreamExecNativeCalc extends NativeExecNodeBase {

    /**
     * The transformation name of Flink's Calc (CommonExecCalc.CALC_TRANSFORMATION), part of the uid
     * Flink generates for it: an island or a placeholder in the Calc's place gets the Calc's.
     */
    private static final String TRANSFORMATION = "calc";

    /** Set when the operator consuming this Calc runs it in its own island. */
    private boolean inIslandOfConsumer;

    /** Set when the operator feeding this Calc runs it in its own island. */
    private boolean inIslandOfProducer;

    /**
     * When this Calc runs the operators before it in its island (a watermark assigner, and the Calc
     * before that): the island's plan and the type of the rows it reads; else null.
     */
    private byte[] chainPlan;

    private RowType chainInputType;

    public StreamExecNativeCalc(StreamExecCalc original, byte[] plan, RowType inputType) {
        super(original, plan, inputType);
    }

    /**
     * Called by the planner when the native operator consuming this Calc (its only consumer, on a
     * forward edge) runs this Calc in its own island: this node then translates to its input, and
     * the consumer's island reads that input.
     */
    public void joinConsumerIsland() {
        this.inIslandOfConsumer = true;
    }

    /**
     * Called by the planner when the native operator feeding this Calc (whose only consumer it is,
     * on a forward edge) runs this Calc in its own island: this node then translates to its input,
     * which already emits this Calc's rows, and a placeholder.
     */
    public void joinProducerIsland() {
        this.inIslandOfProducer = true;
    }

    /**
     * Runs the native operators before this Calc in its island (a watermark assigner, and possibly
     * the Calc before it; each its input's only consumer, whose translations then pass their input
     * through): {@code plan} holds them and then this Calc, and reads {@code chainInputType}, the
     * input of the first.
     */
    public void runProducersInIsland(byte[] plan, RowType chainInputType) {
        this.chainPlan = plan;
        this.chainInputType = chainInputType;
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
        if (inIslandOfConsumer) {
            // Computed by the consumer's island (see joinConsumerIsland) from this Calc's input.
            return placeholderBeforeIsland(input, inputType(), config, TRANSFORMATION);
        }
        if (inIslandOfProducer) {
            // Computed by the producer's island (see joinProducerIsland), which emits its rows.
            return placeholderAfterIsland(input, outputType, config, TRANSFORMATION);
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
