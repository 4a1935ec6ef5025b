package io.streamfusion.tests;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Expression parity of the native Calc: every case runs as a projection (and every BOOLEAN case
 * also as a filter) over {@link TestData} on stock Flink and natively, fallback forbidden. Cases
 * are grouped into one query per group to keep the number of jobs small.
 */
class CalcParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final ParityHarness HARNESS = new ParityHarness();

    static final String[] REFERENCES = {
        "id", "i8", "i16", "i32", "i64", "f32", "f64", "d10", "d38", "s", "b", "bin", "dt", "tm",
        "ts", "ts9", "ltz", "r", "r.x", "r.y",
    };

    static final String[] LITERALS = {
        "TRUE",
        "FALSE",
        "CAST(NULL AS INT)",
        "CAST(1 AS TINYINT)",
        "CAST(-2 AS SMALLINT)",
        "2147483647",
        "-9223372036854775807",
        "CAST(1.5 AS FLOAT)",
        "CAST(2.5e10 AS DOUBLE)",
        "1.25",
        "CAST(12345678.0123456789 AS DECIMAL(38, 10))",
        "'text'",
        "''",
        "'ünï 🎉'",
        "X'0aff'",
        "DATE '2024-02-29'",
        "TIME '23:59:59'",
        "TIMESTAMP '2024-02-29 12:30:15.123'",
        "TIMESTAMP '1969-12-31 23:59:59.999999999'",
        "CAST(NULL AS VARCHAR)",
        "CAST(NULL AS DECIMAL(20, 5))",
    };

    static final String[] ARITHMETIC = {
        "i8 + i8",
        "i8 * i8",
        "i16 + i16",
        "i16 * i16",
        "i32 + 1",
        "i32 - 1",
        "i32 * 2",
        "i32 + i32",
        "i32 * i32",
        "i64 + 1",
        "i64 - 1",
        "i64 * i64",
        "i32 + i64",
        "i8 + i64",
        "-i32",
        "-i64",
        "-i8",
        "+i32",
        "i32 / 2",
        "i64 / 3",
        "i32 / -1",
        "i64 / -1",
        "i32 % 3",
        "i64 % -3",
        "i16 % 7",
        "f32 + 1",
        "f32 * f32",
        "f64 + f64",
        "f64 * 2",
        "f64 / 0.0",
        "f64 / 3",
        "f32 / 0.0",
        "-f64",
        "f32 + i32",
        "f64 + i64",
        "d10 + d10",
        "d10 - 1",
        "d10 * d10",
        "d10 / 3",
        "d10 % 3",
        "d38 + d38",
        "d38 * d38",
        "d38 - d38",
        "d38 / 7",
        "d10 * i32",
        "d10 + i64",
        "-d10",
        "-d38",
        "d10 + f64",
        "d38 * 2.5",
        "i32 + d38",
    };

    static final String[] COMPARISONS = {
        "i32 = 3",
        "i32 <> 3",
        "i32 < 0",
        "i32 <= 3",
        "i32 > i64",
        "i64 >= i32",
        "i8 = i16",
        "f32 = f32",
        "f64 = f64",
        "f64 < 1",
        "f64 > f32",
        "f64 <> f64",
        "f32 = 0",
        "f64 = 0",
        "d10 = 12.34",
        "d10 < d38",
        "d38 >= 0",
        "d10 = i32",
        "d10 > f64",
        "s = 'hello'",
        "s > s",
        "s <> 'a'",
        "b = TRUE",
        "b < b",
        "b <> FALSE",
        "bin = X'010203'",
        "bin < X'02'",
        "dt = DATE '2024-02-29'",
        "dt < DATE '1970-01-01'",
        "tm > TIME '12:00:00'",
        "ts = TIMESTAMP '2024-02-29 12:30:15.123'",
        "ts < TIMESTAMP '1970-01-01 00:00:00'",
        "ts9 > TIMESTAMP '2000-01-01 06:07:08.9'",
        "ts9 = ts9",
        "ltz > ltz",
        "r.x = 7",
        "r.y = 'nested'",
    };

    static final String[] LOGIC = {
        "b AND i32 > 0",
        "b OR i32 > 0",
        "NOT b",
        "b AND CAST(NULL AS BOOLEAN)",
        "b OR CAST(NULL AS BOOLEAN)",
        "(i32 > 0) AND (i64 > 0) AND (f64 > 0)",
        "(i32 > 0) OR (i64 < 0) OR b",
        "NOT (i32 = 3)",
        "b IS NULL",
        "b IS NOT NULL",
        "s IS NULL",
        "r IS NULL",
        "r.x IS NULL",
        "b IS TRUE",
        "b IS NOT TRUE",
        "b IS FALSE",
        "b IS NOT FALSE",
        "(i32 > 0) IS TRUE",
        "(i32 > 0) IS NOT FALSE",
        "d38 IS NOT NULL",
        "ts9 IS NULL",
    };

    static final String[] CONDITIONALS = {
        "CASE WHEN i32 > 0 THEN 'pos' WHEN i32 < 0 THEN 'neg' ELSE 'zero' END",
        "CASE WHEN b THEN i32 ELSE i64 END",
        "CASE i32 WHEN 3 THEN 1 WHEN -1 THEN 2 END",
        "CASE WHEN i32 IS NULL THEN d10 ELSE d10 * 2 END",
        "CASE WHEN i32 <> 0 THEN 100 / i32 ELSE -1 END",
        "CASE WHEN f64 > 0 THEN f64 ELSE NULL END",
        "COALESCE(i32, 0)",
        "COALESCE(s, 'none')",
        "COALESCE(d10, d38)",
        "COALESCE(i8, i16, i32)",
        "COALESCE(ts, TIMESTAMP '2000-01-01 00:00:00')",
        "i32 IN (1, 3, 7)",
        "i32 NOT IN (1, 3, 7)",
        "s IN ('hello', 'a', '')",
        "i64 BETWEEN 0 AND 10",
        "i64 NOT BETWEEN -5 AND 5",
        "d10 IN (12.34, -1.50)",
        "dt IN (DATE '2024-02-29', DATE '1970-01-01')",
        "f64 IN (0.1, 2.25)",
        "i32 > 0 AND i32 < 100 OR i32 = -7",
        "CASE WHEN b THEN r.y ELSE s END",
    };

    static final String[] CASTS = {
        "CAST(i32 AS BIGINT)",
        "CAST(i64 AS INT)",
        "CAST(i32 AS TINYINT)",
        "CAST(i32 AS SMALLINT)",
        "CAST(i64 AS DOUBLE)",
        "CAST(i32 AS FLOAT)",
        "CAST(f64 AS INT)",
        "CAST(f64 AS BIGINT)",
        "CAST(f32 AS INT)",
        "CAST(f64 AS TINYINT)",
        "CAST(f64 AS FLOAT)",
        "CAST(f32 AS DOUBLE)",
        "CAST(i32 AS DECIMAL(12, 2))",
        "CAST(i64 AS DECIMAL(38, 0))",
        "CAST(i64 AS DECIMAL(5, 0))",
        "CAST(d10 AS INT)",
        "CAST(d38 AS BIGINT)",
        "CAST(d10 AS DOUBLE)",
        "CAST(d38 AS DOUBLE)",
        "CAST(d10 AS DECIMAL(5, 1))",
        "CAST(d38 AS DECIMAL(38, 2))",
        "CAST(d10 AS DECIMAL(20, 6))",
        "CAST(i32 AS BOOLEAN)",
        "CAST(b AS INT)",
        "CAST(i32 AS STRING)",
        "CAST(i64 AS STRING)",
        "CAST(d10 AS STRING)",
        "CAST(d38 AS STRING)",
        "CAST(b AS STRING)",
        "CAST(i8 AS STRING)",
        "CAST(i32 AS VARCHAR(3))",
        "CAST(i32 AS CHAR(12))",
        "CAST(s AS VARCHAR(3))",
        "CAST(s AS CHAR(8))",
        // String to number over numeric strings; CHAR(n) pads with spaces that the casts trim.
        "CAST(CAST(i32 AS STRING) AS DOUBLE)",
        "CAST(CAST(i64 AS STRING) AS DOUBLE)",
        "CAST(CAST(i64 AS STRING) AS FLOAT)",
        "CAST(CAST(d10 AS STRING) AS DOUBLE)",
        "CAST(CAST(d38 AS STRING) AS DOUBLE)",
        "CAST(CAST(d38 AS STRING) AS FLOAT)",
        "CAST(CAST(i32 AS CHAR(12)) AS DOUBLE)",
        "CAST(CAST(i32 AS CHAR(12)) AS INT)",
        "CAST(CAST(i64 AS CHAR(21)) AS BIGINT)",
        "CAST(CAST(d10 AS STRING) AS DECIMAL(10, 1))",
        "CAST(CAST(d10 AS CHAR(14)) AS DECIMAL(18, 4))",
        "CAST(CAST(i32 AS STRING) AS DECIMAL(12, 2))",
        "CAST(CAST(d38 AS STRING) AS DECIMAL(38, 10))",
        "CAST(CAST(d38 AS STRING) AS DECIMAL(38, 2))",
        "CAST(CAST(d38 AS CHAR(45)) AS DECIMAL(30, 1))",
        "CAST(CAST(d10 AS STRING) AS DECIMAL(20, 0))",
    };

    static Stream<Arguments> projectionGroups() {
        List<Arguments> groups = new ArrayList<>();
        for (String[] group :
                new String[][] {
                    REFERENCES, LITERALS, ARITHMETIC, COMPARISONS, LOGIC, CONDITIONALS, CASTS
                }) {
            for (int i = 0; i < group.length; i += 12) {
                String[] chunk = new String[Math.min(12, group.length - i)];
                System.arraycopy(group, i, chunk, 0, chunk.length);
                groups.add(Arguments.of((Object) chunk));
            }
        }
        return groups.stream();
    }

    @ParameterizedTest
    @MethodSource("projectionGroups")
    void projections(String[] expressions) {
        StringBuilder sql = new StringBuilder("SELECT id");
        for (String e : expressions) {
            sql.append(",\n  ").append(e);
        }
        HARNESS.assertParity(sql.append("\nFROM t").toString());
    }

    private static final List<String> SELF_COMPARISONS =
            List.of(
                    "f32 = f32",
                    "f64 = f64",
                    "f64 <> f64",
                    "s > s",
                    "b < b",
                    "ts9 = ts9",
                    "ltz > ltz",
                    "b AND CAST(NULL AS BOOLEAN)");

    static Stream<String> filters() {
        List<String> filters = new ArrayList<>();
        for (String[] group : new String[][] {COMPARISONS, LOGIC}) {
            for (String condition : group) {
                // A column compared with itself is folded by Flink's optimizer: no Calc is left.
                if (!SELF_COMPARISONS.contains(condition)) {
                    filters.add(condition);
                }
            }
        }
        filters.addAll(
                List.of(
                        "i32 IN (1, 3, 7)",
                        "s IN ('hello', 'a', '')",
                        "i64 BETWEEN 0 AND 10",
                        "CASE WHEN i32 > 0 THEN b ELSE NOT b END",
                        "COALESCE(b, FALSE)",
                        "i32 <> 0 AND 100 / i32 > 5"));
        return filters.stream();
    }

    @ParameterizedTest
    @MethodSource("filters")
    void filters(String condition) {
        HARNESS.assertParity("SELECT id, s, i32 * 2, d10 FROM t WHERE " + condition);
    }

    static int caseCount() {
        return REFERENCES.length
                + LITERALS.length
                + ARITHMETIC.length
                + COMPARISONS.length
                + LOGIC.length
                + CONDITIONALS.length
                + CASTS.length;
    }
}
