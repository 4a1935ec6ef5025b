package io.streamfusion.tests.fuzz;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzzer's input table "fuzz": one column per type family, random rows drawn mostly from
 * palettes of edge values (NULL, MIN/MAX, NaN, ±Inf, -0.0, subnormals, DECIMAL limits, multi-byte,
 * supplementary and lone-surrogate strings, dates from year 1 to 9999, DST transitions) so that
 * random expressions meet them often.
 */
final class FuzzData {
    private FuzzData() {}

    static final DataType ROW_TYPE =
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
                    DataTypes.FIELD("n", DataTypes.STRING()),
                    DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                    DataTypes.FIELD("bin", DataTypes.BYTES()),
                    DataTypes.FIELD("dt", DataTypes.DATE()),
                    DataTypes.FIELD("tm", DataTypes.TIME(0)),
                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("ts9", DataTypes.TIMESTAMP(9)),
                    DataTypes.FIELD("ltz", DataTypes.TIMESTAMP_LTZ(3)));

    static final List<String> COLUMNS = DataType.getFieldNames(ROW_TYPE);

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> typeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(ROW_TYPE);
    }

    static final String[] STRINGS = {
        "",
        " ",
        "a",
        "hello",
        "Hello World",
        " padded  ",
        "héllo wörld",
        "你好世界",
        "🎉x🎉",
        "ǅǈǋ",
        "İstanbul",
        "straße",
        "ÀÉÎÕÜ",
        "a,b,,c",
        "k=v&channel_id=42&x=1",
        "%_\\x",
        "\uD800lone",
        "tab\tnew\nline",
        "abcABC123",
        "AAAA",
        "ŉ",
        "ﬀ",
        "ΣΑΣ",
        "x",
        "a.b.c",
        "http://www.nexmark.com/aaa/item.htm?query=1&channel_id=7",
    };

    static final String[] NUMERIC_STRINGS = {
        "42",
        "-7",
        " 12 ",
        "1.5",
        "-0.0",
        "1e3",
        "NaN",
        "Infinity",
        "2024-02-29",
        "2024-02-29 12:30:15.123",
        "1970-01-01 00:00:00",
        "12:30:15",
        "true",
        "FALSE",
        "yes",
        "9223372036854775808",
        "2147483647",
        "0x1F",
        "",
        "abc",
        "2024-13-01",
        "00:00:00.5",
        "123456789012.345678",
        "+5",
        "1_000",
        "0001-01-01",
        "9999-12-31 23:59:59.999999999",
        "1.7976931348623157E308",
        "4.9E-324",
        "१२३",
    };

    static List<Row> rows(long seed, int count) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int id = 0; id < count; id++) {
            rows.add(row(r, id));
        }
        return rows;
    }

    private static Row row(Random r, int id) {
        Object[] v = new Object[COLUMNS.size()];
        v[0] = id;
        v[1] = nullOr(r, () -> (byte) pickLong(r, Byte.MIN_VALUE, Byte.MAX_VALUE));
        v[2] = nullOr(r, () -> (short) pickLong(r, Short.MIN_VALUE, Short.MAX_VALUE));
        v[3] = nullOr(r, () -> (int) pickLong(r, Integer.MIN_VALUE, Integer.MAX_VALUE));
        v[4] = nullOr(r, () -> pickLong(r, Long.MIN_VALUE, Long.MAX_VALUE));
        v[5] = nullOr(r, () -> (float) pickDouble(r, true));
        v[6] = nullOr(r, () -> pickDouble(r, false));
        v[7] = nullOr(r, () -> pickDecimal(r, 10, 2));
        v[8] = nullOr(r, () -> pickDecimal(r, 38, 10));
        v[9] =
                nullOr(
                        r,
                        () ->
                                r.nextInt(5) == 0
                                        ? randomString(r)
                                        : STRINGS[r.nextInt(STRINGS.length)]);
        v[10] = nullOr(r, () -> NUMERIC_STRINGS[r.nextInt(NUMERIC_STRINGS.length)]);
        v[11] = nullOr(r, r::nextBoolean);
        v[12] =
                nullOr(
                        r,
                        () -> {
                            byte[] b = new byte[r.nextInt(10)];
                            r.nextBytes(b);
                            return b;
                        });
        v[13] = nullOr(r, () -> pickDate(r));
        v[14] = nullOr(r, () -> LocalTime.ofSecondOfDay(r.nextInt(86400)));
        v[15] = nullOr(r, () -> pickTimestamp(r, false));
        v[16] = nullOr(r, () -> pickTimestamp(r, true));
        v[17] = nullOr(r, () -> pickTimestamp(r, false).toInstant(java.time.ZoneOffset.UTC));
        return Row.of(v);
    }

    private static <T> T nullOr(Random r, java.util.function.Supplier<T> value) {
        return r.nextInt(8) == 0 ? null : value.get();
    }

    private static long pickLong(Random r, long min, long max) {
        switch (r.nextInt(8)) {
            case 0:
                return min;
            case 1:
                return max;
            case 2:
                return r.nextInt(3) - 1;
            case 3:
                return r.nextInt(201) - 100;
            default:
                long span = max - min;
                return span <= 0 ? r.nextLong() : min + Math.floorMod(r.nextLong(), span + 1);
        }
    }

    private static double pickDouble(Random r, boolean single) {
        double[] edges = {
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            0.0,
            -0.0,
            single ? Float.MIN_VALUE : Double.MIN_VALUE,
            single ? Float.MAX_VALUE : Double.MAX_VALUE,
            1e-5,
            1e-3,
            1e7,
            9999999.0,
            0.1,
            0.5,
            1.5,
            2.5,
            -2.5,
            1.0,
            -1.0,
            100.0,
            Math.PI,
        };
        switch (r.nextInt(4)) {
            case 0:
                return edges[r.nextInt(edges.length)];
            case 1:
                return (r.nextInt(2001) - 1000) / 8.0;
            case 2:
                return single
                        ? Float.intBitsToFloat(r.nextInt())
                        : Double.longBitsToDouble(r.nextLong());
            default:
                return (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
        }
    }

    private static BigDecimal pickDecimal(Random r, int precision, int scale) {
        BigInteger limit = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        BigInteger unscaled;
        switch (r.nextInt(5)) {
            case 0:
                unscaled = limit;
                break;
            case 1:
                unscaled = limit.negate();
                break;
            case 2:
                unscaled = BigInteger.valueOf(r.nextInt(2001) - 1000);
                break;
            default:
                unscaled = new BigInteger(precision * 3, r).mod(limit.add(BigInteger.ONE));
                if (r.nextBoolean()) unscaled = unscaled.negate();
        }
        return new BigDecimal(unscaled, scale);
    }

    private static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(12);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(6)) {
                case 0:
                    s.append((char) (' ' + r.nextInt(95)));
                    break;
                case 1:
                    s.append((char) ('a' + r.nextInt(26)));
                    break;
                case 2:
                    s.append((char) ('A' + r.nextInt(26)));
                    break;
                case 3:
                    s.append((char) (0xA0 + r.nextInt(0x2000)));
                    break;
                case 4:
                    s.appendCodePoint(0x1F300 + r.nextInt(0x300));
                    break;
                default:
                    s.append((char) ('0' + r.nextInt(10)));
            }
        }
        return s.toString();
    }

    private static LocalDate pickDate(Random r) {
        LocalDate[] edges = {
            LocalDate.of(1, 1, 1), LocalDate.of(9999, 12, 31), LocalDate.of(1970, 1, 1),
            LocalDate.of(1969, 12, 31), LocalDate.of(2024, 2, 29), LocalDate.of(1900, 3, 1),
            LocalDate.of(2000, 2, 29), LocalDate.of(1582, 10, 10),
        };
        if (r.nextInt(3) == 0) return edges[r.nextInt(edges.length)];
        return LocalDate.ofEpochDay(r.nextInt(200 * 365) - 80 * 365);
    }

    private static LocalDateTime pickTimestamp(Random r, boolean nanos) {
        LocalDateTime[] edges = {
            LocalDateTime.of(1, 1, 1, 0, 0),
                    LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999),
            LocalDateTime.of(1970, 1, 1, 0, 0),
                    LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
            LocalDateTime.of(2024, 3, 10, 2, 30), LocalDateTime.of(2024, 11, 3, 1, 30),
            LocalDateTime.of(2024, 3, 31, 2, 30), LocalDateTime.of(2024, 10, 27, 2, 30),
            LocalDateTime.of(2024, 2, 29, 23, 59, 59, 500_000_000),
        };
        LocalDateTime t;
        if (r.nextInt(3) == 0) {
            t = edges[r.nextInt(edges.length)];
        } else {
            t =
                    LocalDateTime.ofEpochSecond(
                            (long) (r.nextDouble() * 200 * 365 * 86400L) - 80L * 365 * 86400L,
                            r.nextInt(1_000_000_000),
                            java.time.ZoneOffset.UTC);
        }
        return nanos ? t : t.withNano(t.getNano() / 1_000_000 * 1_000_000);
    }
}
