package io.streamfusion.runtime.transpose;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.Arrays;

/**
 * The JVM side of the entry transpose: collects rows as their BinaryRowData images, back to
 * back in one byte array, for the native engine to decode into Arrow columns. A BinaryRowData
 * (what Flink's network stack and most operators hand over) costs one memory copy; other
 * RowData are first written in binary form by Flink's own serializer. The RowKind travels in
 * each image's header byte.
 */
public final class RowImageBatch {
    private final RowDataSerializer serializer;
    private byte[] bytes;
    private int[] offsets;
    private int numRows;
    private int numBytes;

    public RowImageBatch(RowDataSerializer serializer, int expectedRows) {
        this.serializer = serializer;
        this.bytes = new byte[Math.max(1024, expectedRows * 64)];
        this.offsets = new int[expectedRows + 1];
    }

    public void add(RowData row) {
        BinaryRowData binary =
                row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row);
        int size = binary.getSizeInBytes();
        if (numBytes + size > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, numBytes + size));
        }
        if (numRows + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        BinarySegmentUtils.copyToBytes(
                binary.getSegments(), binary.getOffset(), bytes, numBytes, size);
        numBytes += size;
        numRows++;
        offsets[numRows] = numBytes;
    }

    public int numRows() {
        return numRows;
    }

    public byte[] bytes() {
        return bytes;
    }

    public int[] offsets() {
        return offsets;
    }

    public void clear() {
        numRows = 0;
        numBytes = 0;
    }
}
