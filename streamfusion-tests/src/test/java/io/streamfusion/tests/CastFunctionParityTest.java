package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.types.Row;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Parity of CAST pairs whose result depends on Java's Double.toString (FLOAT/DOUBLE to STRING and
 * DECIMAL), BINARY targets, TRY_CAST and TYPEOF, over {@link TestData} (NaN, infinities, -0.0,
 * MIN/MAX values) and over a generated sequence that sweeps doubles across Java's plain/scientific
 * switch at 1e-3 and 1e7, subnormals and huge values.
 */
class CastFunctionParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final ParityHarness HARNESS = new ParityHarness();

    static final String[] FLOATING = {
        "CAST(f64 AS STRING)",
        "CAST(f32 AS STRING)",
        "CAST(f64 AS VARCHAR(6))",
        "CAST(f32 AS CHAR(12))",
        "CAST(f64 * 1.0E-5 AS STRING)",
        "CAST(f64 / 3 AS STRING)",
        "CAST(f32 / 3 AS STRING)",
        "CAST(CAST(i64 AS DOUBLE) AS STRING)",
        "CAST(CAST(i32 AS FLOAT) AS STRING)",
        "CAST(CAST(d38 AS DOUBLE) AS STRING)",
        "CAST(f64 * 0.0 AS STRING)",
        "CAST(-f64 AS STRING)",
        // Edge values next to the columns' NaN, infinities, -0.0 and MAX_VALUE.
        "CAST(f64 * 0.0 + 4.9E-324 AS STRING)",
        "CAST(f64 * 0.0 + 1.0E-5 AS STRING)",
        "CAST(f64 * 0.0 + 1.0E7 AS STRING)",
        "CAST(f64 * 0.0 + 9999999.999999998 AS STRING)",
        "CAST(f64 * 0.0 + 0.001 AS STRING)",
        "CAST(f64 * 0.0 + 9.999999999999998E-4 AS STRING)",
        "CAST(f64 * 0.0 + 2.2250738585072014E-308 AS STRING)",
        "CAST(f64 * 0.0 + 2.82879384806159E17 AS STRING)",
        "CAST(f64 * 0.0 + 1.0E23 AS STRING)",
        "CAST(f32 * 0.0 + CAST(1.4E-45 AS FLOAT) AS STRING)",
        "CAST(f32 * 0.0 + CAST(1.17549435E-38 AS FLOAT) AS STRING)",
        "CAST(f32 * 0.0 + CAST(8.589973E9 AS FLOAT) AS STRING)",
    };

    static final String[] TO_DECIMAL = {
        // CAST(NaN/Infinity AS DECIMAL) fails in Flink: the finite rows only.
        "CASE WHEN f64 = f64 AND f64 < 1.0E300 AND f64 > -1.0E300 THEN CAST(f64 AS DECIMAL(38, 10))"
                + " END",
        "CASE WHEN f64 = f64 AND f64 < 1.0E300 AND f64 > -1.0E300 THEN CAST(f64 AS DECIMAL(10, 2))"
                + " END",
        "CASE WHEN f32 = f32 AND f32 < 1.0E30 AND f32 > -1.0E30 THEN CAST(f32 AS DECIMAL(20, 10))"
                + " END",
        "CASE WHEN f32 = f32 AND f32 < 1.0E30 AND f32 > -1.0E30 THEN CAST(f32 AS DECIMAL(5, 1))"
                + " END",
        "CAST(CAST(i64 AS DOUBLE) AS DECIMAL(38, 0))",
        "CAST(CAST(i32 AS DOUBLE) / 7 AS DECIMAL(12, 4))",
    };

    static final String[] OTHERS = {
        "CAST(bin AS BINARY(2))",
        "CAST(bin AS VARBINARY(1))",
        "CAST(bin AS BINARY(8))",
        "CAST(s AS BYTES)",
        "CAST(s AS BINARY(3))",
        "CAST(s AS VARBINARY(2))",
        "CAST(bin AS STRING)",
        "CAST(bin AS VARCHAR(1))",
        "CAST(bin AS CHAR(4))",
        "CAST(CAST(s AS BINARY(3)) AS STRING)",
        "CAST(CAST(s AS BYTES) AS CHAR(12))",
        "CAST(CAST(s AS VARBINARY(5)) AS VARCHAR(2))",
        "CAST(b AS STRING)",
        "CAST(b AS CHAR(6))",
        "CAST(d10 AS VARCHAR(4))",
        "CAST(i64 AS CHAR(3))",
        "TRY_CAST(s AS INT)",
        "TRY_CAST(s AS DOUBLE)",
        "TRY_CAST(s AS BOOLEAN)",
        "TRY_CAST(s AS DECIMAL(5, 2))",
        "TRY_CAST(s AS BIGINT)",
        "TRY_CAST(s AS FLOAT)",
        "TRY_CAST(CAST(f64 AS STRING) AS DOUBLE)",
        "TRY_CAST(CAST(i32 AS STRING) AS TINYINT)",
        "TRY_CAST(r.y AS INT)",
        "TRY_CAST(i32 AS STRING)",
        "TRY_CAST(f64 AS STRING)",
        "TYPEOF(i32)",
        "TYPEOF(d10)",
        "TYPEOF(s)",
        "TYPEOF(bin)",
        "TYPEOF(f64, TRUE)",
        "TYPEOF(s, TRUE)",
        "TYPEOF(b)",
        "TYPEOF(tm)",
        "TYPEOF(id)",
        "TYPEOF(dt)",
    };

    static Stream<Arguments> projectionGroups() {
        List<Arguments> groups = new ArrayList<>();
        for (String[] group : new String[][] {FLOATING, TO_DECIMAL, OTHERS}) {
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

    @ParameterizedTest
    @ValueSource(
            strings = {
                "CAST(f64 AS STRING) = 'NaN'",
                "CAST(f64 AS STRING) <> '-0.0'",
                "CAST(f32 AS STRING) LIKE '1%'",
                "TRY_CAST(s AS INT) IS NULL",
                "TRY_CAST(s AS DOUBLE) > 0",
                "CAST(f64 * 1.0E-5 AS STRING) LIKE '%E-5'",
            })
    void filters(String condition) {
        HARNESS.assertParity("SELECT id, s, f64 FROM t WHERE " + condition);
    }

    private static final String[] SWEEPS = {
        "CAST(CAST(n AS DOUBLE) / 7 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 1.0E-7 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 333.3333 AS STRING)",
        "CAST(1.0E300 / n AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 4.9E-324 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 9.87654321E15 AS STRING)",
        "CAST(1 / CAST(n AS DOUBLE) AS STRING)",
        "CAST(CAST(n AS FLOAT) / 3 AS STRING)",
        "CAST(CAST(n AS FLOAT) * CAST(1.0E-9 AS FLOAT) AS STRING)",
        "CAST(CAST(n AS DOUBLE) / 7 AS DECIMAL(20, 6))",
        "CAST(CAST(n AS DOUBLE) * 1.0E-7 AS DECIMAL(10, 9))",
        "CAST(CAST(n AS FLOAT) / 3 AS DECIMAL(12, 3))",
        "CAST(1.0E300 / n AS DECIMAL(38, 2))",
        // Across the plain/scientific switches at 1e7 and 1e-3, one ulp-ish step at a time.
        "CAST(1.0E7 + (n - 15000) * 1.0E-9 AS STRING)",
        "CAST(0.001 + (n - 15000) * 1.0E-19 AS STRING)",
        "CAST(1.0E-5 + (n - 15000) * 1.0E-21 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 1000.0 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 5.992310449541053E303 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 1.0E-310 AS STRING)",
        "CAST(CAST(n AS DOUBLE) * 2.82879384806159E13 AS STRING)",
        "CAST(CAST(n AS FLOAT) * CAST(1000.0 AS FLOAT) AS STRING)",
        "CAST(CAST(n AS FLOAT) * CAST(1.4E-45 AS FLOAT) AS STRING)",
        // Pseudo-random full mantissas (wrapping BIGINT multiply) at several magnitudes.
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) AS STRING)",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-25 AS STRING)",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-310 AS STRING)",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E200 AS STRING)",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-200 AS STRING)",
        "CAST(CAST(n * 1103515245 AS FLOAT) AS STRING)",
        "CAST(CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-22 AS FLOAT) AS STRING)",
        "CAST(CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-60 AS FLOAT) AS STRING)",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-18 AS DECIMAL(38, 18))",
        "CAST(CAST(n * 6364136223846793005 AS DOUBLE) * 1.0E-22 AS DECIMAL(10, 5))",
        "CAST(CAST(CAST(n * 1103515245 AS FLOAT) AS DOUBLE) * 1.0E-15 AS DECIMAL(12, 2))",
        "CAST(1.0E7 + (n - 15000) * 1.0E-9 AS DECIMAL(20, 8))",
    };

    static Stream<Arguments> sweepGroups() {
        List<Arguments> groups = new ArrayList<>();
        for (int i = 0; i < SWEEPS.length; i += 12) {
            String[] chunk = new String[Math.min(12, SWEEPS.length - i)];
            System.arraycopy(SWEEPS, i, chunk, 0, chunk.length);
            groups.add(Arguments.of((Object) chunk));
        }
        return groups.stream();
    }

    /** Doubles and floats derived from 1..N: many digit patterns around Java's format switches. */
    @ParameterizedTest
    @MethodSource("sweepGroups")
    void sweep(String[] expressions) {
        String ddl =
                "CREATE TEMPORARY TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'fields.n.kind'"
                        + " = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '30000')";
        StringBuilder select = new StringBuilder("SELECT n");
        for (String e : expressions) {
            select.append(",\n  ").append(e);
        }
        String sql = select.append("\nFROM g").toString();
        List<List<Row>> results = new ArrayList<>();
        long before = NativeMetrics.recordsIn();
        HARNESS.forEachEngine(
                tEnv -> {
                    tEnv.executeSql(ddl);
                    results.add(ParityHarness.run(tEnv, sql).rows);
                });
        assertTrue(NativeMetrics.recordsIn() > before, "the native operator processed no records");
        List<Row> stock = results.get(0);
        List<Row> nat = results.get(1);
        assertEquals(30000, stock.size());
        assertEquals(stock.size(), nat.size());
        for (int i = 0; i < stock.size(); i++) {
            assertEquals(stock.get(i), nat.get(i), "row differs for: " + sql);
        }
    }
}
