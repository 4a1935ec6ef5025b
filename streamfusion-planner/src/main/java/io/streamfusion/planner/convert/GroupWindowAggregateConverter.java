package io.streamfusion.planner.convert;

import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.plan.SessionWindowAggregateNode;
import io.streamfusion.planner.nodes.StreamExecNativeSessionWindowAggregate;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.logical.LogicalWindow;
import org.apache.flink.table.planner.plan.logical.SessionGroupWindow;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateInfoList;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.plan.utils.WindowEmitStrategy;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;
import org.apache.flink.table.runtime.groupwindow.NamedWindowProperty;
import org.apache.flink.table.runtime.util.TimeWindowUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rel.core.AggregateCall;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Converts Flink's legacy group window aggregation ({@code GROUP BY ..., SESSION(rowtime, gap)}:
 * StreamExecGroupWindowAggregate) over an event-time SESSION window into a native session window
 * aggregation, or refuses with the reason. The functions and accumulator layout come from the
 * same {@link AggregateInfoList} call Flink's translation makes.
 */
public final class GroupWindowAggregateConverter {
    private GroupWindowAggregateConverter() {}

    public static StreamExecNativeSessionWindowAggregate convert(
            StreamExecGroupWindowAggregate node,
            TableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        LogicalWindow window = NodeFields.read(node, "window");
        if (!(window instanceof SessionGroupWindow)) {
            throw new UnsupportedNativeException(
                    "GroupWindowAggregate over "
                            + window.getClass().getSimpleName()
                            + " (legacy GROUP BY TUMBLE/HOP) is not native yet");
        }
        SessionGroupWindow sessionWindow = (SessionGroupWindow) window;
        if (!AggregateUtil.isRowtimeAttribute(sessionWindow.timeField())) {
            throw new UnsupportedNativeException(
                    "GroupWindowAggregate over a processing-time SESSION window is not native yet");
        }
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        if (needRetraction) {
            throw new UnsupportedNativeException(
                    "GroupWindowAggregate over an updating input is not native yet");
        }
        if (WindowEmitStrategy.apply(config, window).produceUpdates()) {
            throw new UnsupportedNativeException(
                    "GroupWindowAggregate with early or late firing (table.exec.emit.*) is not"
                            + " native yet");
        }
        ZoneId shiftTimeZone =
                TimeWindowUtil.getShiftTimeZone(
                        window.timeAttribute().getOutputDataType().getLogicalType(),
                        TableConfigUtils.getLocalTimeZone(config));
        if (!shiftTimeZone.normalized().equals(ZoneOffset.UTC)) {
            throw new UnsupportedNativeException(
                    "Event-time SESSION window on TIMESTAMP_LTZ in time zone "
                            + shiftTimeZone
                            + " is not native yet (UTC only)");
        }

        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        boolean[] aggCallNeedRetractions = new boolean[aggCalls.length];
        AggregateInfoList infos =
                AggregateUtil.transformToStreamAggregateInfoList(
                        typeFactory,
                        inputType,
                        JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                        aggCallNeedRetractions,
                        false,
                        true,
                        true);
        if (infos.distinctInfos().length > 0) {
            throw new UnsupportedNativeException(
                    "GroupWindowAggregate with DISTINCT aggregates is not native yet");
        }
        GroupAggregateNode.Builder agg = GroupAggregateNode.newBuilder();
        int[] grouping = NodeFields.read(node, "grouping");
        for (int key : grouping) {
            agg.addGrouping(key);
        }
        List<LogicalType> accTypes = new ArrayList<>();
        GroupAggregateConverter.addCalls(node, agg, infos, accTypes);
        SessionWindowAggregateNode.Builder sessionNode =
                SessionWindowAggregateNode.newBuilder()
                        .setAggregate(agg)
                        .setGap(AggregateUtil.toDuration(sessionWindow.gap()).toMillis())
                        .setTimeField(window.timeAttribute().getFieldIndex());
        NamedWindowProperty[] properties = NodeFields.read(node, "namedWindowProperties");
        for (NamedWindowProperty property : properties) {
            sessionNode.addProperties(WindowAggregateConverter.propertyOf(property.getProperty()));
        }
        byte[] bytes =
                NativePlans.compile(
                        inputType,
                        (RowType) node.getOutputType(),
                        Operator.newBuilder()
                                .setDescription(node.getDescription())
                                .setSessionWindowAggregate(sessionNode),
                        session,
                        List.of());
        return new StreamExecNativeSessionWindowAggregate(
                node, bytes, inputType, grouping, accTypes.toArray(new LogicalType[0]));
    }
}
