package io.streamfusion.runtime.transpose;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import javax.annotation.Nullable;

/**
 * Writes a non-binary RowData (e.g. a GenericRowData from a source) straight into a batch buffer in
 * BinaryRowData layout, without the intermediate BinaryRowData that Flink's serializer would build.
 * Only the layout the native decoder reads is produced (header, null bits, 8-byte slots, 8-byte
 * aligned variable part). Only the fields the native plan reads ({@link FieldUse}) are written,
 * nested ROW fields included; the others are written as NULL, whatever their type. A row type with
 * a read field this writer does not handle gets no writer ({@link #forType} returns null) and rows
 * go through Flink's serializer.
 */
final class RowImageWriter {
    private static final byte BOOLEAN = 0,
            BYTE = 1,
            SHORT = 2,
            INT = 3,
            LONG = 4,
            FLOAT = 5,
            DOUBLE = 6,
            COMPACT_DECIMAL = 7,
            COMPACT_TIMESTAMP = 8,
            STRING = 9,
            BINARY = 10,
            UNREAD = 11,
            ROW = 12;

    private final byte[] kinds;
    private final int[] scales;
    private final int[] precisions;
    private final RowImageWriter[] nested;
    private final int nullBitsBytes;
    private final int fixedSize;

    private RowImageWriter(byte[] kinds, int[] precisions, int[] scales, RowImageWriter[] nested) {
        this.kinds = kinds;
        this.precisions = precisions;
        this.scales = scales;
        this.nested = nested;
        int arity = kinds.length;
        this.nullBitsBytes = ((arity + 63 + 8) / 64) * 8;
        this.fixedSize = nullBitsBytes + 8 * arity;
    }

    /** A writer of the fields of {@code type} that {@code use} reads, or null if one cannot be. */
    @Nullable
    static RowImageWriter forType(RowType type, FieldUse use) {
        int arity = type.getFieldCount();
        byte[] kinds = new byte[arity];
        int[] precisions = new int[arity];
        int[] scales = new int[arity];
        RowImageWriter[] nested = new RowImageWriter[arity];
        for (int i = 0; i < arity; i++) {
            LogicalType field = type.getTypeAt(i);
            FieldUse fieldUse = use.field(i);
            if (fieldUse == null) {
                kinds[i] = UNREAD;
                continue;
            }
            switch (field.getTypeRoot()) {
                case BOOLEAN:
                    kinds[i] = BOOLEAN;
                    break;
                case TINYINT:
                    kinds[i] = BYTE;
                    break;
                case SMALLINT:
                    kinds[i] = SHORT;
                    break;
                case INTEGER:
                case DATE:
                case TIME_WITHOUT_TIME_ZONE:
                    kinds[i] = INT;
                    break;
                case BIGINT:
                    kinds[i] = LONG;
                    break;
                case FLOAT:
                    kinds[i] = FLOAT;
                    break;
                case DOUBLE:
                    kinds[i] = DOUBLE;
                    break;
                case CHAR:
                case VARCHAR:
                    kinds[i] = STRING;
                    break;
                case BINARY:
                case VARBINARY:
                    kinds[i] = BINARY;
                    break;
                case DECIMAL:
                    DecimalType decimal = (DecimalType) field;
                    if (!DecimalData.isCompact(decimal.getPrecision())) {
                        return null;
                    }
                    kinds[i] = COMPACT_DECIMAL;
                    precisions[i] = decimal.getPrecision();
                    scales[i] = decimal.getScale();
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    int precision =
                            field instanceof TimestampType
                                    ? ((TimestampType) field).getPrecision()
                                    : ((LocalZonedTimestampType) field).getPrecision();
                    if (!TimestampData.isCompact(precision)) {
                        return null;
                    }
                    kinds[i] = COMPACT_TIMESTAMP;
                    precisions[i] = precision;
                    break;
                case ROW:
                    nested[i] = forType((RowType) field, fieldUse);
                    if (nested[i] == null) {
                        return null;
                    }
                    kinds[i] = ROW;
                    break;
                default:
                    return null;
            }
        }
        return new RowImageWriter(kinds, precisions, scales, nested);
    }

    /** Upper bound of the bytes {@code row} needs. */
    int maxSize(RowData row) {
        int size = fixedSize;
        for (int i = 0; i < kinds.length; i++) {
            byte kind = kinds[i];
            if ((kind == STRING || kind == BINARY || kind == ROW) && !row.isNullAt(i)) {
                int length;
                if (kind == STRING) {
                    length = ((BinaryStringData) row.getString(i)).getSizeInBytes();
                } else if (kind == BINARY) {
                    length = row.getBinary(i).length;
                } else {
                    RowData inner = row.getRow(i, nested[i].kinds.length);
                    length =
                            inner instanceof BinaryRowData
                                    ? ((BinaryRowData) inner).getSizeInBytes()
                                    : nested[i].maxSize(inner);
                }
                size += (length + 7) & ~7;
            }
        }
        return size;
    }

