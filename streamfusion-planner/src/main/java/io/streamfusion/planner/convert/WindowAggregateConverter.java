package io.streamfusion.planner.convert;

import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.plan.WindowAggregateNode;
import io.streamfusion.plan.WindowAggregateNode.Mode;
import io.streamfusion.plan.WindowAggregateNode.Property;
import io.streamfusion.plan.WindowAggregateNode.Window;
import io.streamfusion.planner.nodes.NativeExecNodeBase;
import io.streamfusion.planner.nodes.StreamExecNativeGroupWindowAggregate;
import io.streamfusion.planner.nodes.StreamExecNativeWindowAggregate;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.config.StreamFusionOptions.WindowState;
import io.streamfusion.runtime.state.DistinctState;
import io.streamfusion.runtime.window.NativeGroupWindowAggregateOperator;

import org.apache.calcite.rel.core.AggregateCall;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.logical.CumulativeWindowSpec;
import org.apache.flink.table.planner.plan.logical.HoppingWindowSpec;
import org.apache.flink.table.planner.plan.logical.LogicalWindow;
import org.apache.flink.table.planner.plan.logical.SessionGroupWindow;
import org.apache.flink.table.planner.plan.logical.SessionWindowSpec;
import org.apache.flink.table.planner.plan.logical.SliceAttachedWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.SlidingGroupWindow;
import org.apache.flink.table.planner.plan.logical.TimeAttributeWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.TumblingGroupWindow;
import org.apache.flink.table.planner.plan.logical.TumblingWindowSpec;
import org.apache.flink.table.planner.plan.logical.WindowAttachedWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.WindowSpec;
import org.apache.flink.table.planner.plan.logical.WindowingStrategy;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateInfoList;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;
import org.apache.flink.table.runtime.groupwindow.NamedWindowProperty;
import org.apache.flink.table.runtime.groupwindow.ProctimeAttribute;
import org.apache.flink.table.runtime.groupwindow.RowtimeAttribute;
import org.apache.flink.table.runtime.groupwindow.WindowEnd;
import org.apache.flink.table.runtime.groupwindow.WindowProperty;
import org.apache.flink.table.runtime.groupwindow.WindowStart;
import org.apache.flink.table.runtime.util.TimeWindowUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.annotation.Nullable;

/**
 * Converts Flink's window TVF aggregation over a TUMBLE, HOP or CUMULATE window
 * (StreamExecWindowAggregate on event or processing time, and the two-phase
 * StreamExecLocalWindowAggregate and StreamExecGlobalWindowAggregate) into a native window
 * aggregation, or refuses with the reason. The functions and accumulator layout come from Flink's
 * own {@link AggregateInfoList}, built by the call Flink's translation makes (including the
 * COUNT(*) it inserts for HOP windows).
 */
public final class WindowAggregateConverter implements OperatorFamily {

    @Override
    public void register(ConverterRegistry registry) {
        registry.add(
                StreamExecWindowAggregate.class,
                (node, c) -> convert(node, c.config(), c.typeFactory(), c.session()));
        registry.add(
                StreamExecLocalWindowAggregate.class,
                (node, c) -> convertLocal(node, c.config(), c.typeFactory(), c.session()));
        registry.add(
                StreamExecGlobalWindowAggregate.class,
                (node, c) -> convertGlobal(node, c.config(), c.typeFactory(), c.session()));
        registry.add(
                StreamExecGroupWindowAggregate.class,
                (node, c) -> convertGroupWindow(node, c.config(), c.typeFactory(), c.session()));
    }

    /** StreamExecWindowAggregate: one phase, on event or processing time. */
    static NativeExecNodeBase convert(
            StreamExecWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        WindowingStrategy windowing = NodeFields.read(node, "windowing");
        if (windowing.getWindow() instanceof SessionWindowSpec) {
            return SessionWindowConverter.convertTvf(node, config, typeFactory, session);
        }
        return build(
                node,
                config,
                typeFactory,
                session,
                WindowAggregateNode.newBuilder()
                        .setMode(Mode.ONE_PHASE)
                        .setTimeField(rowtimeField(node)),
                (RowType) node.getInputEdges().get(0).getOutputType(),
                StreamExecWindowAggregate.WINDOW_AGGREGATE_TRANSFORMATION);
    }

