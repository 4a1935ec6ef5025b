package io.streamfusion.runtime.jni;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;

import io.streamfusion.plan.Plan;

import java.io.IOException;

/**
 * The bounds of a native plan's nesting, and its parsing on the JVM side. The planner refuses
 * (falls back, with the reason) any expression or type nested deeper than these bounds, so that
 * neither protobuf's recursion limit nor the native engine's recursive compilation and evaluation
 * on a task thread's stack can be reached by a query; the native side parses with the same {@link
 * #RECURSION_LIMIT} ({@code kPlanRecursionLimit} in {@code jni_entry.cc}).
 */
public final class Plans {
    private Plans() {}

    /** The deepest expression a native plan holds (1: a field or a literal). */
    public static final int MAX_EXPRESSION_DEPTH = 200;

    /** The deepest type a native plan holds (1: a scalar type; ROW nests). */
    public static final int MAX_TYPE_DEPTH = 32;

    /**
     * Protobuf's recursion limit for plans: an expression level is two messages (Expr, Call), a
     * type level two (DataType, Field), with a few levels of plan around them; well above what the
     * two bounds above allow, well below what a thread stack holds.
     */
    public static final int RECURSION_LIMIT = 1000;

    /** Parses a serialized plan with {@link #RECURSION_LIMIT}. */
    public static Plan parse(byte[] bytes) throws InvalidProtocolBufferException {
        CodedInputStream input = CodedInputStream.newInstance(bytes);
        input.setRecursionLimit(RECURSION_LIMIT);
        try {
            Plan plan = Plan.parseFrom(input);
            input.checkLastTagWas(0);
            return plan;
        } catch (InvalidProtocolBufferException e) {
            throw e;
        } catch (IOException e) {
            // A byte array is read without I/O.
            throw new InvalidProtocolBufferException(e);
        }
    }
}
