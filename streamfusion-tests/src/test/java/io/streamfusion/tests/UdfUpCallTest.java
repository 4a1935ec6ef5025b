package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;

import io.streamfusion.plan.CalcNode;
import io.streamfusion.plan.Call;
import io.streamfusion.plan.DataType;
import io.streamfusion.plan.Expr;
import io.streamfusion.plan.Field;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.RowType;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.island.NativeIslandOperator;
import io.streamfusion.runtime.island.ShellSpec;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.runtime.udf.ScalarUdfSpec;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator shell with a plan calling a UDF: one up-call into the JVM per batch, not per row,
 * eval once per row, open and close once.
 */
class UdfUpCallTest {

    static final AtomicInteger EVALS = new AtomicInteger();
    static final AtomicInteger OPENS = new AtomicInteger();
    static final AtomicInteger CLOSES = new AtomicInteger();

    /** The counters start at zero in every run, also when a run repeats in the same JVM. */
    @BeforeEach
    void resetCounters() {
        EVALS.set(0);
        OPENS.set(0);
        CLOSES.set(0);
    }

    public static final class PlusOne extends ScalarFunction {
        @Override
        public void open(FunctionContext context) {
            OPENS.incrementAndGet();
        }

        public Integer eval(Integer x) {
            EVALS.incrementAndGet();
            return x == null ? null : x + 1;
        }

        @Override
        public void close() {
            CLOSES.incrementAndGet();
        }
    }

    private static DataType nullableInt() {
        return DataType.newBuilder().setKind(DataType.Kind.INT).setNullable(true).build();
    }

    static byte[] plan() throws Exception {
        ScalarUdfSpec spec =
                new ScalarUdfSpec(
                        "plus_one",
                        new PlusOne(),
                        List.of(DataTypes.INT().bridgedTo(Integer.class)),
                        DataTypes.INT().bridgedTo(Integer.class),
                        List.of(new IntType()),
                        new IntType());
        Expr a = Expr.newBuilder().setType(nullableInt()).setInputRef(0).build();
        Expr udf =
                Expr.newBuilder()
                        .setType(nullableInt())
                        .setCall(Call.newBuilder().setFunction("UDF").setUdfIndex(0).addOperands(a))
                        .build();
        RowType row =
                RowType.newBuilder()
                        .addFields(Field.newBuilder().setName("a").setType(nullableInt()))
                        .build();
        return Plan.newBuilder()
                .setInputType(row)
                .setOutputType(row)
                .addOperators(
                        Operator.newBuilder().setCalc(CalcNode.newBuilder().addProjections(udf)))
                .addUdfs(
                        UdfDescriptor.newBuilder()
                                .setName("plus_one")
                                .setJavaSpec(
                                        ByteString.copyFrom(
                                                InstantiationUtil.serializeObject(spec))))
                .build()
                .toByteArray();
    }

    @Test
    void oneUpCallPerBatch() throws Exception {
        org.apache.flink.table.types.logical.RowType input =
                org.apache.flink.table.types.logical.RowType.of(new IntType());
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        ShellSpec.builder(plan(), input, 1).batches(4, 60_000).build());
        long callsBefore = NativeMetrics.udfCalls();
        long batchesBefore = NativeMetrics.batches();
        try (OneInputStreamOperatorTestHarness<RowData, RowData> harness =
                new OneInputStreamOperatorTestHarness<>(operator, new RowDataSerializer(input))) {
            harness.open();
            assertEquals(1, OPENS.get());
            for (int i = 0; i < 10; i++) {
                harness.processElement(new StreamRecord<>(GenericRowData.of(i == 5 ? null : i)));
            }
            harness.endInput();
            List<String> output = new ArrayList<>();
            for (Object element : harness.getOutput()) {
                @SuppressWarnings("unchecked")
                RowData row = ((StreamRecord<RowData>) element).getValue();
                output.add(row.isNullAt(0) ? "null" : String.valueOf(row.getInt(0)));
            }
            assertEquals(List.of("1", "2", "3", "4", "5", "null", "7", "8", "9", "10"), output);
        }
        long batches = NativeMetrics.batches() - batchesBefore;
        assertEquals(3, batches); // 4 + 4 + 2 rows
        assertEquals(batches, NativeMetrics.udfCalls() - callsBefore);
        assertEquals(10, EVALS.get());
        assertEquals(1, CLOSES.get());
    }
}