    /**
     * StreamExecGroupWindowAggregate, the legacy {@code GROUP BY ..., TUMBLE/HOP/SESSION(...)}:
     * SESSION merges (SessionWindowConverter); TUMBLE and HOP (event or processing time) are
     * windows of panes (the size, or gcd(size, slide)) whose accumulators are kept per pane as
     * Flink's WindowOperator does.
     */
    static NativeExecNodeBase convertGroupWindow(
            StreamExecGroupWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        LogicalWindow window = NodeFields.read(node, "window");
        if (window instanceof SessionGroupWindow) {
            return SessionWindowConverter.convertLegacy(node, config, typeFactory, session);
        }
        String name = "GroupWindowAggregate";
        WindowAggregateNode.Builder builder =
                WindowAggregateNode.newBuilder()
                        .setMode(Mode.ONE_PHASE)
                        .setOffset(0)
                        .setLegacy(true);
        ValueLiteralExpression size;
        if (window instanceof TumblingGroupWindow) {
            size = ((TumblingGroupWindow) window).size();
            builder.setWindow(Window.TUMBLE);
        } else if (window instanceof SlidingGroupWindow) {
            size = ((SlidingGroupWindow) window).size();
            builder.setWindow(Window.HOP);
        } else {
            throw new UnsupportedNativeException(
                    name + " over " + window.getClass().getSimpleName() + " is not native yet");
        }
        if (!AggregateUtil.hasTimeIntervalType(size)) {
            throw new UnsupportedNativeException(
                    name + " over a row-count window is not native yet");
        }
        long sizeMillis = AggregateUtil.toDuration(size).toMillis();
        long slideMillis =
                window instanceof SlidingGroupWindow
                        ? AggregateUtil.toDuration(((SlidingGroupWindow) window).slide()).toMillis()
                        : sizeMillis;
        if (sizeMillis <= 0 || slideMillis <= 0) {
            throw new UnsupportedNativeException(name + " over an empty window or slide");
        }
        // SlidingWindowAssigner keeps state per pane of gcd(size, slide).
        long pane = NativeGroupWindowAggregateOperator.paneSize(sizeMillis, slideMillis);
        builder.setSize(sizeMillis).setSlice(pane).setSlide(slideMillis);
        boolean eventTime = AggregateUtil.isRowtimeAttribute(window.timeAttribute());
        // Processing time is taken per batch slice, as for the window TVFs.
        SessionWindowConverter.checkCommon(
                node,
                name,
                true,
                window.timeAttribute().getOutputDataType().getLogicalType(),
                config);
        SessionWindowConverter.checkNoEarlyOrLateFiring(name, config, window);
        builder.setTimeField(eventTime ? window.timeAttribute().getFieldIndex() : -1);
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        AggregateInfoList infos = SessionWindowConverter.legacyInfos(node, typeFactory, inputType);
        List<LogicalType> accTypes = new ArrayList<>();
        List<DistinctState> distincts = new ArrayList<>();
        GroupAggregateConverter.checkDistincts(node, infos, true);
        builder.setAggregate(aggregateOf(node, name, infos, accTypes, distincts))
                .addAllProperties(propertiesOf(node));
        int[] grouping = NodeFields.read(node, "grouping");
        byte[] bytes =
                NativePlans.compileFor(
                        node,
                        inputType,
                        Operator.newBuilder().setWindowAggregate(builder),
                        session);
        boolean inStore = StreamExecNativeWindowAggregate.portStateInStore(config, eventTime);
        return new StreamExecNativeGroupWindowAggregate(
                node,
                bytes,
                inputType,
                grouping,
                accTypes.toArray(new LogicalType[0]),
                eventTime,
                sizeMillis,
                slideMillis,
                builder.getWindow() == Window.HOP,
                distincts.toArray(new DistinctState[0]),
                inStore,
                StreamExecNativeWindowAggregate.portStateNote(config, eventTime, inStore));
    }

