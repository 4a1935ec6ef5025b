package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.window.NativeSessionWindowAggregateOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregateBase;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Replaces an aggregation over an event-time SESSION window, the legacy group window
 * (StreamExecGroupWindowAggregate) or the window TVF (StreamExecWindowAggregate), by a native
 * session window aggregation over Flink keyed state and timers. Keeps Flink's key selector, state
 * key type, transformation name and managed memory weight (none for the legacy operator), so the
 * operator's state is laid out as the stock one's.
 */
public class StreamExecNativeSessionWindowAggregate extends NativeExecNodeBase {

    private final int[] grouping;
    private final LogicalType[] accTypes;
    private final boolean tvf;
    private final DistinctState[] distincts;
    private final boolean stateInStore;
    private final String stateNote;

    /**
     * @param tvf the window TVF (WindowAggOperator) rather than the legacy group window
     * @param stateInStore states and timers in the native store
     * @param stateNote where the state lives and why (EXPLAIN)
     */
    public StreamExecNativeSessionWindowAggregate(
            ExecNodeBase<RowData> original,
            byte[] plan,
            RowType inputType,
            int[] grouping,
            LogicalType[] accTypes,
            boolean tvf,
            DistinctState[] distincts,
            boolean stateInStore,
            String stateNote) {
        super(original, plan, inputType);
        this.grouping = grouping;
        this.accTypes = accTypes;
        this.tvf = tvf;
        this.distincts = distincts;
        this.stateInStore = stateInStore;
        this.stateNote = stateNote;
    }

    @Override
    public String note() {
        return stateNote;
    }

    @Override
    public IslandRole islandRole() {
        return IslandRole.KEYED;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        NativeSessionWindowAggregateOperator operator =
                new NativeSessionWindowAggregateOperator(
                        aggregationSpec(
                                config.get(StreamFusionOptions.WINDOW_BUFFER_ROWS),
                                grouping.length,
                                accTypes,
                                distincts,
                                config),
                        tvf,
                        stateInStore);
        OneInputTransformation<RowData, RowData> transform =
                tvf
                        ? ExecNodeUtil.createOneInputTransformation(
                                input,
                                createTransformationMeta(
                                        StreamExecWindowAggregate.WINDOW_AGGREGATE_TRANSFORMATION,
                                        config),
                                operator,
                                InternalTypeInfo.of(emittedType()),
                                input.getParallelism(),
                                StreamExecWindowAggregateBase.WINDOW_AGG_MEMORY_RATIO,
                                false)
                        : groupWindowTransformation(input, operator, config);
        return keyedBy(transform, planner, grouping);
    }
}
