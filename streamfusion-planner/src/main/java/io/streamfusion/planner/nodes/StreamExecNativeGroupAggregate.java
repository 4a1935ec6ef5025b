package io.streamfusion.planner.nodes;

import com.google.protobuf.InvalidProtocolBufferException;

import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Plan;
import io.streamfusion.runtime.aggregate.NativeGroupAggregateOperator;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.state.DistinctState;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.StateMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.MinibatchUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;

/**
 * Replaces a {@link StreamExecGroupAggregate} (with or without mini-batch), or either node of the
 * mini-batch Local/Global pair, by a native group aggregation over Flink keyed state. Keeps Flink's
 * key selector, state key type, state name and serializer, and transformation name, so the
 * operator's state is laid out as the stock one's.
 */
public class StreamExecNativeGroupAggregate extends NativeExecNodeBase {

    private final int[] grouping;
    private final LogicalType[] accTypes;
    private final DistinctState[] distincts;
    private final List<StateMetadata> stateMetadataList;
    private final String transformationName;
    private final boolean keyed;
    private final String stateNote;

    /** The LOCAL phase in an island: its plan, and the Calc it absorbs before it. */
    private byte[] islandPlan;

    /** The type of the rows the island this LOCAL phase runs reads, and its members before it. */
    private RowType islandInput;

    private int membersBefore;

    /**
     * @param original the Flink node replaced (GroupAggregate, LocalGroupAggregate or
     *     GlobalGroupAggregate)
     * @param transformationName the original's transformation name (part of its operator uid)
     * @param keyed false for the local aggregation, which keeps no state
     * @param stateNote where the state lives and why (EXPLAIN); null when keyed is false
     */
    public StreamExecNativeGroupAggregate(
            ExecNodeBase<RowData> original,
            byte[] plan,
            RowType inputType,
            int[] grouping,
            LogicalType[] accTypes,
            DistinctState[] distincts,
            List<StateMetadata> stateMetadataList,
            String transformationName,
            boolean keyed,
            String stateNote) {
        super(original, plan, inputType);
        this.grouping = grouping;
        this.accTypes = accTypes;
        this.distincts = distincts;
        this.stateMetadataList = stateMetadataList;
        this.transformationName = transformationName;
        this.keyed = keyed;
        this.stateNote = stateNote;
    }

    @Override
    public String note() {
        return stateNote;
    }

    /** Whether this is the stateless LOCAL phase of a two-phase aggregation. */
    public boolean isLocal() {
        return !keyed;
    }

    @Override
    public IslandRole islandRole() {
        return keyed ? IslandRole.KEYED : IslandRole.LOCAL;
    }

    /**
     * Runs this LOCAL phase in one island with the native Calcs feeding it ({@code membersBefore}
     * of them, whose translations then pass their input through): {@code plan} holds them, then
     * this aggregation, and reads {@code islandInput}.
     */
    @Override
    public void hostIsland(byte[] plan, RowType islandInput, int membersBefore) {
        if (keyed) {
            super.hostIsland(plan, islandInput, membersBefore);
        }
        this.islandPlan = plan;
        this.islandInput = islandInput;
        this.membersBefore = membersBefore;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        long stateRetentionTime =
                keyed ? StateMetadata.getStateTtlForOneInputOperator(config, stateMetadataList) : 0;
        byte[] runPlan = islandPlan != null ? islandPlan : planWithTail();
        int batchSize = config.get(StreamFusionOptions.BATCH_SIZE);
        int bundleRows = 0;
        if (MinibatchUtil.isMiniBatchEnabled(config)) {
            if (islandPlan == null) {
                // The batch is Flink's bundle: it ends at the same count.
                batchSize = (int) MinibatchUtil.miniBatchSize(config);
            } else {
                // Behind a Calc the bundle counts the Calc's output: the native LOCAL phase ends
                // it, across island batches.
                bundleRows = (int) MinibatchUtil.miniBatchSize(config);
            }
        }
        if (stateRetentionTime > 0 || bundleRows > 0) {
            try {
                Plan.Builder run = Plans.parse(runPlan).toBuilder();
                // The aggregation follows the island's members before it.
                GroupAggregateNode.Builder agg =
                        run.getOperatorsBuilder(membersBefore).getGroupAggregateBuilder();
                agg.setStateTtlEnabled(stateRetentionTime > 0);
                if (stateRetentionTime > 0) {
                    // A per-operator TTL hint: the native store keeps no TTL, Flink state does.
                    agg.setStateInStore(false);
                }
                agg.setBundleRows(bundleRows);
                runPlan = run.build().toByteArray();
            } catch (InvalidProtocolBufferException e) {
                throw new TableException("Cannot read the native group aggregation plan", e);
            }
        }
        RowType outputType = emittedType();
        NativeGroupAggregateOperator operator =
                new NativeGroupAggregateOperator(
                        shellSpec(
                                        runPlan,
                                        islandPlan != null ? islandInput : inputType,
                                        outputType.getFieldCount(),
                                        batchSize,
                                        config)
                                .aggregation(grouping.length, accTypes, distincts)
                                .build(),
                        stateRetentionTime);
        OneInputTransformation<RowData, RowData> transform =
                ExecNodeUtil.createOneInputTransformation(
                        input,
                        createTransformationMeta(transformationName, config),
                        operator,
                        InternalTypeInfo.of(outputType),
                        input.getParallelism(),
                        false);
        if (!keyed) {
            return transform;
        }
        return keyedBy(transform, planner, grouping);
    }
}