    /** StreamExecLocalWindowAggregate: the stateless first phase (event time only). */
    static StreamExecNativeWindowAggregate convertLocal(
            StreamExecLocalWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        return build(
                node,
                config,
                typeFactory,
                session,
                WindowAggregateNode.newBuilder()
                        .setMode(Mode.LOCAL)
                        .setTimeField(rowtimeField(node))
                        // Rows buffered as in Flink's local window buffer, whatever the batch.
                        .setBufferRows(config.get(StreamFusionOptions.WINDOW_BUFFER_ROWS)),
                (RowType) node.getInputEdges().get(0).getOutputType(),
                StreamExecLocalWindowAggregate.LOCAL_WINDOW_AGGREGATE_TRANSFORMATION);
    }

    /** The rowtime field a window is assigned from, -1 for processing time or attached windows. */
    private static int rowtimeField(ExecNodeBase<?> node) throws UnsupportedNativeException {
        WindowingStrategy windowing = NodeFields.read(node, "windowing");
        return windowing instanceof TimeAttributeWindowingStrategy && windowing.isRowtime()
                ? ((TimeAttributeWindowingStrategy) windowing).getTimeAttributeIndex()
                : -1;
    }

    /** StreamExecGlobalWindowAggregate: merges the local accumulators per slice into state. */
    static StreamExecNativeWindowAggregate convertGlobal(
            StreamExecGlobalWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        WindowingStrategy windowing = NodeFields.read(node, "windowing");
        WindowAggregateNode.Builder window =
                WindowAggregateNode.newBuilder().setMode(Mode.GLOBAL).setTimeField(-1);
        if (windowing instanceof SliceAttachedWindowingStrategy) {
            window.setSliceEndField(((SliceAttachedWindowingStrategy) windowing).getSliceEnd());
        }
        RowType localInputType = NodeFields.read(node, "localAggInputRowType");
        return build(
                node,
                config,
                typeFactory,
                session,
                window.setLocalInputType(TypeConverter.toProto(localInputType)),
                localInputType,
                StreamExecGlobalWindowAggregate.GLOBAL_WINDOW_AGGREGATE_TRANSFORMATION);
    }

