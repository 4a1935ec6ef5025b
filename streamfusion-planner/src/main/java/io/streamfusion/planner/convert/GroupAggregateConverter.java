package io.streamfusion.planner.convert;

import io.streamfusion.plan.AggregateCall.Kind;
import io.streamfusion.plan.GroupAggregateNode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.planner.nodes.StreamExecNativeGroupAggregate;
import io.streamfusion.runtime.jni.NativeLib;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.functions.UserDefinedFunction;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.functions.aggfunctions.AvgAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.Count1AggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.CountAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.MaxAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.MinAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.Sum0AggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.SumAggFunction;
import org.apache.flink.table.planner.functions.aggfunctions.SumWithRetractAggFunction;
import org.apache.flink.table.planner.plan.nodes.exec.StateMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateInfo;
import org.apache.flink.table.planner.plan.utils.AggregateInfoList;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.plan.utils.MinibatchUtil;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rel.core.AggregateCall;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Converts Flink's StreamExecGroupAggregate (non-windowed GROUP BY) into a native group
 * aggregation, or refuses with the reason.
 *
 * <p>The aggregate functions, their accumulator layout, the retraction variants and the record
 * counter are taken from Flink's own {@link AggregateInfoList}, built by the same call Flink's
 * translation makes, so the native plan describes exactly the functions Flink would run.
 */
public final class GroupAggregateConverter {
    private GroupAggregateConverter() {}

    public static StreamExecNativeGroupAggregate convert(
            StreamExecGroupAggregate node,
            ReadableConfig config,
            FlinkTypeFactory typeFactory,
            SessionOptions session)
            throws UnsupportedNativeException {
        if (MinibatchUtil.isMiniBatchEnabled(config)) {
            throw new UnsupportedNativeException(
                    "GroupAggregate with mini-batch (table.exec.mini-batch.enabled) is not native"
                            + " yet");
        }
        RowType inputType = (RowType) node.getInputEdges().get(0).getOutputType();
        RowType outputType = (RowType) node.getOutputType();
        int[] grouping = NodeFields.read(node, "grouping");
        AggregateCall[] aggCalls = NodeFields.read(node, "aggCalls");
        boolean[] aggCallNeedRetractions = NodeFields.read(node, "aggCallNeedRetractions");
        boolean generateUpdateBefore = NodeFields.read(node, "generateUpdateBefore");
        boolean needRetraction = NodeFields.read(node, "needRetraction");
        List<StateMetadata> stateMetadataList = NodeFields.read(node, "stateMetadataList");

        AggregateInfoList infos =
                AggregateUtil.transformToStreamAggregateInfoList(
                        typeFactory,
                        inputType,
                        JavaScalaConversionUtil.toScala(Arrays.asList(aggCalls)),
                        aggCallNeedRetractions,
                        needRetraction,
                        true,
                        true);
        if (AggregateUtil.isAsyncStateEnabled(config, infos)) {
            throw new UnsupportedNativeException(
                    "GroupAggregate with async state (table.exec.async-state.enabled) is not"
                            + " native yet");
        }
        if (infos.distinctInfos().length > 0) {
            throw new UnsupportedNativeException(
                    "GroupAggregate with DISTINCT aggregates is not native yet");
        }

        GroupAggregateNode.Builder agg =
                GroupAggregateNode.newBuilder()
                        .setGenerateUpdateBefore(generateUpdateBefore)
                        .setCountStarCall(-1);
        for (int key : grouping) {
            agg.addGrouping(key);
        }
        int countStar =
                infos.indexOfCountStar().isDefined()
                        ? (Integer) infos.indexOfCountStar().get()
                        : -1;
        List<LogicalType> accTypes = new ArrayList<>();
        AggregateInfo[] aggInfos = infos.aggInfos();
        for (int i = 0; i < aggInfos.length; i++) {
            AggregateInfo info = aggInfos[i];
            AggregateCall call = info.agg();
            io.streamfusion.plan.AggregateCall.Builder proto =
                    io.streamfusion.plan.AggregateCall.newBuilder()
                            .setKind(kindOf(info.function(), call))
                            .setFilterArg(call.filterArg)
                            .setResultType(
                                    TypeConverter.toProto(
                                            info.externalResultType().getLogicalType()))
                            .setHidden(i == countStar && infos.countStarInserted());
            for (int arg : info.argIndexes()) {
                proto.addArgs(arg);
            }
            for (DataType acc : info.externalAccTypes()) {
                proto.addAccTypes(TypeConverter.toProto(acc.getLogicalType()));
                accTypes.add(acc.getLogicalType());
            }
            if (info.viewSpecs().length > 0) {
                throw new UnsupportedNativeException(
                        call.getAggregation().getName() + " keeps a state-backed view");
            }
            agg.addCalls(proto);
        }
        agg.setCountStarCall(countStar);

        Plan plan =
                Plan.newBuilder()
                        .setInputType(TypeConverter.toProto(inputType))
                        .setOutputType(TypeConverter.toProto(outputType))
                        .addOperators(
                                Operator.newBuilder()
                                        .setDescription(node.getDescription())
                                        .setGroupAggregate(agg))
                        .setSession(session)
                        .build();
        byte[] bytes = plan.toByteArray();
        String refusal = NativeLib.validatePlan(bytes);
        if (refusal != null) {
            throw new UnsupportedNativeException(refusal);
        }
        return new StreamExecNativeGroupAggregate(
                node,
                bytes,
                inputType,
                grouping,
                accTypes.toArray(new LogicalType[0]),
                stateMetadataList);
    }

    /** The native kernel of one of Flink's aggregate function classes. */
    private static Kind kindOf(UserDefinedFunction function, AggregateCall call)
            throws UnsupportedNativeException {
        if (function instanceof Count1AggFunction) {
            return Kind.COUNT1;
        }
        if (function instanceof CountAggFunction) {
            return Kind.COUNT;
        }
        if (function instanceof SumWithRetractAggFunction) {
            return Kind.SUM_WITH_RETRACT;
        }
        if (function instanceof Sum0AggFunction) {
            return Kind.SUM0;
        }
        if (function instanceof SumAggFunction) {
            return Kind.SUM;
        }
        if (function instanceof AvgAggFunction) {
            return Kind.AVG;
        }
        if (function instanceof MinAggFunction) {
            return Kind.MIN;
        }
        if (function instanceof MaxAggFunction) {
            return Kind.MAX;
        }
        throw new UnsupportedNativeException(
                call.getAggregation().getName()
                        + " ("
                        + function.getClass().getSimpleName()
                        + ") has no native kernel yet");
    }
}
