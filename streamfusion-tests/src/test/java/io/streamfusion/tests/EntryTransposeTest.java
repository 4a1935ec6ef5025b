package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

/**
 * The entry transpose writes rows built by sources (GenericRowData whose strings are still Java
 * Strings, not yet encoded) byte for byte as Flink's serializer would, without going through the
 * serializer.
 */
class EntryTransposeTest {

    private static final RowType TYPE =
            RowType.of(
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new BigIntType(),
                    RowType.of(new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()));

    @Test
    void sourceStringsAreWrittenAsFlinkEncodesThem() {
        List<String> strings =
                List.of(
                        "",
                        "a",
                        "seven77",
                        "eight888",
                        "a longer ASCII string with spaces ~!@#",
                        "\u00e9t\u00e9",
                        "\u4e2d\u6587\u5b57\u7b26\u4e32\u4e2d\u6587",
                        "emoji \ud83d\ude00 here",
                        "lone \ud800 surrogate",
                        "ascii then \u00ff");
        RowImageBatch batch = new RowImageBatch(TYPE, FieldUse.all(), 4);
        RowDataSerializer serializer = new RowDataSerializer(TYPE);
        for (int i = 0; i < strings.size(); i++) {
            String s = strings.get(i);
            GenericRowData row =
                    GenericRowData.of(
                            StringData.fromString(s),
                            (long) i,
                            GenericRowData.of(StringData.fromString(s + s), (long) -i));
            // Not encoded yet, as a source builds it.
            assertThat(((BinaryStringData) row.getString(0)).getBinarySection()).isNull();
            batch.addUntimed(row);
            GenericRowData fresh =
                    GenericRowData.of(
                            StringData.fromString(s),
                            (long) i,
                            GenericRowData.of(StringData.fromString(s + s), (long) -i));
            BinaryRowData expected = serializer.toBinaryRow(fresh);
            byte[] expectedBytes =
                    BinarySegmentUtils.copyToBytes(
                            expected.getSegments(),
                            expected.getOffset(),
                            expected.getSizeInBytes());
            byte[] actual =
                    Arrays.copyOfRange(batch.bytes(), batch.offsets()[i], batch.offsets()[i + 1]);
            assertThat(actual).as("image of %s", s).isEqualTo(expectedBytes);
        }
        assertThat(batch.numSerialized()).as("rows that went through Flink's serializer").isZero();
    }
}
