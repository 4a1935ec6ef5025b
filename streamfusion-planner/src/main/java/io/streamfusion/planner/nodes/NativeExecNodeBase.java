package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.IslandPlaceholderOperator;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.transpose.IslandInputTypeInfo;

import org.apache.flink.api.common.typeinfo.TypeInformation;
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

import java.util.concurrent.atomic.AtomicLong;

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

    /** The Flink node this one stands in for. */
    private final ExecNodeBase<RowData> original;

    /** Inputs handed over without Flink's chaining copy (see {@link IslandInputTypeInfo}). */
    private static final AtomicLong UNCOPIED_INPUTS = new AtomicLong();

    /** Whether this node is the only consumer of its input node (set by the planner). */
    private boolean soleConsumerOfInput;

    /** The last node this node's island runs after it and that island's plan; null if none. */
    private NativeExecNodeBase islandTail;

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
        this.original = original;
        setInputEdges(original.getInputEdges());
    }

    @Override
    public byte[] plan() {
        return plan;
    }

    /** The Flink node this one stands in for (back in the graph if the planner refuses this). */
    public ExecNodeBase<RowData> original() {
        return original;
    }

    /**
     * Why this node, when it joins no island, is not worth running natively alone (the planner then
     * puts {@link #original()} back), or null to run it alone. {@code islandsEnabled} is false when
     * islands are switched off. Default: null.
     */
    public String refusedAlone(boolean islandsEnabled) {
        return null;
    }

    /** What this node may be in an island (see {@link IslandRole}). Default: none. */
    public IslandRole islandRole() {
        return IslandRole.NONE;
    }

    /**
     * Whether this node's shell runs an island that calls user-defined functions (the island shell
     * has the bridge, the aggregation shells do not). Default: no.
     */
    public boolean hostsUdfs() {
        return false;
    }

    /**
     * Whether this node's shell runs an island with a watermark assigner in it (hands out its
     * watermarks between the rows). Default: no.
     */
    public boolean hostsWatermarks() {
        return false;
    }

    /**
     * Runs the island of {@code plan}, which reads {@code islandInput} (the input of its first
     * member) and ends with this node; {@code membersBefore} members run before this node, each a
     * placeholder ({@link #joinConsumerIsland}). Only for a node of role {@link
     * IslandRole#STATELESS}, {@link IslandRole#WATERMARK} or {@link IslandRole#LOCAL}.
     */
    public void hostIsland(byte[] plan, RowType islandInput, int membersBefore) {
        throw new IllegalStateException(getDescription() + " runs no island of others");
    }

    /**
     * This node's operator runs in the island of a node after it, which reads {@code islandInput};
     * this node translates to a placeholder those rows pass through.
     */
    public void joinConsumerIsland(RowType islandInput) {
        throw new IllegalStateException(getDescription() + " joins no island after it");
    }

    /**
     * This node's operator runs in the island of a keyed node before it, which emits {@code
     * islandOutput}; this node translates to a placeholder those rows pass through.
     */
    public void joinProducerIsland(RowType islandOutput) {
        throw new IllegalStateException(getDescription() + " joins no island before it");
    }

    /**
     * Set by the planner when this node is the only consumer of its input node: the input's rows
     * may then reach its island without Flink's defensive copy.
     */
    public void setSoleConsumerOfInput(boolean soleConsumerOfInput) {
        this.soleConsumerOfInput = soleConsumerOfInput;
    }

    protected boolean soleConsumerOfInput() {
        return soleConsumerOfInput;
    }

    /**
     * Hands {@code input}'s rows (of {@code rowType}) to the island without Flink's chaining copy:
     * the input then emits {@link IslandInputTypeInfo}, unless someone has read its type already.
     */
    protected static void readWithoutCopy(Transformation<RowData> input, RowType rowType) {
        if (withoutChainingCopy(input, rowType)) {
            UNCOPIED_INPUTS.incrementAndGet();
        }
    }

    private static boolean withoutChainingCopy(Transformation<RowData> input, RowType rowType) {
        try {
            input.setOutputType(new IslandInputTypeInfo(rowType));
            return true;
        } catch (IllegalStateException typeAlreadyRead) {
            // Someone has read the input's type already: keep Flink's copying edge.
            return false;
        }
    }

    /** How many island inputs were translated without the chaining copy (for tests). */
    public static long uncopiedInputs() {
        return UNCOPIED_INPUTS.get();
    }

    /**
     * This node's place in the job graph when an island runs its operator: an {@link
     * IslandPlaceholderOperator} after {@code input}, emitting {@code type}, so that the job graph
     * has stock Flink's shape and Flink's operator ids (see the operator's doc). {@code
     * transformationName}: that of the Flink operator this node stands in for, part of the uid
     * Flink generates for it when it generates uids ({@code table.exec.uid.generation}).
     */
    private Transformation<RowData> placeholder(
            Transformation<RowData> input,
            TypeInformation<RowData> type,
            ExecNodeConfig config,
            String transformationName) {
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta(transformationName, config),
                new IslandPlaceholderOperator(),
                type,
                input.getParallelism(),
                false);
    }

    /**
     * The placeholder of a node whose operator the island before it runs ({@code input}, whose only
     * consumer this node is): the island's rows ({@code rowType}) enter it without a copy and leave
     * it with Flink's usual one.
     */
    protected Transformation<RowData> placeholderAfterIsland(
            Transformation<RowData> input,
            RowType rowType,
            ExecNodeConfig config,
            String transformationName) {
        withoutChainingCopy(input, rowType);
        return placeholder(input, InternalTypeInfo.of(rowType), config, transformationName);
    }

    /**
     * The placeholder of a node whose operator the island after it runs, on this node's input rows
     * ({@code rowType}), which pass through it to the island without a copy.
     */
    protected Transformation<RowData> placeholderBeforeIsland(
            Transformation<RowData> input,
            RowType rowType,
            ExecNodeConfig config,
            String transformationName) {
        if (soleConsumerOfInput) {
            readWithoutCopy(input, rowType);
        }
        return placeholder(input, new IslandInputTypeInfo(rowType), config, transformationName);
    }

    /** The type of the rows this node's operator reads. */
    public RowType inputType() {
        return inputType;
    }

    /**
     * Runs this keyed operator in one island with the stateless members after it, the last {@code
     * tail} (whose translations then pass this operator's output through): {@code plan} holds this
     * operator, then them, and emits {@code tail}'s rows. The operator's uid, name and state stay
     * its own.
     */
    public void joinIslandBefore(NativeExecNodeBase tail, byte[] plan) {
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
                .borrowedExit(IslandOptions.borrowsExit(config));
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
