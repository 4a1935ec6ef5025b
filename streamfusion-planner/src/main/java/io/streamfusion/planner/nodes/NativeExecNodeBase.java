package io.streamfusion.planner.nodes;

import io.streamfusion.planner.NativeIslandProcessor;
import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.ShellSpec;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A one-input native node replacing a Flink ExecNode: it keeps the original's id, node type (so
 * generated operator uids stay Flink's), configuration, input edges and output type, and runs a
 * serialized native plan. Created by {@link io.streamfusion.planner.NativeIslandProcessor} only;
 * never part of a compiled (JSON) plan, which stays stock.
 */
public abstract class NativeExecNodeBase extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>,
                SingleTransformationTranslator<RowData>,
                NativeExecNode {

    protected final byte[] plan;
    protected final RowType inputType;

    /** The native Calc this node's island runs after it and that island's plan; null if none. */
    private StreamExecNativeCalc islandTail;

    private byte[] tailPlan;

    protected NativeExecNodeBase(ExecNodeBase<RowData> original, byte[] plan, RowType inputType) {
        super(
                original.getId(),
                ExecNodeContext.newContext(original.getClass()).withId(original.getId()),
                original.getPersistedConfig(),
                original.getInputProperties(),
                original.getOutputType(),
                "Native" + original.getDescription());
        this.plan = plan;
        this.inputType = inputType;
        setInputEdges(original.getInputEdges());
    }

    @Override
    public byte[] plan() {
        return plan;
    }

    /** The type of the rows this node's operator reads. */
    public RowType inputType() {
        return inputType;
    }

    /**
     * Runs this stateful operator in one island with the native Calc it alone feeds ({@code tail},
     * whose translation then passes this operator's output through): {@code plan} holds this
     * operator, then the Calc, and emits the Calc's rows. The operator's uid, name and state stay
     * its own.
     */
    public void joinIslandBefore(StreamExecNativeCalc tail, byte[] plan) {
        this.islandTail = tail;
        this.tailPlan = plan;
    }

    /** The plan this node's shell runs: with the Calc after it if it joined one, else its own. */
    protected byte[] planWithTail() {
        return islandTail != null ? tailPlan : plan;
    }

    /** The type of the rows this node's shell emits: those of the Calc after it, if any. */
    protected RowType emittedType() {
        return (RowType) (islandTail != null ? islandTail : this).getOutputType();
    }

    /**
     * Keys {@code transform} as Flink keys its stateful operators: by Flink's own key selector of
     * the {@code grouping} fields, whose BinaryRowData the state backend keys by.
     */
    protected Transformation<RowData> keyedBy(
            OneInputTransformation<RowData, RowData> transform,
            PlannerBase planner,
            int[] grouping) {
        RowDataKeySelector selector =
                KeySelectorUtil.getRowDataSelector(
                        planner.getFlinkContext().getClassLoader(),
                        grouping,
                        InternalTypeInfo.of(inputType));
        transform.setStateKeySelector(selector);
        transform.setStateKeyType(selector.getProducedType());
        return transform;
    }

    /**
     * The spec of a shell running {@code plan} on rows of {@code input}, emitting {@code
     * outputArity} fields, in batches of {@code batchSize} rows, with the configured batch delay
     * and memory budget.
     */
    protected static ShellSpec.Builder shellSpec(
            byte[] plan, RowType input, int outputArity, int batchSize, ExecNodeConfig config) {
        return ShellSpec.builder(plan, input, outputArity)
                .batches(batchSize, config.get(StreamFusionOptions.BATCH_MAX_DELAY).toMillis())
                .memoryBudget(
                        config.get(StreamFusionOptions.MEMORY_BUDGET).getBytes(),
                        config.getOptional(StreamFusionOptions.MEMORY_BUDGET).isPresent())
                .borrowedExit(NativeIslandProcessor.borrowsExit(config));
    }

    /**
     * The spec of a window aggregation's shell: {@link #planWithTail()} on this node's input rows,
     * emitting {@link #emittedType()}'s fields in batches of {@code batchSize} rows, aggregating
     * per key of {@code keyCount} fields into accumulators of {@code accTypes} and {@code
     * distincts}.
     */
    protected ShellSpec aggregationSpec(
            int batchSize,
            int keyCount,
            LogicalType[] accTypes,
            DistinctState[] distincts,
            ExecNodeConfig config) {
        return shellSpec(
                        planWithTail(), inputType, emittedType().getFieldCount(), batchSize, config)
                .aggregation(keyCount, accTypes, distincts)
                .build();
    }

    /**
     * The transformation of {@code operator} in place of a legacy group window aggregation
     * (StreamExecGroupWindowAggregate): Flink's transformation name and, as Flink, no managed
     * memory.
     */
    protected OneInputTransformation<RowData, RowData> groupWindowTransformation(
            Transformation<RowData> input,
            OneInputStreamOperator<RowData, RowData> operator,
            ExecNodeConfig config) {
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta(
                        StreamExecGroupWindowAggregate.GROUP_WINDOW_AGGREGATE_TRANSFORMATION,
                        config),
                operator,
                InternalTypeInfo.of(emittedType()),
                input.getParallelism(),
                false);
    }

    /** The translated input of this node. */
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateInput(PlannerBase planner) {
        return (Transformation<RowData>) getInputEdges().get(0).translateToPlan(planner);
    }
}
