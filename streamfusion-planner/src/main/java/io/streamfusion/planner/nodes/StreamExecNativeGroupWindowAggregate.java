package io.streamfusion.planner.nodes;

import io.streamfusion.runtime.aggregate.DistinctState;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.window.NativeGroupWindowAggregateOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
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
            DistinctState[] distincts) {
        super(original, plan, inputType);
        this.grouping = grouping;
        this.accTypes = accTypes;
        this.eventTime = eventTime;
        this.size = size;
        this.slide = slide;
        this.hop = hop;
        this.distincts = distincts;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        RowType outputType = emittedType();
        NativeGroupWindowAggregateOperator operator =
                new NativeGroupWindowAggregateOperator(
                        shellSpec(
                                        planWithTail(),
                                        inputType,
                                        outputType.getFieldCount(),
                                        config.get(StreamFusionOptions.WINDOW_BUFFER_ROWS),
                                        config)
                                .aggregation(grouping.length, accTypes, distincts)
                                .build(),
                        eventTime,
                        size,
                        slide,
                        hop);
        OneInputTransformation<RowData, RowData> transform =
                ExecNodeUtil.createOneInputTransformation(
                        input,
                        createTransformationMeta(
                                StreamExecGroupWindowAggregate
                                        .GROUP_WINDOW_AGGREGATE_TRANSFORMATION,
                                config),
                        operator,
                        InternalTypeInfo.of(outputType),
                        input.getParallelism(),
                        false);
        return keyedBy(transform, planner, grouping);
    }
}
