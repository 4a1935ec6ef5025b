package io.streamfusion.planner.convert;

import io.streamfusion.plan.CalcNode;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.planner.nodes.StreamExecNativeCalc;

import org.apache.calcite.rex.RexNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/** The Calc family: projections and filters, with the user-defined functions they call. */
public final class CalcConverter implements OperatorFamily {

    @Override
    public void register(ConverterRegistry registry) {
        registry.add(StreamExecCalc.class, CalcConverter::convert);
    }

    static StreamExecNativeCalc convert(StreamExecCalc calc, ConversionContext context)
            throws UnsupportedNativeException {
        RowType inputType = (RowType) calc.getInputEdges().get(0).getOutputType();
        RowType outputType = (RowType) calc.getOutputType();
        List<RexNode> projection = NodeFields.read(calc, "projection");
        RexNode condition = NodeFields.read(calc, "condition");
        CalcNode.Builder node = CalcNode.newBuilder();
        List<UdfDescriptor> udfs = new ArrayList<>();
        for (RexNode expr : projection) {
            node.addProjections(RexConverter.convert(expr, udfs));
        }
        if (condition != null) {
            node.setCondition(RexConverter.convert(condition, udfs));
        }
        byte[] bytes =
                NativePlans.compile(
                        inputType,
                        outputType,
                        Operator.newBuilder().setDescription(calc.getDescription()).setCalc(node),
                        context.session(),
                        udfs);
        return new StreamExecNativeCalc(calc, bytes, inputType);
    }
}
