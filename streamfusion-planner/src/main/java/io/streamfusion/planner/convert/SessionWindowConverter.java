package io.streamfusion.planner.convert;

import io.streamfusion.plan.Operator;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.plan.SessionWindowAggregateNode;
import io.streamfusion.planner.nodes.StreamExecNativeSessionWindowAggregate;
import io.streamfusion.planner.nodes.StreamExecNativeWindowAggregate;
import io.streamfusion.runtime.state.DistinctState;

import org.apache.calcite.rel.core.AggregateCall;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.logical.LogicalWindow;
import org.apache.flink.table.planner.plan.logical.SessionGroupWindow;
import org.apache.flink.table.planner.plan.logical.SessionWindowSpec;
import org.apache.flink.table.planner.plan.logical.TimeAttributeWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.WindowingStrategy;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateInfoList;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.plan.utils.WindowEmitStrategy;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;
import org.apache.flink.table.runtime.util.TimeWindowUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Converts an aggregation over an event-time or processing-time SESSION window into a native
 * session window aggregation, or refuses with the reason: the legacy {@code GROUP BY ...,
 * SESSION(time, gap)} (StreamExecGroupWindowAggregate, Flink's WindowOperator) and the SESSION
 * window TVF (StreamExecWindowAggregate, WindowAggOperator with
 * UnsliceSyncStateWindowAggProcessor). Both merge windows with Flink's MergingWindowProcessFunction
 * over the same state. The functions and accumulator layout come from the same {@link
 * AggregateInfoList} call Flink's translation makes.
 */
public final class SessionWindowConverter {
    private SessionWindowConverter() {}

    /** The legacy group window: {@code GROUP BY ..., SESSION(rowtime, gap)}. */
    public static StreamExecNativeSessionWindowAggregate convertLegacy(
            StreamExecGroupWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        String name = "GroupWindowAggregate";
        LogicalWindow window = NodeFields.read(node, "window");
        SessionGroupWindow sessionWindow = (SessionGroupWindow) window;
        boolean rowtime = AggregateUtil.isRowtimeAttribute(sessionWindow.timeField());
        checkCommon(
                node,
                name,
                rowtime,
                window.timeAttribute().getOutputDataType().getLogicalType(),
                config);
        checkNoEarlyOrLateFiring(name, config, window);
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        return build(
                node,
                name,
                legacyInfos(node, typeFactory, inputType),
                AggregateUtil.toDuration(sessionWindow.gap()).toMillis(),
                window.timeAttribute().getFieldIndex(),
                !rowtime,
                false,
                config,
                session);
    }

    /**
     * The window TVF: {@code TABLE(SESSION(TABLE t PARTITION BY ..., DESCRIPTOR(rowtime), gap))}.
     */
    public static StreamExecNativeSessionWindowAggregate convertTvf(
            StreamExecWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        String name = "WindowAggregate";
        WindowingStrategy windowing = NodeFields.read(node, "windowing");
        SessionWindowSpec spec = (SessionWindowSpec) windowing.getWindow();
        if (!(windowing instanceof TimeAttributeWindowingStrategy)) {
            throw new UnsupportedNativeException(
                    name + " over SESSION windows from " + windowing + " is not native yet");
        }
        checkCommon(node, name, windowing.isRowtime(), windowing.getTimeAttributeType(), config);
        // Over an updating input (a changelog source) -U/-D rows retract, the functions are
        // Flink's retracting ones and COUNT(*) decides whether a session is empty.
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        if (config.get(ExecutionConfigOptions.TABLE_EXEC_ASYNC_STATE_ENABLED)) {
            throw new UnsupportedNativeException(
                    name + " with async state (table.exec.async-state.enabled) is not native yet");
        }
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        AggregateInfoList infos =
                AggregateUtil.deriveStreamWindowAggregateInfoList(
                        typeFactory,
                        inputType,
                        JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                        needRetraction,
                        spec,
                        true);
        return build(
                node,
                name,
                infos,
                spec.getGap().toMillis(),
                ((TimeAttributeWindowingStrategy) windowing).getTimeAttributeIndex(),
                !windowing.isRowtime(),
                true,
                config,
                session);
    }

    /** The legacy operator's: {@code table.exec.emit.*} makes it emit updates. */
    static void checkNoEarlyOrLateFiring(String name, TableConfig config, LogicalWindow window)
            throws UnsupportedNativeException {
        if (WindowEmitStrategy.apply(config, window).produceUpdates()) {
            throw new UnsupportedNativeException(
                    name + " with early or late firing (table.exec.emit.*) is not native yet");
        }
    }

    /** Flink's AggregateInfoList for a legacy group window, built as its translation builds it. */
    static AggregateInfoList legacyInfos(
            StreamExecGroupWindowAggregate node, FlinkTypeFactory typeFactory, RowType inputType)
            throws UnsupportedNativeException {
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        return AggregateUtil.transformToStreamAggregateInfoList(
                typeFactory,
                inputType,
                JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                new boolean[aggCalls.length],
                false,
                true,
                true);
    }

    /**
     * Refusals the session window aggregations share: time zones other than UTC, and an updating
     * input of the legacy group window (which Flink does not plan).
     */
    static void checkCommon(
            ExecNodeBase<RowData> node,
            String name,
            boolean rowtime,
            LogicalType timeType,
            TableConfig config)
            throws UnsupportedNativeException {
        boolean needRetraction =
                node instanceof StreamExecGroupWindowAggregate
                        && (boolean) NodeFields.read(node, "needRetraction");
        if (needRetraction) {
            throw new UnsupportedNativeException(
                    name + " over an updating input is not native yet");
        }
        ZoneId shiftTimeZone =
                TimeWindowUtil.getShiftTimeZone(
                        timeType, TableConfigUtils.getLocalTimeZone(config));
        if (!shiftTimeZone.normalized().equals(ZoneOffset.UTC)) {
            throw new UnsupportedNativeException(
                    (rowtime ? "Event-time" : "Processing-time")
                            + " window on TIMESTAMP_LTZ in time zone "
                            + shiftTimeZone
                            + " is not native yet (UTC only)");
        }
    }

    private static StreamExecNativeSessionWindowAggregate build(
            ExecNodeBase<RowData> node,
            String name,
            AggregateInfoList infos,
            long gap,
            int timeField,
            boolean proctime,
            boolean tvf,
            ReadableConfig config,
            SessionOptions session)
            throws UnsupportedNativeException {
        List<LogicalType> accTypes = new ArrayList<>();
        // DISTINCT maps and those of MIN/MAX over an updating input (the TVF's; the legacy
        // group window takes no updating input): Flink's state-backed MapViews per state window.
        List<DistinctState> distincts = new ArrayList<>();
        GroupAggregateConverter.checkDistincts(node, infos, true);
        SessionWindowAggregateNode.Builder sessionNode =
                SessionWindowAggregateNode.newBuilder()
                        .setAggregate(
                                WindowAggregateConverter.aggregateOf(
                                        node, name, infos, accTypes, distincts, true))
                        .setGap(gap)
                        .setTimeField(timeField)
                        .setProctime(proctime)
                        .addAllProperties(WindowAggregateConverter.propertiesOf(node));
        boolean inStore = StreamExecNativeWindowAggregate.portStateInStore(config, !proctime);
        int[] grouping = NodeFields.read(node, "grouping");
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        byte[] bytes =
                NativePlans.compileFor(
                        node,
                        inputType,
                        Operator.newBuilder().setSessionWindowAggregate(sessionNode),
                        session);
        return new StreamExecNativeSessionWindowAggregate(
                node,
                bytes,
                inputType,
                grouping,
                accTypes.toArray(new LogicalType[0]),
                tvf,
                distincts.toArray(new DistinctState[0]),
                inStore,
                StreamExecNativeWindowAggregate.portStateNote(config, !proctime, inStore));
    }
}
