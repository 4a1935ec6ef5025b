package io.streamfusion.planner.convert;

import com.google.protobuf.InvalidProtocolBufferException;

import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.SessionOptions;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.jni.NativeLib;
import io.streamfusion.runtime.jni.Plans;

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
     * The plan of one island running {@code head}'s operators and then {@code next}'s: it reads
     * {@code head}'s input, emits {@code next}'s output, and keeps {@code head}'s session and the
     * UDFs of whichever calls them (not both). Null when the engine refuses it, with the reason in
     * the log of the caller's choosing: the operators then stay islands of their own.
     */
    public static byte[] island(byte[] head, byte[] next) {
        Plan first;
        Plan second;
        try {
            first = Plans.parse(head);
            second = Plans.parse(next);
        } catch (InvalidProtocolBufferException e) {
            // Both were built and validated by the planner moments ago.
            throw new IllegalStateException("A native plan of this planning does not parse", e);
        }
        if (first.getUdfsCount() != 0 && second.getUdfsCount() != 0) {
            return null;
        }
        Plan.Builder island =
                Plan.newBuilder()
                        .setInputType(first.getInputType())
                        .setOutputType(second.getOutputType())
                        .setSession(first.getSession())
                        .addAllUdfs(first.getUdfsList())
                        .addAllUdfs(second.getUdfsList());
        int last = first.getOperatorsCount() - 1;
        for (int i = 0; i <= last; i++) {
            Operator.Builder op = first.getOperators(i).toBuilder();
            if (i == last) {
                op.setOutputType(first.getOutputType());
            }
            island.addOperators(op);
        }
        island.addAllOperators(second.getOperatorsList());
        byte[] bytes = island.build().toByteArray();
        return NativeLib.validatePlan(bytes) == null ? bytes : null;
    }

    /** Whether a plan of this planning calls user-defined functions. */
    public static boolean callsUdfs(byte[] plan) {
        try {
            return Plans.parse(plan).getUdfsCount() > 0;
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("A native plan of this planning does not parse", e);
        }
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
