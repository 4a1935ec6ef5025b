package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.plan.DataType;
import io.streamfusion.plan.Expr;
import io.streamfusion.plan.Field;
import io.streamfusion.plan.Operator;
import io.streamfusion.plan.Plan;
import io.streamfusion.plan.WatermarkAssignerNode;
import io.streamfusion.runtime.island.NativeIslandOperator;
import io.streamfusion.runtime.island.ShellSpec;

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * The operator shell in Flink's operator test harness: each output record carries the timestamp
 * stock Flink's operators give it (none after a Calc; its input record's, Long.MIN_VALUE included,
 * through a watermark assigner), rows keep their RowKind, and a watermark is forwarded only after
 * the rows before it.
 */
class NativeIslandOperatorTest {

    @Test
    void timestampsRowKindsAndWatermarkOrder() throws Exception {
        RowType input = RowType.of(new IntType());
        // SELECT a + 1 WHERE a > 10, batches of 3 rows.
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        ShellSpec.builder(NativePipelineBoundaryTest.plan(), input, 1)
                                .batches(3, 60_000)
                                .build());
        try (OneInputStreamOperatorTestHarness<RowData, RowData> harness =
                new OneInputStreamOperatorTestHarness<>(operator, new RowDataSerializer(input))) {
            harness.open();
            harness.processElement(new StreamRecord<>(GenericRowData.of(5), 100L));
            harness.processElement(new StreamRecord<>(GenericRowData.of(11), 200L));
            harness.processElement(
                    new StreamRecord<>(GenericRowData.ofKind(RowKind.DELETE, 42), 300L));
            harness.processElement(new StreamRecord<>(GenericRowData.of(20)));
            harness.processWatermark(new Watermark(250L));

            List<String> output = new ArrayList<>();
            for (Object element : harness.getOutput()) {
                if (element instanceof Watermark) {
                    output.add("watermark " + ((Watermark) element).getTimestamp());
                } else {
                    @SuppressWarnings("unchecked")
                    StreamRecord<RowData> record = (StreamRecord<RowData>) element;
                    RowData row = record.getValue();
                    output.add(
                            row.getRowKind().shortString()
                                    + " "
                                    + row.getInt(0)
                                    + " @"
                                    + (record.hasTimestamp() ? record.getTimestamp() : "none"));
                }
            }
            // Flink's generated Calc emits its rows in records without a timestamp.
            assertEquals(
                    List.of("+I 12 @none", "-D 43 @none", "+I 21 @none", "watermark 250"), output);
        }
    }

    /**
     * Flink's WatermarkAssignerOperator forwards each record as it came: a timestamp, none, or
     * Long.MIN_VALUE (what a FLIP-27 source without a timestamp assigner stamps), which the island
     * must not turn into none. Row images once used Long.MIN_VALUE to mean "no timestamp".
     */
    @Test
    void aWatermarkAssignerKeepsEveryRecordsTimestamp() throws Exception {
        RowType input = RowType.of(new IntType(), new TimestampType(3));
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        ShellSpec.builder(assignerPlan(), input, 1).batches(4, 60_000).build());
        try (OneInputStreamOperatorTestHarness<RowData, RowData> harness =
                new OneInputStreamOperatorTestHarness<>(operator, new RowDataSerializer(input))) {
            harness.open();
            TimestampData ts = TimestampData.fromEpochMillis(1_000);
            harness.processElement(new StreamRecord<>(GenericRowData.of(1, ts), 100L));
            harness.processElement(new StreamRecord<>(GenericRowData.of(2, ts), Long.MIN_VALUE));
            harness.processElement(new StreamRecord<>(GenericRowData.of(3, ts)));
            harness.processElement(new StreamRecord<>(GenericRowData.of(4, ts), Long.MAX_VALUE));
            harness.endInput();

            List<String> output = new ArrayList<>();
            for (Object element : harness.getOutput()) {
                if (element instanceof StreamRecord) {
                    StreamRecord<?> record = (StreamRecord<?>) element;
                    output.add(
                            ((RowData) record.getValue()).getInt(0)
                                    + " @"
                                    + (record.hasTimestamp() ? record.getTimestamp() : "none"));
                }
            }
            assertEquals(
                    List.of("1 @100", "2 @" + Long.MIN_VALUE, "3 @none", "4 @" + Long.MAX_VALUE),
                    output);
        }
    }

    /** WATERMARK FOR ts AS ts over (a INT, ts TIMESTAMP(3)). */
    private static byte[] assignerPlan() {
        DataType timestamp =
                DataType.newBuilder()
                        .setKind(DataType.Kind.TIMESTAMP)
                        .setPrecision(3)
                        .setNullable(true)
                        .build();
        io.streamfusion.plan.RowType row =
                io.streamfusion.plan.RowType.newBuilder()
                        .addFields(
                                Field.newBuilder()
                                        .setName("a")
                                        .setType(
                                                DataType.newBuilder()
                                                        .setKind(DataType.Kind.INT)
                                                        .setNullable(true)))
                        .addFields(Field.newBuilder().setName("ts").setType(timestamp))
                        .build();
        return Plan.newBuilder()
                .setInputType(row)
                .setOutputType(row)
                .addOperators(
                        Operator.newBuilder()
                                .setWatermarkAssigner(
                                        WatermarkAssignerNode.newBuilder()
                                                .setRowtimeIndex(1)
                                                .setWatermark(
                                                        Expr.newBuilder()
                                                                .setType(timestamp)
                                                                .setInputRef(1))))
                .build()
                .toByteArray();
    }

    /**
     * A batch that fails (here 10 / 0) leaves the operator refusing all further work: no later
     * flush emits its rows again and no checkpoint is taken while the task fails. A checkpoint
     * between the failure and the end of the task (the mailbox may run one before it learns of a
     * legacy source thread's failure) could otherwise persist a half-emitted batch, whose rows the
     * restored job would then count twice.
     */
    @Test
    void aFailedBatchIsNeitherEmittedAgainNorCheckpointed() throws Exception {
        RowType input = RowType.of(new IntType());
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        ShellSpec.builder(NativePipelineBoundaryTest.divisionPlan(), input, 1)
                                .batches(3, 60_000)
                                .build());
        OneInputStreamOperatorTestHarness<RowData, RowData> harness =
                new OneInputStreamOperatorTestHarness<>(operator, new RowDataSerializer(input));
        harness.open();
        harness.processElement(new StreamRecord<>(GenericRowData.of(5)));
        harness.processElement(new StreamRecord<>(GenericRowData.of(2)));
        assertThatThrownBy(() -> harness.processElement(new StreamRecord<>(GenericRowData.of(0))))
                .hasStackTraceContaining("/ by zero");
        assertThatThrownBy(() -> harness.prepareSnapshotPreBarrier(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed earlier");
        assertThatThrownBy(() -> harness.processWatermark(new Watermark(1)))
                .hasMessageContaining("failed earlier");
        assertThatThrownBy(operator::finish).hasMessageContaining("failed earlier");
        assertThat(harness.getOutput()).isEmpty();
        // As on a failing task: closed without finishing (the native pipeline is freed).
        operator.close();
    }
}
