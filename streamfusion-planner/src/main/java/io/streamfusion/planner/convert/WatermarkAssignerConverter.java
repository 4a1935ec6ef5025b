package io.streamfusion.planner.convert;

import io.streamfusion.plan.Operator;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.plan.WatermarkAssignerNode;
import io.streamfusion.planner.nodes.StreamExecNativeWatermarkAssigner;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWatermarkAssigner;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/** The watermark family: the assigner of a table's WATERMARK clause (without idleness). */
public final class WatermarkAssignerConverter implements OperatorFamily {

    @Override
    public void register(ConverterRegistry registry) {
        registry.add(StreamExecWatermarkAssigner.class, WatermarkAssignerConverter::convert);
    }

    static StreamExecNativeWatermarkAssigner convert(
            StreamExecWatermarkAssigner assigner, ConversionContext context)
            throws UnsupportedNativeException {
        long idleTimeout =
                context.config()
                        .get(ExecutionConfigOptions.TABLE_EXEC_SOURCE_IDLE_TIMEOUT)
                        .toMillis();
        if (idleTimeout > 0) {
            throw new UnsupportedNativeException(
                    "The watermark assigner's idleness (table.exec.source.idle-timeout = "
                            + idleTimeout
                            + " ms) is not native");
        }
        RexNode expr = NodeFields.read(assigner, "watermarkExpr");
        int rowtime = NodeFields.read(assigner, "rowtimeFieldIndex");
        String varying = timeVaryingCall(expr);
        if (varying != null) {
            throw new UnsupportedNativeException(
                    "The watermark expression calls "
                            + varying
                            + ", whose value Flink takes per record");
        }
        List<UdfDescriptor> udfs = new ArrayList<>();
        WatermarkAssignerNode.Builder node =
                WatermarkAssignerNode.newBuilder()
                        .setRowtimeIndex(rowtime)
                        .setWatermark(RexConverter.convert(expr, udfs));
        if (!udfs.isEmpty()) {
            throw new UnsupportedNativeException(
                    "The watermark expression calls a user-defined function");
        }
        RowType inputType = (RowType) assigner.getInputEdges().get(0).getOutputType();
        byte[] bytes =
                NativePlans.compile(
                        inputType,
                        (RowType) assigner.getOutputType(),
                        Operator.newBuilder()
                                .setDescription(assigner.getDescription())
                                .setWatermarkAssigner(node),
                        context.session(),
                        udfs);
        return new StreamExecNativeWatermarkAssigner(assigner, bytes, inputType);
    }

    /**
     * The first call in {@code expr} whose value is not a function of the row (non-deterministic or
     * dynamic: RAND, UUID, CURRENT_TIMESTAMP, NOW, PROCTIME ...), or null.
     */
    private static String timeVaryingCall(RexNode expr) {
        String[] found = {null};
        expr.accept(
                new RexVisitorImpl<Void>(true) {
                    @Override
                    public Void visitCall(RexCall call) {
                        if (found[0] == null
                                && (!call.getOperator().isDeterministic()
                                        || call.getOperator().isDynamicFunction())) {
                            found[0] = call.getOperator().getName();
                        }
                        return super.visitCall(call);
                    }
                });
        return found[0];
    }
}
