package io.streamfusion.planner.convert;

import com.google.protobuf.ByteString;

import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.udf.ScalarUdfSpec;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCallBinding;
import org.apache.calcite.rex.RexNode;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.functions.SpecializedFunction;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
import org.apache.flink.table.planner.functions.inference.OperatorBindingCallContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeInferenceUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.util.InstantiationUtil;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Turns a call of a user-defined {@link ScalarFunction} into a plan UdfDescriptor: the native
 * pipeline calls the function back in the JVM once per batch. The eval argument and result data
 * types are resolved as Flink's code generator resolves them (BridgingFunctionGenUtil:
 * castArguments, then inferOutputType on the function's type inference), so the same eval method
 * receives the same external values.
 */
final class UdfConverter {

    private UdfConverter() {}

    /** Whether {@code call} calls a user-defined (not built-in) scalar function. */
    static boolean isUserDefined(RexCall call) {
        return call.getOperator() instanceof BridgingSqlFunction
                && ((BridgingSqlFunction) call.getOperator()).getDefinition()
                        instanceof ScalarFunction;
    }

    /** Adds the descriptor of {@code call} to {@code udfs}; returns its index there. */
    static int register(RexCall call, List<UdfDescriptor> udfs) throws UnsupportedNativeException {
        BridgingSqlFunction function = (BridgingSqlFunction) call.getOperator();
        FunctionDefinition definition = function.getDefinition();
        String name = function.getName();
        if (definition instanceof SpecializedFunction) {
            throw refusal(
                    name,
                    "a SpecializedFunction is specialized per call site by Flink's code generator");
        }
        ScalarFunction udf = (ScalarFunction) definition;
        if (!udf.isDeterministic() || !function.isDeterministic()) {
            throw refusal(name, "it is not deterministic");
        }
        List<DataType> arguments;
        DataType output;
        try {
            CallContext context =
                    new OperatorBindingCallContext(
                            function.getDataTypeFactory(),
                            definition,
                            RexCallBinding.create(
                                    function.getTypeFactory(), call, Collections.emptyList()),
                            call.getType());
            TypeInference inference = udf.getTypeInference(function.getDataTypeFactory());
            CallContext cast = TypeInferenceUtil.castArguments(inference, context, null);
            arguments = new ArrayList<>(cast.getArgumentDataTypes());
            output = TypeInferenceUtil.inferOutputType(cast, inference.getOutputTypeStrategy());
        } catch (RuntimeException e) {
            throw refusal(name, "its type inference failed: " + e.getMessage());
        }
        List<LogicalType> operandTypes = new ArrayList<>();
        for (int i = 0; i < call.getOperands().size(); i++) {
            RexNode operand = call.getOperands().get(i);
            LogicalType type = FlinkTypeFactory.toLogicalType(operand.getType());
            if (type.isNullable() && arguments.get(i).getConversionClass().isPrimitive()) {
                // Flink's generated code would pass the primitive's placeholder for a NULL.
                throw refusal(
                        name,
                        "argument "
                                + i
                                + " is a nullable "
                                + type.asSummaryString()
                                + " passed to a primitive parameter");
            }
            operandTypes.add(type);
        }
        ScalarUdfSpec spec =
                new ScalarUdfSpec(
                        name,
                        udf,
                        arguments,
                        output,
                        operandTypes,
                        FlinkTypeFactory.toLogicalType(call.getType()));
        byte[] bytes;
        try {
            bytes = InstantiationUtil.serializeObject(spec);
        } catch (IOException e) {
            throw refusal(name, "it cannot be serialized: " + e);
        }
        udfs.add(
                UdfDescriptor.newBuilder()
                        .setName(name)
                        .setJavaSpec(ByteString.copyFrom(bytes))
                        .build());
        return udfs.size() - 1;
    }

    private static UnsupportedNativeException refusal(String name, String why) {
        return new UnsupportedNativeException(
                "user-defined function " + name + " is not supported natively: " + why);
    }
}
