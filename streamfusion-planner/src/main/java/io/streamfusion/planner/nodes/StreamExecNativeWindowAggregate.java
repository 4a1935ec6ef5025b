package io.streamfusion.planner.nodes;

import io.streamfusion.plan.WindowAggregateNode.Window;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.island.NativeIslandOperator;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.window.NativeOwnedWindowAggregateOperator;
import io.streamfusion.runtime.window.NativeWindowAggregateOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregateBase;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.time.ZoneId;

/**
 * Replaces a window TVF aggregation over TUMBLE, HOP or CUMULATE (StreamExecWindowAggregate, or
 * either node of the two-phase Local/Global pair) by a native window aggregation: over Flink keyed
 * state and timers, or for event time with native-owned state (streamfusion.window.state). Keeps
 * Flink's key selector, state key type, transformation name and managed memory weight, so the
 * operator's savepoints are laid out as the stock one's.
 */
public class StreamExecNativeWindowAggregate extends NativeExecNodeBase {

    private final int[] grouping;
    private final LogicalType[] accTypes;
    private final boolean local;
    private final boolean eventTime;
    private final Window window;
    private final long size;
    private final long slice;
    private final long offset;
    private final int countStarField;
    private final ZoneId shiftTimeZone;
    private final boolean nativeState;
    private final DistinctState[] distincts;
    private final String transformationName;

    /** LOCAL running an island that ends with it: the island's plan and the rows it reads. */
    private byte[] islandPlan;

    private RowType islandInput;

    public StreamExecNativeWindowAggregate(
            ExecNodeBase<RowData> original,
            byte[] plan,
            RowType inputType,
            int[] grouping,
            LogicalType[] accTypes,
            boolean local,
            boolean eventTime,
            Window window,
            long size,
            long slice,
            long offset,
            int countStarField,
            ZoneId shiftTimeZone,
            boolean nativeState,
            DistinctState[] distincts,
            String transformationName) {
        super(original, plan, inputType);
        this.grouping = grouping;
        this.accTypes = accTypes;
        this.local = local;
        this.eventTime = eventTime;
        this.window = window;
        this.size = size;
        this.slice = slice;
        this.offset = offset;
        this.countStarField = countStarField;
        this.shiftTimeZone = shiftTimeZone;
        this.nativeState = nativeState;
        this.distincts = distincts;
        this.transformationName = transformationName;
    }

    /** Whether this is the stateless LOCAL phase of a two-phase window aggregation. */
    public boolean isLocal() {
        return local;
    }

    @Override
    public IslandRole islandRole() {
        return local ? IslandRole.LOCAL : IslandRole.KEYED;
    }

    /** The LOCAL phase runs in the island shell, which calls UDFs and hands out watermarks. */
    @Override
    public boolean hostsUdfs() {
        return local;
    }

    @Override
    public boolean hostsWatermarks() {
        return local;
    }

    @Override
    public void hostIsland(byte[] plan, RowType islandInput, int membersBefore) {
        if (!local) {
            super.hostIsland(plan, islandInput, membersBefore);
        }
        this.islandPlan = plan;
        this.islandInput = islandInput;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = translateInput(planner);
        RowType outputType = emittedType();
        // Rows are buffered as in Flink's window buffer, not per island batch.
        int batchSize =
                islandPlan != null
                        ? config.get(StreamFusionOptions.BATCH_SIZE)
                        : config.get(StreamFusionOptions.WINDOW_BUFFER_ROWS);
        if (local) {
            // Stateless and not keyed, with half the memory weight as in Flink.
            return ExecNodeUtil.createOneInputTransformation(
                    input,
                    createTransformationMeta(transformationName, config),
                    new NativeIslandOperator(
                            shellSpec(
                                            islandPlan != null ? islandPlan : plan,
                                            islandPlan != null ? islandInput : inputType,
                                            outputType.getFieldCount(),
                                            batchSize,
                                            config)
                                    .build(),
                            false),
                    InternalTypeInfo.of(outputType),
                    input.getParallelism(),
                    StreamExecWindowAggregateBase.WINDOW_AGG_MEMORY_RATIO / 2,
                    false);
        }
        OneInputStreamOperator<RowData, RowData> operator =
                nativeState
                        ? new NativeOwnedWindowAggregateOperator(
                                aggregationSpec(
                                        batchSize, grouping.length, accTypes, distincts, config))
                        : new NativeWindowAggregateOperator(
                                aggregationSpec(
                                        batchSize, grouping.length, accTypes, distincts, config),
                                eventTime,
                                window,
                                size,
                                slice,
                                offset,
                                countStarField,
                                shiftTimeZone);
        OneInputTransformation<RowData, RowData> transform =
                ExecNodeUtil.createOneInputTransformation(
                        input,
                        createTransformationMeta(transformationName, config),
                        operator,
                        InternalTypeInfo.of(outputType),
                        input.getParallelism(),
                        StreamExecWindowAggregateBase.WINDOW_AGG_MEMORY_RATIO,
                        false);
        return keyedBy(transform, planner, grouping);
    }

    /**
     * Whether a window aggregation keeps its windows natively (streamfusion.window.state): event
     * time only (a processing-time window fires on Flink's processing-time timers), never the
     * stateless LOCAL phase, and with AUTO only with the hashmap backend, so that RocksDB jobs keep
     * state that is not bounded by memory.
     */
    public static boolean nativeState(ReadableConfig config, boolean local, boolean eventTime) {
        if (local || !eventTime) {
            return false;
        }
        switch (config.get(StreamFusionOptions.WINDOW_STATE)) {
            case NATIVE:
            case STORE:
                return true;
            case FLINK:
                return false;
            default:
                return "hashmap".equalsIgnoreCase(config.get(StateBackendOptions.STATE_BACKEND));
        }
    }

    @Override
    public String note() {
        if (local) {
            return null;
        }
        if (!nativeState) {
            return "window state: Flink keyed state and timers";
        }
        return spillsToStore()
                ? "window state: native, by key group, the accumulators in a native store on disk"
                        + " (checkpoints: raw keyed state; savepoints: Flink's layout)"
                : "window state: native, by key group (checkpoints: raw keyed state; savepoints:"
                        + " Flink's layout)";
    }

    /** Whether the windows' accumulators spill to a native store (streamfusion.window.state). */
    private boolean spillsToStore() {
        try {
            for (io.streamfusion.plan.Operator operator : Plans.parse(plan).getOperatorsList()) {
                if (operator.hasWindowAggregate()
                        && operator.getWindowAggregate().getSpillToStore()) {
                    return true;
                }
            }
            return false;
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("The node's own plan does not parse", e);
        }
    }
}