    /**
     * Writes {@code row} at {@code start} of {@code segment} (which wraps {@code bytes}, with at
     * least {@link #maxSize} bytes free there); returns the image size.
     */
    int write(RowData row, MemorySegment segment, byte[] bytes, int start) {
        java.util.Arrays.fill(bytes, start, start + fixedSize, (byte) 0);
        segment.put(start, row.getRowKind().toByteValue());
        int cursor = fixedSize;
        for (int i = 0; i < kinds.length; i++) {
            int slot = start + nullBitsBytes + 8 * i;
            if (kinds[i] == UNREAD || row.isNullAt(i)) {
                int bit = i + 8;
                bytes[start + (bit >>> 3)] |= (byte) (1 << (bit & 7));
                continue;
            }
            switch (kinds[i]) {
                case BOOLEAN:
                    segment.putBoolean(slot, row.getBoolean(i));
                    break;
                case BYTE:
                    segment.put(slot, row.getByte(i));
                    break;
                case SHORT:
                    segment.putShort(slot, row.getShort(i));
                    break;
                case INT:
                    segment.putInt(slot, row.getInt(i));
                    break;
                case LONG:
                    segment.putLong(slot, row.getLong(i));
                    break;
                case FLOAT:
                    segment.putFloat(slot, row.getFloat(i));
                    break;
                case DOUBLE:
                    segment.putDouble(slot, row.getDouble(i));
                    break;
                case COMPACT_DECIMAL:
                    segment.putLong(
                            slot, row.getDecimal(i, precisions[i], scales[i]).toUnscaledLong());
                    break;
                case COMPACT_TIMESTAMP:
                    segment.putLong(slot, row.getTimestamp(i, precisions[i]).getMillisecond());
                    break;
                case STRING:
                    {
                        BinaryStringData string = (BinaryStringData) row.getString(i);
                        int length = string.getSizeInBytes();
                        cursor =
                                writeVariable(
                                        segment,
                                        bytes,
                                        start,
                                        slot,
                                        cursor,
                                        length,
                                        string.getSegments(),
                                        string.getOffset(),
                                        null);
                        break;
                    }
                case BINARY:
                    {
                        byte[] binary = row.getBinary(i);
                        cursor =
                                writeVariable(
                                        segment,
                                        bytes,
                                        start,
                                        slot,
                                        cursor,
                                        binary.length,
                                        null,
                                        0,
                                        binary);
                        break;
                    }
                case ROW:
                    cursor =
                            writeRow(
                                    row.getRow(i, nested[i].kinds.length),
                                    nested[i],
                                    segment,
                                    bytes,
                                    start,
                                    slot,
                                    cursor);
                    break;
                default:
                    throw new IllegalStateException("unreachable field kind " + kinds[i]);
            }
        }
        return cursor;
    }

    /** A nested row: its own image in the variable part, as BinaryRowWriter.writeRow places it. */
    private static int writeRow(
            RowData inner,
            RowImageWriter writer,
            MemorySegment segment,
            byte[] bytes,
            int start,
            int slot,
            int cursor) {
        if (inner instanceof BinaryRowData) {
            // An image is at least 8 bytes, so it always goes to the variable part.
            BinaryRowData binary = (BinaryRowData) inner;
            return writeVariable(
                    segment,
                    bytes,
                    start,
                    slot,
                    cursor,
                    binary.getSizeInBytes(),
                    binary.getSegments(),
                    binary.getOffset(),
                    null);
        }
        // write() returns a multiple of 8 (fixed part and padded variable data): no padding.
        int size = writer.write(inner, segment, bytes, start + cursor);
        segment.putLong(slot, ((long) cursor << 32) | size);
        return cursor + size;
    }

    /** A string or binary value: inline when at most 7 bytes, else in the variable part. */
    private static int writeVariable(
            MemorySegment segment,
            byte[] bytes,
            int start,
            int slot,
            int cursor,
            int length,
            @Nullable MemorySegment[] sourceSegments,
            int sourceOffset,
            @Nullable byte[] source) {
        if (length <= 7) {
            if (source != null) {
                System.arraycopy(source, 0, bytes, slot, length);
            } else {
                BinarySegmentUtils.copyToBytes(sourceSegments, sourceOffset, bytes, slot, length);
            }
            bytes[slot + 7] = (byte) (0x80 | length);
            return cursor;
        }
        int at = start + cursor;
        if (source != null) {
            System.arraycopy(source, 0, bytes, at, length);
        } else {
            BinarySegmentUtils.copyToBytes(sourceSegments, sourceOffset, bytes, at, length);
        }
        int padded = (length + 7) & ~7;
        java.util.Arrays.fill(bytes, at + length, at + padded, (byte) 0);
        segment.putLong(slot, ((long) cursor << 32) | length);
        return cursor + padded;
    }
}
