package io.streamfusion.planner.nodes;

import io.streamfusion.plan.WindowAggregateNode.Window;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.config.StreamFusionOptions.WindowState;
import io.streamfusion.runtime.island.NativeIslandOperator;
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
    private final String stateNote;
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
            String stateNote,
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
        this.stateNote = stateNote;
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
     * stateless LOCAL phase; with AUTO, with the hashmap backend (in native memory) and with
     * RocksDB (in the native store, see {@link #spillsToStore}).
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
                return heapBackend(config) || rocksDbBackend(config);
        }
    }

    /**
     * Whether native window state keeps its accumulators in the native store on disk: STORE, or
     * AUTO with the RocksDB backend, whose jobs expect state beyond memory and where the store was
     * measured faster than Flink's RocksDB state through the port (q5 at 1M events, p=2: 2.90×
     * against 0.87× of stock; docs/benchmarks.md).
     */
    public static boolean spillsToStore(ReadableConfig config) {
        WindowState state = config.get(StreamFusionOptions.WINDOW_STATE);
        return state == WindowState.STORE || (state == WindowState.AUTO && rocksDbBackend(config));
    }

    /**
     * Whether a window operator over TimeWindows on the state port (the legacy group windows and
     * the session windows) keeps its states and timers in the native store: event time only (the
     * store fires no processing-time timers), with STORE, or AUTO with the RocksDB backend.
     * Measured on RocksDB against Flink's RocksDB state through the port (1M events, p=2, native
     * seconds; docs/benchmarks.md): q11 (no maps) 1.15 s in the store against 1.29 s, x8 (MIN/MAX
     * maps) 6.57 s against 7.90 s, x6 (DISTINCT maps) 1.71-1.91 s against 1.71 s.
     */
    public static boolean portStateInStore(ReadableConfig config, boolean eventTime) {
        WindowState state = config.get(StreamFusionOptions.WINDOW_STATE);
        return eventTime
                && (state == WindowState.STORE
                        || (state == WindowState.AUTO && rocksDbBackend(config)));
    }

    /** Where such an operator's windows live and why, for EXPLAIN. */
    public static String portStateNote(ReadableConfig config, boolean eventTime, boolean inStore) {
        WindowState option = config.get(StreamFusionOptions.WINDOW_STATE);
        if (inStore) {
            return "window state: Flink's states and timers in a native store on disk, by key group"
                    + " ("
                    + (option == WindowState.AUTO
                            ? "AUTO with RocksDB: measured as fast as or faster than RocksDB"
                                    + " through the port"
                            : "streamfusion.window.state=" + option)
                    + "; checkpoints: raw keyed state; savepoints: Flink's layout)";
        }
        String why =
                !eventTime
                        ? "processing time fires on Flink's timers"
                        : option == WindowState.AUTO
                                ? "AUTO with the "
                                        + config.get(StateBackendOptions.STATE_BACKEND)
                                        + " backend"
                                : option == WindowState.NATIVE
                                        ? "streamfusion.window.state=NATIVE: native memory is for"
                                                + " sliced windows only"
                                        : "streamfusion.window.state=" + option;
        return "window state: Flink keyed state and timers through the state port (" + why + ")";
    }

    private static boolean heapBackend(ReadableConfig config) {
        return "hashmap".equalsIgnoreCase(config.get(StateBackendOptions.STATE_BACKEND));
    }

    private static boolean rocksDbBackend(ReadableConfig config) {
        return "rocksdb".equalsIgnoreCase(config.get(StateBackendOptions.STATE_BACKEND));
    }

    /**
     * Where a window aggregation's windows live and why, for EXPLAIN; null for the stateless LOCAL
     * phase. {@code keepsMaps}: it has DISTINCT or MIN/MAX maps, which stay in Flink state.
     */
    public static String stateNote(
            ReadableConfig config,
            boolean local,
            boolean eventTime,
            boolean keepsMaps,
            boolean nativeState,
            boolean spill) {
        if (local) {
            return null;
        }
        WindowState option = config.get(StreamFusionOptions.WINDOW_STATE);
        String backend = config.get(StateBackendOptions.STATE_BACKEND);
        if (!nativeState) {
            String why =
                    !eventTime
                            ? "processing time fires on Flink's timers"
                            : keepsMaps
                                    ? "its DISTINCT or MIN/MAX maps stay in Flink state"
                                    : option == WindowState.FLINK
                                            ? "streamfusion.window.state=FLINK"
                                            : "AUTO with the " + backend + " backend";
            return "window state: Flink keyed state and timers (" + why + ")";
        }
        String why =
                option != WindowState.AUTO
                        ? "streamfusion.window.state=" + option
                        : spill
                                ? "AUTO with RocksDB: measured faster than RocksDB through the"
                                        + " port"
                                : "AUTO with the hashmap backend";
        return (spill
                        ? "window state: native, by key group, its slices and timers in a native"
                                + " store on disk"
                        : "window state: native, by key group, in memory")
                + " ("
                + why
                + "; checkpoints: raw keyed state; savepoints: Flink's layout)";
    }

    @Override
    public String note() {
        return stateNote;
    }
}
