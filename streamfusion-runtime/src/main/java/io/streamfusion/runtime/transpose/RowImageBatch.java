package io.streamfusion.runtime.transpose;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import java.util.Arrays;

import javax.annotation.Nullable;

/**
 * The JVM side of the entry transpose: collects rows as their BinaryRowData images, back to back in
 * one byte array, for the native engine to decode into Arrow columns. A BinaryRowData (what Flink's
 * network stack and most operators hand over) costs one memory copy; other RowData are written
 * straight into the buffer by a {@link RowImageWriter}, only the fields the native plan reads, when
 * their types allow, else first in binary form by Flink's own serializer. The RowKind travels in
 * each image's header byte.
 */
public final class RowImageBatch {
    private final RowDataSerializer serializer;
    @Nullable private final RowImageWriter writer;
    private byte[] bytes;
    private MemorySegment segment;
    private int[] offsets;
    private long[] timestamps;
    private boolean[] hasTimestamp;
    private boolean anyTimestamp;
    private int numRows;
    private int numBytes;
    private int numSerialized;

    /** A batch of rows of {@code rowType}, of which the native plan reads {@code use}. */
    public RowImageBatch(RowType rowType, FieldUse use, int expectedRows) {
        this.serializer = new RowDataSerializer(rowType);
        this.writer = RowImageWriter.forType(rowType, use);
        this.bytes = new byte[Math.max(1024, expectedRows * 64)];
        this.segment = MemorySegmentFactory.wrap(bytes);
        this.offsets = new int[expectedRows + 1];
        this.timestamps = new long[expectedRows];
        this.hasTimestamp = new boolean[expectedRows];
    }

    /**
     * Adds a row and its record's timestamp (any long, Long.MIN_VALUE included), which the exit
     * transpose gives back to the output records made from it.
     */
    public void add(RowData row, long timestamp) {
        growRowArrays();
        timestamps[numRows] = timestamp;
        hasTimestamp[numRows] = true;
        anyTimestamp = true;
        append(row);
    }

    /** Adds a row whose record has no timestamp. */
    public void addUntimed(RowData row) {
        growRowArrays();
        hasTimestamp[numRows] = false;
        append(row);
    }

    private void growRowArrays() {
        if (numRows + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        if (numRows + 1 > timestamps.length) {
            timestamps = Arrays.copyOf(timestamps, timestamps.length * 2);
            hasTimestamp = Arrays.copyOf(hasTimestamp, hasTimestamp.length * 2);
        }
    }

    private void append(RowData row) {
        if (row instanceof BinaryRowData) {
            BinaryRowData binary = (BinaryRowData) row;
            int size = binary.getSizeInBytes();
            ensureCapacity(size);
            BinarySegmentUtils.copyToBytes(
                    binary.getSegments(), binary.getOffset(), bytes, numBytes, size);
            numBytes += size;
        } else if (writer != null) {
            ensureCapacity(writer.maxSize(row));
            numBytes += writer.write(row, segment, bytes, numBytes);
        } else {
            BinaryRowData binary = serializer.toBinaryRow(row);
            numSerialized++;
            int size = binary.getSizeInBytes();
            ensureCapacity(size);
            BinarySegmentUtils.copyToBytes(
                    binary.getSegments(), binary.getOffset(), bytes, numBytes, size);
            numBytes += size;
        }
        numRows++;
        offsets[numRows] = numBytes;
    }

    private void ensureCapacity(int size) {
        if (numBytes + size > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, numBytes + size));
            segment = MemorySegmentFactory.wrap(bytes);
        }
    }

    /** Whether any row of this batch came with a record timestamp. */
    public boolean anyTimestamp() {
        return anyTimestamp;
    }

    /** Whether row {@code row}'s record had a timestamp. */
    public boolean hasTimestamp(int row) {
        return hasTimestamp[row];
    }

    /** Row {@code row}'s record timestamp, if {@link #hasTimestamp(int)}. */
    public long timestamp(int row) {
        return timestamps[row];
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

    /** Rows of this batch that needed Flink's serializer (neither binary nor directly written). */
    public int numSerialized() {
        return numSerialized;
    }

    public void clear() {
        numSerialized = 0;
        numRows = 0;
        numBytes = 0;
        anyTimestamp = false;
    }
}
