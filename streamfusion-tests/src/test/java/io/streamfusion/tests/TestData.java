package io.streamfusion.tests;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Deterministic edge-case data for parity tests: NULLs in every column, MIN/MAX values, NaN,
 * infinities and -0.0, empty and multi-byte strings, DECIMAL at its precision limits, dates and
 * timestamps before 1970 and at nanosecond precision.
 */
public final class TestData {
    private TestData() {}

    public static final DataType ROW_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.INT().notNull()),
                    DataTypes.FIELD("i8", DataTypes.TINYINT()),
                    DataTypes.FIELD("i16", DataTypes.SMALLINT()),
                    DataTypes.FIELD("i32", DataTypes.INT()),
                    DataTypes.FIELD("i64", DataTypes.BIGINT()),
                    DataTypes.FIELD("f32", DataTypes.FLOAT()),
                    DataTypes.FIELD("f64", DataTypes.DOUBLE()),
                    DataTypes.FIELD("d10", DataTypes.DECIMAL(10, 2)),
                    DataTypes.FIELD("d38", DataTypes.DECIMAL(38, 10)),
                    DataTypes.FIELD("s", DataTypes.STRING()),
                    DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                    DataTypes.FIELD("bin", DataTypes.BYTES()),
                    DataTypes.FIELD("dt", DataTypes.DATE()),
                    DataTypes.FIELD("tm", DataTypes.TIME(0)),
                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("ts9", DataTypes.TIMESTAMP(9)),
                    DataTypes.FIELD("ltz", DataTypes.TIMESTAMP_LTZ(3)),
                    DataTypes.FIELD(
                            "r",
                            DataTypes.ROW(
                                    DataTypes.FIELD("x", DataTypes.INT()),
                                    DataTypes.FIELD("y", DataTypes.STRING()))));

    /** Fields of {@link #ROW_TYPE} whose types the direct row-image writer handles. */
    static final int[] COMPACT_FIELDS = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 16};

    /** The compact-typed columns only (no DECIMAL > 18, TIMESTAMP > 3 or ROW). */
    public static final DataType COMPACT_ROW_TYPE = project(ROW_TYPE);

    private static DataType project(DataType row) {
        List<DataTypes.Field> fields = new ArrayList<>();
        List<String> names = org.apache.flink.table.types.DataType.getFieldNames(row);
        List<DataType> types = org.apache.flink.table.types.DataType.getFieldDataTypes(row);
        for (int i : COMPACT_FIELDS) {
            fields.add(DataTypes.FIELD(names.get(i), types.get(i)));
        }
        return DataTypes.ROW(fields.toArray(new DataTypes.Field[0]));
    }

    @SuppressWarnings("unchecked")
    public static TypeInformation<Row> compactTypeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(COMPACT_ROW_TYPE);
    }

    public static List<Row> compactRows() {
        List<Row> result = new ArrayList<>();
        for (Row row : rows()) {
            Object[] values = new Object[COMPACT_FIELDS.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.getField(COMPACT_FIELDS[i]);
            }
            result.add(Row.of(values));
        }
        // Strings and binaries around the 7-byte inline limit of BinaryRowData.
        result.add(compactRow(100, "1234567", new byte[] {1, 2, 3, 4, 5, 6, 7}));
        result.add(compactRow(101, "12345678", new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        result.add(compactRow(102, "ü1234", new byte[0]));
        return result;
    }

    private static Row compactRow(int id, String s, byte[] bin) {
        Object[] values = new Object[COMPACT_FIELDS.length];
        values[0] = id;
        values[8] = s;
        values[10] = bin;
        return Row.of(values);
    }

    @SuppressWarnings("unchecked")
    public static TypeInformation<Row> typeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(ROW_TYPE);
    }

    public static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(
                row(
                        0,
                        (byte) 1,
                        (short) 2,
                        3,
                        4L,
                        1.5f,
                        2.25,
                        "12.34",
                        "1.0000000001",
                        "hello",
                        true,
                        new byte[] {1, 2, 3},
                        LocalDate.of(2024, 2, 29),
                        LocalTime.of(12, 30, 15),
                        LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_000_000),
                        LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_789),
                        Instant.ofEpochMilli(1_700_000_000_123L),
                        Row.of(7, "nested")));
        rows.add(
                row(
                        1, null, null, null, null, null, null, null, null, null, null, null, null,
                        null, null, null, null, null));
        rows.add(
                row(
                        2,
                        Byte.MAX_VALUE,
                        Short.MAX_VALUE,
                        Integer.MAX_VALUE,
                        Long.MAX_VALUE,
                        Float.MAX_VALUE,
                        Double.MAX_VALUE,
                        "99999999.99",
                        "9999999999999999999999999999.9999999999",
                        "",
                        false,
                        new byte[0],
                        LocalDate.of(9999, 12, 31),
                        LocalTime.of(23, 59, 59),
                        LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_000_000),
                        LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999),
                        Instant.ofEpochMilli(253402300799999L),
                        Row.of(null, null)));
        rows.add(
                row(
                        3,
                        Byte.MIN_VALUE,
                        Short.MIN_VALUE,
                        Integer.MIN_VALUE,
                        Long.MIN_VALUE,
                        -Float.MAX_VALUE,
                        -Double.MAX_VALUE,
                        "-99999999.99",
                        "-9999999999999999999999999999.9999999999",
                        "héllo wörld 你好 🎉",
                        true,
                        new byte[] {(byte) 0xff, 0, (byte) 0x80},
                        LocalDate.of(1, 1, 1),
                        LocalTime.MIDNIGHT,
                        LocalDateTime.of(1, 1, 1, 0, 0, 0, 0),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
                        Instant.ofEpochMilli(-1L),
                        null));
        rows.add(
                row(
                        4,
                        (byte) 0,
                        (short) 0,
                        0,
                        0L,
                        Float.NaN,
                        Double.NaN,
                        "0.00",
                        "0.0000000000",
                        " padded  ",
                        null,
                        new byte[] {0},
                        LocalDate.of(1970, 1, 1),
                        LocalTime.of(0, 0, 1),
                        LocalDateTime.of(1970, 1, 1, 0, 0, 0, 0),
                        LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1),
                        Instant.EPOCH,
                        Row.of(0, "")));
        rows.add(
                row(
                        5,
                        (byte) -1,
                        (short) -1,
                        -1,
                        -1L,
                        Float.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        "-0.01",
                        "-0.0000000001",
                        "a",
                        false,
                        null,
                        LocalDate.of(1969, 12, 31),
                        LocalTime.of(23, 0),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000),
                        null,
                        Instant.ofEpochMilli(86_400_000L),
                        Row.of(-5, "x")));
        rows.add(
                row(
                        6,
                        (byte) 100,
                        (short) 1000,
                        100000,
                        10_000_000_000L,
                        -0.0f,
                        -0.0,
                        "0.50",
                        "12345678901234567890.1234567890",
                        "ABCdef",
                        true,
                        new byte[] {65, 66},
                        LocalDate.of(2000, 1, 1),
                        LocalTime.of(6, 7, 8),
                        LocalDateTime.of(2000, 1, 1, 6, 7, 8, 900_000_000),
                        LocalDateTime.of(2000, 1, 1, 6, 7, 8, 900_000_001),
                        Instant.ofEpochMilli(946_684_800_000L),
                        Row.of(100, "hundred")));
        rows.add(
                row(
                        7,
                        (byte) -100,
                        (short) -1000,
                        -7,
                        7L,
                        3.0f,
                        0.1,
                        "-1.50",
                        "-2.5000000000",
                        "hello",
                        false,
                        new byte[] {1, 2, 3},
                        LocalDate.of(2024, 2, 29),
                        LocalTime.of(12, 30, 15),
                        LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_000_000),
                        LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_789),
                        Instant.ofEpochMilli(1_700_000_000_123L),
                        Row.of(7, "nested")));
        rows.add(
                row(
                        8,
                        (byte) 3,
                        (short) 3,
                        3,
                        3L,
                        1e-30f,
                        1e300,
                        "3.00",
                        "3.0000000000",
                        "αβγ",
                        true,
                        new byte[] {3},
                        LocalDate.of(1999, 12, 31),
                        LocalTime.of(1, 2, 3),
                        LocalDateTime.of(1999, 12, 31, 23, 59, 59, 0),
                        LocalDateTime.of(1999, 12, 31, 23, 59, 59, 500_000_000),
                        Instant.ofEpochMilli(946_684_799_000L),
                        Row.of(3, "three")));
        return rows;
    }

    private static Row row(Object... values) {
        Object[] converted = values.clone();
        for (int i : new int[] {7, 8}) {
            if (converted[i] != null) {
                converted[i] = new BigDecimal((String) converted[i]);
            }
        }
        return Row.of(converted);
    }
}
