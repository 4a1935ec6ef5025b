package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.runtime.island.NativeIslandOperator;
import io.streamfusion.runtime.island.ShellSpec;

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * The operator shell in Flink's operator test harness: each output record keeps the timestamp (or
 * the absence of one) of the input record it came from, as Flink's Calc does, rows keep their
 * RowKind, and a watermark is forwarded only after the rows before it.
 */
class NativeIslandOperatorTest {

    @Test
    void timestampsRowKindsAndWatermarkOrder() throws Exception {
        RowType input = RowType.of(new IntType());
        // SELECT a + 1 WHERE a > 10, batches of 3 rows.
        NativeIslandOperator operator =
                new NativeIslandOperator(
                        ShellSpec.builder(ArrowCDataBoundaryTest.plan(), input, 1)
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
            assertEquals(
                    List.of("+I 12 @200", "-D 43 @300", "+I 21 @none", "watermark 250"), output);
        }
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
                        ShellSpec.builder(ArrowCDataBoundaryTest.divisionPlan(), input, 1)
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
