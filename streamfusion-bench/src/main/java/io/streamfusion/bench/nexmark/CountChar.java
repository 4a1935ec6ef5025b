package io.streamfusion.bench.nexmark;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.functions.ScalarFunction;

import javax.annotation.Nullable;

/**
 * {@code count_char(STRING s, STRING c) -> BIGINT} of nexmark q14 (research/nexmark.md §2.5): how
 * many bytes of the UTF-8 encoding of {@code s} equal the first byte of {@code c}; 0 when {@code s}
 * is null (and, our choice, when {@code c} is null or empty). Works on Flink's internal strings so
 * that no Java String is decoded per row.
 */
public final class CountChar extends ScalarFunction {

    public long eval(
            @Nullable @DataTypeHint(value = "STRING", bridgedTo = StringData.class) StringData s,
            @Nullable @DataTypeHint(value = "STRING", bridgedTo = StringData.class) StringData c) {
        if (s == null || c == null) {
            return 0;
        }
        BinaryStringData chars = (BinaryStringData) c;
        if (chars.getSizeInBytes() == 0) {
            return 0;
        }
        byte wanted = chars.byteAt(0);
        BinaryStringData text = (BinaryStringData) s;
        int size = text.getSizeInBytes();
        long count = 0;
        for (int i = 0; i < size; i++) {
            if (text.byteAt(i) == wanted) {
                count++;
            }
        }
        return count;
    }
}
