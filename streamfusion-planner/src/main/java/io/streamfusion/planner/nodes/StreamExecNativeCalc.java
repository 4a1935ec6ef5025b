package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.NativeIslandOperator;
import io.streamfusion.runtime.transpose.IslandInputTypeInfo;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Replaces a {@link StreamExecCalc} by a native island running the same projection and filter.
 * Created by {@link io.streamfusion.planner.NativeIslandProcessor} only; never part of a compiled
 * (JSON) plan, which stays stock.
 */
public class StreamExecNativeCalc extends NativeExecNodeBase {

    /** Inputs handed over without Flink's chaining copy (see {@link IslandInputTypeInfo}). */
    private static final AtomicLong UNCOPIED_INPUTS = new AtomicLong();

    private boolean soleConsumerOfInput;

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
     * Set by the planner when this island is the only consumer of its input node: the input's rows
     * may then reach it without Flink's defensive copy.
     */
    public void setSoleConsumerOfInput(boolean soleConsumerOfInput) {
        this.soleConsumerOfInput = soleConsumerOfInput;
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
     * which already emits this Calc's rows.
     */
    public void joinProducerIsland() {
        this.inIslandOfProducer = true;
    }

    /**
     * Runs the native operators before this Calc in its island (a watermark assigner, and possibly
     * the Calc before it; each its input's only consumer, whose translations then pass their input
     * through): {@code plan} holds them and then this Calc, and reads {@code chainInputType}, the
     * input of the first. {@code soleConsumer}: whether the first is its input's only consumer.
     */
    public void runProducersInIsland(byte[] plan, RowType chainInputType, boolean soleConsumer) {
        this.chainPlan = plan;
        this.chainInputType = chainInputType;
        this.soleConsumerOfInput = soleConsumer;
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

    /**
     * The island that absorbed this Calc reads {@code input} (this Calc's input) instead: without
     * Flink's chaining copy when this Calc was its input's only consumer.
     */
    void handOverInput(Transformation<RowData> input) {
        if (soleConsumerOfInput) {
            readWithoutCopy(input);
        }
    }

    private void readWithoutCopy(Transformation<RowData> input) {
        try {
            input.setOutputType(new IslandInputTypeInfo(inputType()));
            UNCOPIED_INPUTS.incrementAndGet();
        } catch (IllegalStateException typeAlreadyRead) {
            // Someone has read the input's type already: keep Flink's copying edge.
        }
    }

    /** How many island inputs were translated without the chaining copy (for tests). */
    public static long uncopiedInputs() {
        return UNCOPIED_INPUTS.get();
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        if (inIslandOfConsumer || inIslandOfProducer) {
            // Computed by the consumer's or the producer's island (see joinConsumerIsland and
            // joinProducerIsland).
            return input;
        }
        if (soleConsumerOfInput) {
            readWithoutCopy(input);
        }
        RowType outputType = (RowType) getOutputType();
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
                createTransformationMeta("native-calc", config),
                operator,
                InternalTypeInfo.of(outputType),
                input.getParallelism(),
                false);
    }
}
