package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamfusion.plan.CalcNode;
import io.streamfusion.plan.Call;
import io.streamfusion.plan.DataType;
import io.streamfusion.plan.Expr;
import io.streamfusion.plan.Field;
import io.streamfusion.plan.Literal;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.RowType;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.jni.NativeException;

import org.junit.jupiter.api.Test;

/**
 * The pipeline handle's boundary: a malformed plan is an internal error and not a crash, a closed
 * pipeline refuses work, and the hand-built plans other shell tests run.
 */
class NativePipelineBoundaryTest {

    private static DataType nullableInt() {
        return DataType.newBuilder().setKind(DataType.Kind.INT).setNullable(true).build();
    }

    /** SELECT a + 1 FROM t WHERE a > 10 — built by hand, as the planner would. */
    static byte[] plan() {
        Expr a = Expr.newBuilder().setType(nullableInt()).setInputRef(0).build();
        Expr one = literal(1);
        Expr ten = literal(10);
        Expr plus =
                Expr.newBuilder()
                        .setType(nullableInt())
                        .setCall(
                                Call.newBuilder()
                                        .setFunction("PLUS")
                                        .addOperands(a)
                                        .addOperands(one))
                        .build();
        Expr greater =
                Expr.newBuilder()
                        .setType(
                                DataType.newBuilder()
                                        .setKind(DataType.Kind.BOOLEAN)
                                        .setNullable(true))
                        .setCall(
                                Call.newBuilder()
                                        .setFunction("GREATER_THAN")
                                        .addOperands(a)
                                        .addOperands(ten))
                        .build();
        RowType row =
                RowType.newBuilder()
                        .addFields(Field.newBuilder().setName("a").setType(nullableInt()))
                        .build();
        return Plan.newBuilder()
                .setInputType(row)
                .setOutputType(row)
                .addOperators(
                        Operator.newBuilder()
                                .setCalc(
                                        CalcNode.newBuilder()
                                                .addProjections(plus)
                                                .setCondition(greater)))
                .build()
                .toByteArray();
    }

    /** SELECT 10 / a over (a INT): a = 0 fails the batch with Java's "/ by zero". */
    static byte[] divisionPlan() {
        Expr a = Expr.newBuilder().setType(nullableInt()).setInputRef(0).build();
        Expr divide =
                Expr.newBuilder()
                        .setType(nullableInt())
                        .setCall(
                                Call.newBuilder()
                                        .setFunction("DIVIDE")
                                        .addOperands(literal(10))
                                        .addOperands(a))
                        .build();
        RowType row =
                RowType.newBuilder()
                        .addFields(Field.newBuilder().setName("a").setType(nullableInt()))
                        .build();
        return Plan.newBuilder()
                .setInputType(row)
                .setOutputType(row)
                .addOperators(
                        Operator.newBuilder().setCalc(CalcNode.newBuilder().addProjections(divide)))
                .build()
                .toByteArray();
    }

    private static Expr literal(int value) {
        return Expr.newBuilder()
                .setType(nullableInt())
                .setLiteral(Literal.newBuilder().setType(nullableInt()).setIntValue(value))
                .build();
    }

    @Test
    void malformedPlanIsAnInternalErrorNotACrash() {
        assertThatThrownBy(() -> new NativePipeline(new byte[] {1, 2, 3, 4, 5}, 0))
                .isInstanceOf(NativeException.class)
                .hasMessageContaining("Cannot parse the native plan")
                .matches(e -> ((NativeException) e).getKind() == NativeException.Kind.INTERNAL);
    }

    @Test
    void useAfterCloseIsRefused() {
        NativePipeline pipeline = new NativePipeline(plan(), 0);
        pipeline.close();
        assertThatThrownBy(() -> pipeline.processRows(new byte[0], new int[1], 0))
                .isInstanceOf(IllegalStateException.class);
    }
}
