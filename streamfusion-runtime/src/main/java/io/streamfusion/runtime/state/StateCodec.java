package io.streamfusion.runtime.state;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How one kind of state value (or map key) crosses the state port: the objects Flink's state holds,
 * as the bytes the native operator reads and writes (native/src/streamfusion/state/state_port.h).
 * Decoded objects own their bytes: the heap state backend keeps them.
 */
public abstract class StateCodec {

    /** The object {@code bytes[offset, offset + length)} encodes. */
    public abstract Object decode(byte[] bytes, int offset, int length);

    /** Appends the encoding of {@code value} (never null). */
    public abstract void encode(Object value, StateBytes out) throws IOException;

    /** A {@code RowData} of {@code types}, as its BinaryRowData image (an accumulator row). */
    public static StateCodec row(LogicalType[] types) {
        return new RowCodec(types);
    }

    /** A {@code Long}: eight bytes. */
    public static StateCodec longValue() {
        return LongCodec.INSTANCE;
    }

    /** A {@code TimeWindow}: its start, then its end, eight bytes each. */
    public static StateCodec timeWindow() {
        return TimeWindowCodec.INSTANCE;
    }

    /** A {@code long[]}: its elements. */
    public static StateCodec longArray() {
        return LongArrayCodec.INSTANCE;
    }

    /** A {@code List<Long>}: its elements. */
    public static StateCodec longList() {
        return LongListCodec.INSTANCE;
    }

    /**
     * A value of a SQL type in Flink's external representation of {@code type} (as the generated
     * aggregation's MapViews keep them): the image of a one-field row holding it.
     */
    public static StateCodec sqlValue(DataType type, ClassLoader loader) {
        return new SqlValueCodec(type, loader);
    }

    /** A {@code List} of {@link #sqlValue}s: each one's image, prefixed by its length. */
    public static StateCodec sqlValueList(DataType elementType, ClassLoader loader) {
        return new SqlValueListCodec(new SqlValueCodec(elementType, loader));
    }

    private static final class RowCodec extends StateCodec {
        private final int arity;
        private final RowDataSerializer serializer;

        RowCodec(LogicalType[] types) {
            this.arity = types.length;
            this.serializer = new RowDataSerializer(types);
        }

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            BinaryRowData row = new BinaryRowData(arity);
            row.pointTo(
                    MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, offset, offset + length)),
                    0,
                    length);
            return row;
        }

        @Override
        public void encode(Object value, StateBytes out) {
            RowData row = (RowData) value;
            writeImage(
                    row instanceof BinaryRowData
                            ? (BinaryRowData) row
                            : serializer.toBinaryRow(row),
                    out);
        }
    }

    static void writeImage(BinaryRowData image, StateBytes out) {
        int size = image.getSizeInBytes();
        out.ensure(size);
        BinarySegmentUtils.copyToBytes(
                image.getSegments(), image.getOffset(), out.array(), out.size(), size);
        out.advance(size);
    }

    private static final class LongCodec extends StateCodec {
        static final LongCodec INSTANCE = new LongCodec();

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            checkLength(length, 8, "Long");
            return StateBytes.readLong(bytes, offset);
        }

        @Override
        public void encode(Object value, StateBytes out) {
            out.writeLong((Long) value);
        }
    }

    private static final class TimeWindowCodec extends StateCodec {
        static final TimeWindowCodec INSTANCE = new TimeWindowCodec();

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            checkLength(length, 16, "TimeWindow");
            return new TimeWindow(
                    StateBytes.readLong(bytes, offset), StateBytes.readLong(bytes, offset + 8));
        }

        @Override
        public void encode(Object value, StateBytes out) {
            TimeWindow window = (TimeWindow) value;
            out.writeLong(window.getStart());
            out.writeLong(window.getEnd());
        }
    }

    private static final class LongArrayCodec extends StateCodec {
        static final LongArrayCodec INSTANCE = new LongArrayCodec();

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            checkMultipleOf8(length, "long[]");
            long[] values = new long[length / 8];
            for (int i = 0; i < values.length; i++) {
                values[i] = StateBytes.readLong(bytes, offset + 8 * i);
            }
            return values;
        }

        @Override
        public void encode(Object value, StateBytes out) {
            for (long v : (long[]) value) {
                out.writeLong(v);
            }
        }
    }

    private static final class LongListCodec extends StateCodec {
        static final LongListCodec INSTANCE = new LongListCodec();

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            checkMultipleOf8(length, "List<Long>");
            List<Long> values = new ArrayList<>(length / 8);
            for (int i = 0; i < length / 8; i++) {
                values.add(StateBytes.readLong(bytes, offset + 8 * i));
            }
            return values;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void encode(Object value, StateBytes out) {
            for (Long v : (List<Long>) value) {
                out.writeLong(v);
            }
        }
    }

    private static final class SqlValueCodec extends StateCodec {
        private final RowData.FieldGetter getter;
        private final DataStructureConverter<Object, Object> converter;
        private final TypeSerializer<Object> copier;
        private final RowDataSerializer rows;

        @SuppressWarnings({"unchecked", "rawtypes"})
        SqlValueCodec(DataType type, ClassLoader loader) {
            LogicalType logical = type.getLogicalType();
            getter = RowData.createFieldGetter(logical, 0);
            converter = (DataStructureConverter) DataStructureConverters.getConverter(type);
            converter.open(loader);
            copier = (TypeSerializer) InternalSerializers.create(logical);
            rows = new RowDataSerializer(logical);
        }

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            BinaryRowData image = new BinaryRowData(1);
            image.pointTo(MemorySegmentFactory.wrap(bytes), offset, length);
            Object internal = getter.getFieldOrNull(image);
            // Copied out of the message's bytes before it is converted (and possibly kept).
            return internal == null ? null : converter.toExternal(copier.copy(internal));
        }

        @Override
        public void encode(Object value, StateBytes out) {
            writeImage(rows.toBinaryRow(GenericRowData.of(converter.toInternal(value))), out);
        }
    }

    private static final class SqlValueListCodec extends StateCodec {
        private final SqlValueCodec element;

        SqlValueListCodec(SqlValueCodec element) {
            this.element = element;
        }

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            List<Object> values = new ArrayList<>();
            int at = offset;
            int end = offset + length;
            while (at < end) {
                int size = StateBytes.readInt(bytes, at);
                at += 4;
                if (size < 0 || size > end - at) {
                    throw new IllegalStateException(
                            "A state value list's element of " + size + " bytes");
                }
                values.add(element.decode(bytes, at, size));
                at += size;
            }
            return values;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void encode(Object value, StateBytes out) {
            for (Object v : (List<Object>) value) {
                int at = out.reserveInt();
                element.encode(v, out);
                out.patchInt(at, out.size() - at - 4);
            }
        }
    }

    private static void checkLength(int actual, int expected, String what) {
        if (actual != expected) {
            throw new IllegalStateException("A " + what + " state value of " + actual + " bytes");
        }
    }

    private static void checkMultipleOf8(int actual, String what) {
        if (actual % 8 != 0) {
            throw new IllegalStateException("A " + what + " state value of " + actual + " bytes");
        }
    }
}
