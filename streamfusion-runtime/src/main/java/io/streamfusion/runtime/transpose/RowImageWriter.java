package io.streamfusion.runtime.transpose;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import javax.annotation.Nullable;

/**
 * Writes a non-binary RowData (e.g. a GenericRowData from a source) straight into a batch
 * buffer in BinaryRowData layout, without the intermediate BinaryRowData that Flink's
 * serializer would build. Only the layout the native decoder reads is produced (header, null
 * bits, 8-byte slots, 8-byte aligned variable part); a row type with a field this writer does
 * not handle gets no writer ({@link #forType} returns null) and rows go through Flink's serializer.
 */
final class RowImageWriter {
    private static final byte BOOLEAN = 0, BYTE = 1, SHORT = 2, INT = 3, LONG = 4, FLOAT = 5,
            DOUBLE = 6, COMPACT_DECIMAL = 7, COMPACT_TIMESTAMP = 8, STRING = 9, BINARY = 10;

    private final byte[] kinds;
    private final int[] scales;
    private final int[] precisions;
    private final int nullBitsBytes;
    private final int fixedSize;

    private RowImageWriter(byte[] kinds, int[] precisions, int[] scales) {
        this.kinds = kinds;
        this.precisions = precisions;
        this.scales = scales;
        int arity = kinds.length;
        this.nullBitsBytes = ((arity + 63 + 8) / 64) * 8;
        this.fixedSize = nullBitsBytes + 8 * arity;
    }

    @Nullable
    static RowImageWriter forType(RowType type) {
        int arity = type.getFieldCount();
        byte[] kinds = new byte[arity];
        int[] precisions = new int[arity];
        int[] scales = new int[arity];
        for (int i = 0; i < arity; i++) {
            LogicalType field = type.getTypeAt(i);
            switch (field.getTypeRoot()) {
                case BOOLEAN: kinds[i] = BOOLEAN; break;
                case TINYINT: kinds[i] = BYTE; break;
                case SMALLINT: kinds[i] = SHORT; break;
                case INTEGER:
                case DATE:
                case TIME_WITHOUT_TIME_ZONE: kinds[i] = INT; break;
                case BIGINT: kinds[i] = LONG; break;
                case FLOAT: kinds[i] = FLOAT; break;
                case DOUBLE: kinds[i] = DOUBLE; break;
                case CHAR:
                case VARCHAR: kinds[i] = STRING; break;
                case BINARY:
                case VARBINARY: kinds[i] = BINARY; break;
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
                    int precision = field instanceof TimestampType
                            ? ((TimestampType) field).getPrecision()
                            : ((LocalZonedTimestampType) field).getPrecision();
                    if (!TimestampData.isCompact(precision)) {
                        return null;
                    }
                    kinds[i] = COMPACT_TIMESTAMP;
                    precisions[i] = precision;
                    break;
                default:
                    return null;
            }
        }
        return new RowImageWriter(kinds, precisions, scales);
    }

    /** Upper bound of the bytes {@code row} needs. */
    int maxSize(RowData row) {
        int size = fixedSize;
        for (int i = 0; i < kinds.length; i++) {
            if ((kinds[i] == STRING || kinds[i] == BINARY) && !row.isNullAt(i)) {
                int length = kinds[i] == STRING
                        ? ((BinaryStringData) row.getString(i)).getSizeInBytes()
                        : row.getBinary(i).length;
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
            if (row.isNullAt(i)) {
                int bit = i + 8;
                bytes[start + (bit >>> 3)] |= (byte) (1 << (bit & 7));
                continue;
            }
            switch (kinds[i]) {
                case BOOLEAN: segment.putBoolean(slot, row.getBoolean(i)); break;
                case BYTE: segment.put(slot, row.getByte(i)); break;
                case SHORT: segment.putShort(slot, row.getShort(i)); break;
                case INT: segment.putInt(slot, row.getInt(i)); break;
                case LONG: segment.putLong(slot, row.getLong(i)); break;
                case FLOAT: segment.putFloat(slot, row.getFloat(i)); break;
                case DOUBLE: segment.putDouble(slot, row.getDouble(i)); break;
                case COMPACT_DECIMAL:
                    segment.putLong(slot, row.getDecimal(i, precisions[i], scales[i]).toUnscaledLong());
                    break;
                case COMPACT_TIMESTAMP:
                    segment.putLong(slot, row.getTimestamp(i, precisions[i]).getMillisecond());
                    break;
                case STRING: {
                    BinaryStringData string = (BinaryStringData) row.getString(i);
                    int length = string.getSizeInBytes();
                    cursor = writeVariable(segment, bytes, start, slot, cursor, length,
                            string.getSegments(), string.getOffset(), null);
                    break;
                }
                case BINARY: {
                    byte[] binary = row.getBinary(i);
                    cursor = writeVariable(segment, bytes, start, slot, cursor, binary.length,
                            null, 0, binary);
                    break;
                }
                default:
                    throw new IllegalStateException("unreachable field kind " + kinds[i]);
            }
        }
        return cursor;
    }

    /** A string or binary value: inline when at most 7 bytes, else in the variable part. */
    private static int writeVariable(
            MemorySegment segment, byte[] bytes, int start, int slot, int cursor, int length,
            @Nullable MemorySegment[] sourceSegments, int sourceOffset, @Nullable byte[] source) {
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
