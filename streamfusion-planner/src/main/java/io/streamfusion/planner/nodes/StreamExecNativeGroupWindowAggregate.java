package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.window.NativeGroupWindowAggregateOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Replaces a legacy group window aggregation over a TUMBLE or HOP window (event or processing time)
 * (StreamExecGroupWindowAggregate) by a native window aggregation over Flink keyed state and timers
 * laid out as Flink's WindowOperator lays them out. Keeps Flink's key selector, state key type and
 * transformation name (and, as Flink, no managed memory).
 */
public class StreamExecNativeGroupWindowAggregate extends NativeExecNodeBase {

    private final int[] grouping;
    private final LogicalType[] accTypes;
    private final boolean eventTime;
    private final long size;
    private final long slide;
    private final boolean hop;
    private final DistinctState[] distincts;
    private final boolean stateInStore;
    private final String stateNote;

    public StreamExecNativeGroupWindowAggregate(
            ExecNodeBase<RowData> original,
            byte[] plan,
            RowType inputType,
            int[] grouping,
            LogicalType[] accTypes,
            boolean eventTime,
            long size,
            long slide,
            boolean hop,
            DistinctState[] distincts,
            boolean stateInStore,
            String stateNote) {
        super(original, plan, inputType);
        this.grouping = grouping;
        this.accTypes = accTypes;
        this.eventTime = eventTime;
        this.size = size;
        this.slide = slide;
        this.hop = hop;
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
        NativeGroupWindowAggregateOperator operator =
                new NativeGroupWindowAggregateOperator(
                        aggregationSpec(
                                config.get(StreamFusionOptions.WINDOW_BUFFER_ROWS),
                                grouping.length,
                                accTypes,
                                distincts,
                                config),
                        eventTime,
                        size,
                        slide,
                        hop,
                        stateInStore);
        OneInputTransformation<RowData, RowData> transform =
                groupWindowTransformation(input, operator, config);
        return keyedBy(transform, planner, grouping);
    }
}