    /**
     * The common part: the window (TUMBLE or HOP, UTC shift for event time), Flink's aggregate info
     * list over {@code aggregatedType} (the node's input, or for GLOBAL the local input), the calls
     * and the window properties.
     */
    private static StreamExecNativeWindowAggregate build(
            ExecNodeBase<RowData> node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session,
            WindowAggregateNode.Builder window,
            RowType aggregatedType,
            String transformationName)
            throws UnsupportedNativeException {
        String name = node.getClass().getSimpleName().replace("StreamExec", "");
        // Over an updating input (a changelog source) -U/-D rows retract (AggCombiner), the
        // functions are Flink's retracting ones and COUNT(*) decides whether a window is empty.
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        WindowingStrategy windowing = NodeFields.read(node, "windowing");
        WindowSpec spec = windowing.getWindow();
        Duration offset;
        if (spec instanceof TumblingWindowSpec) {
            TumblingWindowSpec tumbling = (TumblingWindowSpec) spec;
            window.setWindow(Window.TUMBLE)
                    .setSize(tumbling.getSize().toMillis())
                    .setSlice(tumbling.getSize().toMillis());
            offset = tumbling.getOffset();
        } else if (spec instanceof HoppingWindowSpec) {
            HoppingWindowSpec hopping = (HoppingWindowSpec) spec;
            long size = hopping.getSize().toMillis();
            long slide = hopping.getSlide().toMillis();
            if (slide <= 0 || size % slide != 0) {
                throw new UnsupportedNativeException(
                        "HOP window whose size is not a multiple of its slide");
            }
            window.setWindow(Window.HOP).setSize(size).setSlice(slide);
            offset = hopping.getOffset();
        } else if (spec instanceof CumulativeWindowSpec) {
            CumulativeWindowSpec cumulative = (CumulativeWindowSpec) spec;
            long maxSize = cumulative.getMaxSize().toMillis();
            long step = cumulative.getStep().toMillis();
            if (step <= 0 || maxSize % step != 0) {
                throw new UnsupportedNativeException(
                        "CUMULATE window whose max size is not a multiple of its step");
            }
            window.setWindow(Window.CUMULATE).setSize(maxSize).setSlice(step);
            offset = cumulative.getOffset();
        } else {
            throw new UnsupportedNativeException(
                    name + " over " + spec.getClass().getSimpleName() + " is not native yet");
        }
        window.setOffset(offset == null ? 0 : offset.toMillis());
        if (window.getOffset() % window.getSlice() != 0) {
            // Flink flushes its window buffers when the watermark passes slice boundaries
            // computed without the offset (TimeWindowUtil.getNextTriggerWatermark), so with an
            // offset, which rows are late depends on those flush points.
            throw new UnsupportedNativeException(
                    name
                            + " with a window offset that is not a multiple of the slice ("
                            + window.getSlice()
                            + " ms) is not native: Flink's buffer flushes ignore the offset");
        }

        if (windowing instanceof WindowAttachedWindowingStrategy
                && spec instanceof CumulativeWindowSpec) {
            throw new UnsupportedNativeException(
                    name + " over rows carrying CUMULATE windows is not native yet");
        }
        if (windowing instanceof WindowAttachedWindowingStrategy) {
            // Rows carry their window (after a window TVF, or the local phase's window end):
            // each window is its own slice, as Flink's WindowedSliceAssigner makes it.
            window.setWindowed(true)
                    .setWindow(Window.TUMBLE)
                    .setSlice(window.getSize())
                    .setSliceEndField(((WindowAttachedWindowingStrategy) windowing).getWindowEnd());
        } else if (!(windowing instanceof TimeAttributeWindowingStrategy)
                && !(windowing instanceof SliceAttachedWindowingStrategy)) {
            throw new UnsupportedNativeException(
                    name + " over " + windowing + " is not native yet");
        }
        if (window.getMode() == Mode.LOCAL && !window.getWindowed() && window.getTimeField() < 0) {
            throw new UnsupportedNativeException(name + " on processing time is not native yet");
        }

        ZoneId shiftTimeZone =
                TimeWindowUtil.getShiftTimeZone(
                        windowing.getTimeAttributeType(),
                        TableConfigUtils.getLocalTimeZone(config));
        boolean eventTime =
                window.getTimeField() >= 0
                        || window.getMode() == Mode.GLOBAL
                        || window.getWindowed();
        if (eventTime && !shiftTimeZone.normalized().equals(ZoneOffset.UTC)) {
            throw new UnsupportedNativeException(
                    "Event-time window on TIMESTAMP_LTZ in time zone "
                            + shiftTimeZone
                            + " is not native yet (UTC only)");
        }
        if (config.get(ExecutionConfigOptions.TABLE_EXEC_ASYNC_STATE_ENABLED)) {
            throw new UnsupportedNativeException(
                    name + " with async state (table.exec.async-state.enabled) is not native yet");
        }
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        boolean local = window.getMode() == Mode.LOCAL;
        AggregateInfoList infos =
                AggregateUtil.deriveStreamWindowAggregateInfoList(
                        typeFactory,
                        aggregatedType,
                        JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                        needRetraction,
                        spec,
                        !local);
        List<LogicalType> accTypes = new ArrayList<>();
        List<DistinctState> distincts = new ArrayList<>();
        GroupAggregateConverter.checkDistincts(node, infos, !local);
        window.setAggregate(aggregateOf(node, name, infos, accTypes, distincts, true));
        // DISTINCT and MIN/MAX over an updating input keep state-backed maps.
        boolean keepsMaps = infos.distinctInfos().length > 0 || !distincts.isEmpty();
        boolean nativeState =
                !keepsMaps && StreamExecNativeWindowAggregate.nativeState(config, local, eventTime);
        WindowState windowState = config.get(StreamFusionOptions.WINDOW_STATE);
        if (keepsMaps
                && !local
                && eventTime
                && (windowState == WindowState.NATIVE || windowState == WindowState.STORE)) {
            throw new UnsupportedNativeException(
                    name
                            + " with DISTINCT (or MIN/MAX over an updating input) in native window"
                            + " state is not native yet"
                            + " (streamfusion.window.state AUTO or FLINK keeps them in Flink"
                            + " state)");
        }
        if (!local) {
            window.addAllProperties(propertiesOf(node));
        }
        boolean spill = nativeState && StreamExecNativeWindowAggregate.spillsToStore(config);
        window.setSpillToStore(spill);
        int[] grouping = NodeFields.read(node, "grouping");

        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        byte[] bytes =
                NativePlans.compileFor(
                        node, inputType, Operator.newBuilder().setWindowAggregate(window), session);
        return new StreamExecNativeWindowAggregate(
                node,
                bytes,
                inputType,
                grouping,
                accTypes.toArray(new LogicalType[0]),
                window.getMode() == Mode.LOCAL,
                eventTime,
                window.getWindow(),
                window.getSize(),
                window.getSlice(),
                window.getOffset(),
                infos.getIndexOfCountStar(),
                shiftTimeZone,
                nativeState,
                StreamExecNativeWindowAggregate.stateNote(
                        config, local, eventTime, keepsMaps, nativeState, spill),
                distincts.toArray(new DistinctState[0]),
                transformationName);
    }

