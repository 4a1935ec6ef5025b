package io.streamfusion.runtime.window;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.AbstractRowDataSerializer;

import java.io.IOException;
import java.util.Arrays;

import javax.annotation.Nullable;

/**
 * BinaryRowData images back to back with their offsets, as the native engine reads them: entry i is
 * {@code bytes()[offsets()[i] .. offsets()[i+1])}, an empty range for a missing row (no state).
 * Reused across batches.
 */
final class ImageBuffer {
    private byte[] bytes = new byte[1024];
    private int[] offsets = new int[17];
    private int count;

    /** Starts over with no entries. */
    void clear() {
        count = 0;
        offsets[0] = 0;
    }

    int count() {
        return count;
    }

    byte[] bytes() {
        return bytes;
    }

    int[] offsets() {
        return offsets;
    }

    /**
     * Appends the image of {@code row} (converted with {@code serializer} unless binary), or an
     * empty entry for null.
     */
    void append(@Nullable RowData row, AbstractRowDataSerializer<RowData> serializer)
            throws IOException {
        if (row == null) {
            next(offsets[count]);
            return;
        }
        BinaryRowData binary =
                row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row);
        int size = binary.getSizeInBytes();
        int start = offsets[count];
        ensureBytes(start + size);
        BinarySegmentUtils.copyToBytes(
                binary.getSegments(), binary.getOffset(), bytes, start, size);
        next(start + size);
    }

    private void next(int end) {
        if (count + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        offsets[++count] = end;
    }

    private void ensureBytes(int needed) {
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length * 2));
        }
    }

    /**
     * A row over its own copy of {@code bytes[from, to)}: the heap state backend keeps key and
     * accumulator objects, so they must not share a batch's array.
     */
    static BinaryRowData ownRow(int arity, byte[] bytes, int from, int to) {
        BinaryRowData row = new BinaryRowData(arity);
        row.pointTo(MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, from, to)), 0, to - from);
        return row;
    }
}
