package io.streamfusion.planner.convert;

import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.jni.NativeLib;

import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;

/** Builds the serialized plan of one native operator and has the engine accept or refuse it. */
public final class NativePlans {
    private NativePlans() {}

    /**
     * The serialized plan of {@code operator} from {@code inputType} to {@code outputType}, once
     * the native engine has compiled it; otherwise its refusal reason as the exception.
     */
    public static byte[] compile(
            RowType inputType,
            RowType outputType,
            Operator.Builder operator,
            SessionOptions session,
            List<UdfDescriptor> udfs)
            throws UnsupportedNativeException {
        byte[] bytes =
                Plan.newBuilder()
                        .setInputType(TypeConverter.toProto(inputType))
                        .setOutputType(TypeConverter.toProto(outputType))
                        .addOperators(operator)
                        .setSession(session)
                        .addAllUdfs(udfs)
                        .build()
                        .toByteArray();
        String refusal = NativeLib.validatePlan(bytes);
        if (refusal != null) {
            throw new UnsupportedNativeException(refusal);
        }
        return bytes;
    }

    /**
     * The plan of a stateful operator standing in for {@code node}: from {@code inputType} to the
     * node's output type, described as the node, without UDFs.
     */
    public static byte[] compileFor(
            ExecNodeBase<?> node,
            RowType inputType,
            Operator.Builder operator,
            SessionOptions session)
            throws UnsupportedNativeException {
        return compile(
                inputType,
                (RowType) node.getOutputType(),
                operator.setDescription(node.getDescription()),
                session,
                List.of());
    }
}