    /**
     * The grouping and calls of a window aggregation, Flink's accumulator types appended to {@code
     * accTypes}; its DISTINCT maps (whose state-backed maps go to {@code distincts}), or with
     * {@code distincts} null a refusal of DISTINCT. With {@code extremes}, MIN/MAX over an updating
     * input (their state-backed maps after the DISTINCT maps); else refused.
     */
    static GroupAggregateNode.Builder aggregateOf(
            ExecNodeBase<?> node,
            String name,
            AggregateInfoList infos,
            List<LogicalType> accTypes,
            @Nullable List<DistinctState> distincts)
            throws UnsupportedNativeException {
        return aggregateOf(node, name, infos, accTypes, distincts, false);
    }

    static GroupAggregateNode.Builder aggregateOf(
            ExecNodeBase<?> node,
            String name,
            AggregateInfoList infos,
            List<LogicalType> accTypes,
            @Nullable List<DistinctState> distincts,
            boolean extremes)
            throws UnsupportedNativeException {
        if (distincts == null && infos.distinctInfos().length > 0) {
            throw new UnsupportedNativeException(
                    name + " with DISTINCT aggregates is not native yet");
        }
        GroupAggregateNode.Builder agg = GroupAggregateNode.newBuilder();
        int[] grouping = NodeFields.read(node, "grouping");
        for (int key : grouping) {
            agg.addGrouping(key);
        }
        List<DistinctState> callMaps = new ArrayList<>();
        GroupAggregateConverter.addCalls(node, agg, infos, accTypes, extremes ? callMaps : null);
        for (DistinctState map : callMaps) {
            if (map.kind != DistinctState.COUNTS) {
                // Flink's planner keeps them out of windows that merge; a TUMBLE window's
                // FIRST_VALUE/LAST_VALUE over an updating input is not native.
                throw new UnsupportedNativeException(
                        "FIRST_VALUE/LAST_VALUE over retracting input in a window aggregation is"
                                + " not native yet");
            }
        }
        if (distincts != null) {
            GroupAggregateConverter.addDistincts(infos, agg, accTypes, distincts);
            distincts.addAll(callMaps);
        }
        return agg;
    }

    /** The node's window properties (namedWindowProperties), in output order. */
    static List<Property> propertiesOf(ExecNodeBase<?> node) throws UnsupportedNativeException {
        NamedWindowProperty[] properties = NodeFields.read(node, "namedWindowProperties");
        List<Property> result = new ArrayList<>();
        for (NamedWindowProperty property : properties) {
            result.add(propertyOf(property.getProperty()));
        }
        return result;
    }

    static Property propertyOf(WindowProperty property) throws UnsupportedNativeException {
        if (property instanceof WindowStart) {
            return Property.WINDOW_START;
        }
        if (property instanceof WindowEnd) {
            return Property.WINDOW_END;
        }
        if (property instanceof RowtimeAttribute) {
            return Property.WINDOW_TIME;
        }
        if (property instanceof ProctimeAttribute) {
            return Property.PROCTIME;
        }
        throw new UnsupportedNativeException(
                "Window property " + property.getClass().getSimpleName() + " is not native yet");
    }
}
