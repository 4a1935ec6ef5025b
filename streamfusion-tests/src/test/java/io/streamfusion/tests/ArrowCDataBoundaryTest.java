package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.streamfusion.runtime.jni.NativeLib;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * Batches through the Arrow C Data Interface: an Arrow Java batch goes into a native pipeline
 * without copying, the result comes back as Arrow, and both sides' memory is released (Arrow Java's
 * allocator fails on close if a release callback was not honoured).
 */
class ArrowCDataBoundaryTest {

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
    void batchRoundTripThroughTheCDataInterface() {
        Schema schema =
                new Schema(
                        List.of(
                                new org.apache.arrow.vector.types.pojo.Field(
                                        "a", FieldType.nullable(new ArrowType.Int(32, true)), null),
                                new org.apache.arrow.vector.types.pojo.Field(
                                        "$row_kind",
                                        FieldType.notNullable(new ArrowType.Int(8, true)),
                                        null)));
        try (BufferAllocator allocator = new RootAllocator();
                NativePipeline pipeline = new NativePipeline(plan(), 0)) {
            try (VectorSchemaRoot input = VectorSchemaRoot.create(schema, allocator);
                    ArrowArray inArray = ArrowArray.allocateNew(allocator);
                    ArrowSchema inSchema = ArrowSchema.allocateNew(allocator);
                    ArrowArray outArray = ArrowArray.allocateNew(allocator);
                    ArrowSchema outSchema = ArrowSchema.allocateNew(allocator)) {
                IntVector a = (IntVector) input.getVector(0);
                TinyIntVector kind = (TinyIntVector) input.getVector(1);
                int[] values = {5, 11, Integer.MAX_VALUE, 42};
                for (int i = 0; i < values.length; i++) {
                    a.setSafe(i, values[i]);
                    kind.setSafe(i, i == 3 ? 3 : 0); // last row is a -D retraction
                }
                a.setNull(values.length);
                kind.setSafe(values.length, 0);
                input.setRowCount(values.length + 1);

                Data.exportVectorSchemaRoot(allocator, input, null, inArray, inSchema);
                pipeline.processArrow(
                        inArray.memoryAddress(), inSchema.memoryAddress(),
                        outArray.memoryAddress(), outSchema.memoryAddress());
                try (VectorSchemaRoot output =
                        Data.importVectorSchemaRoot(allocator, outArray, outSchema, null)) {
                    assertEquals(3, output.getRowCount());
                    IntVector result = (IntVector) output.getVector(0);
                    assertEquals(12, result.get(0));
                    assertEquals(Integer.MIN_VALUE, result.get(1)); // Java wrap-around
                    assertEquals(43, result.get(2));
                    TinyIntVector kinds = (TinyIntVector) output.getVector(1);
                    assertEquals(0, kinds.get(0));
                    assertEquals(3, kinds.get(2));
                }
            }
            assertTrue(pipeline.memoryBytes() >= 0);
        }
        assertEquals(0, NativeLib.globalMemoryBytes());
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
