package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamfusion.planner.StreamFusion;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Parity of the native string functions
 * (native/src/streamfusion/expression/builtins/string_functions.cc) with Flink 2.2.1 over {@link
 * TestData}: NULLs, '', spaces, multi-byte text with a surrogate pair ('héllo wörld 你好 🎉'), Greek.
 * Invalid UTF-8 comes from {@link #RAW} (the bytes of {@code bin} as a string: 0xff 0x00 0x80 ...)
 * and {@link #CUT} ('A' and a lone lead byte 0xc3); results holding raw bytes are compared through
 * TO_BASE64. Each case runs as a projection, one query per group; the FILTERS run as WHERE
 * conditions.
 */
class StringFunctionParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final ParityHarness HARNESS = new ParityHarness();

    /** The bytes of {@code bin} as a STRING (may be invalid UTF-8). */
    static final String RAW = "FROM_BASE64(TO_BASE64(bin))";

    /** 'A' followed by a lone 0xc3 (a cut-short character) where s is not NULL. */
    static final String CUT = "FROM_BASE64(CONCAT('QcM=', SUBSTRING(s, 1, 0)))";

    static final String[] LENGTH_AND_CASE = {
        "CHAR_LENGTH(s)",
        "CHARACTER_LENGTH(s)",
        "CHAR_LENGTH(" + RAW + ")",
        "CHAR_LENGTH(" + CUT + ")",
        "UPPER(s)",
        "LOWER(s)",
        "UPPER(r.y)",
        "TO_BASE64(UPPER(" + RAW + "))",
        "TO_BASE64(LOWER(" + CUT + "))",
        "LOWER(CONCAT('ΟΔΟΣ ', s))",
        "UPPER(CONCAT(s, 'ß ﬃ'))",
        "LOWER(CONCAT(s, 'İ'))",
        "UPPER(CONCAT('ΐ', s))",
        "LOWER(CONCAT(s, 'ΑΣ'))",
    };

    static final String[] TRIMS = {
        "TRIM(s)",
        "TRIM(LEADING FROM s)",
        "TRIM(TRAILING FROM s)",
        "TRIM(BOTH 'h' FROM s)",
        "TRIM(LEADING 'hel' FROM s)",
        "TRIM(TRAILING 'lo' FROM s)",
        "TRIM(BOTH ' d' FROM s)",
        "TRIM(BOTH '' FROM s)",
        "TRIM(BOTH 'hé🎉 ' FROM s)",
        "LTRIM(s)",
        "RTRIM(s)",
        "LTRIM(s, 'ah')",
        "RTRIM(s, 'od ')",
        "TRIM(BOTH 'x' FROM r.y)",
    };

    static final String[] SUBSTRINGS = {
        "SUBSTRING(s, 2)",
        "SUBSTRING(s, 2, 3)",
        "SUBSTRING(s, -3)",
        "SUBSTRING(s, -3, 2)",
        "SUBSTRING(s, 0, 2)",
        "SUBSTRING(s, i32)",
        "SUBSTRING(s, 1, i32)",
        "SUBSTR(s, 3)",
        "SUBSTR(s, 2, 2)",
        "SUBSTRING(s FROM 2 FOR 3)",
        "SUBSTRING(s, 14, 3)",
        "SUBSTRING(s, -100, 3)",
        "TO_BASE64(SUBSTRING(" + RAW + ", 2))",
        "SUBSTRING(s, 16)",
    };

    static final String[] CONCATS = {
        "CONCAT(s, 'x')",
        "CONCAT(s, s, s)",
        "CONCAT(s, r.y)",
        "CONCAT_WS('-', s, r.y)",
        "CONCAT_WS('-', s, CAST(NULL AS STRING), 'z')",
        "CONCAT_WS(s, 'a', 'b')",
        "CONCAT_WS('', s)",
        "s || 'x'",
        "s || r.y",
        "'<' || s || '>'",
        "TO_BASE64(" + RAW + " || 'x')",
        "TO_BASE64(CONCAT(" + RAW + ", 'x'))",
        "TO_BASE64(CONCAT_WS(',', " + RAW + ", s))",
    };

    static final String[] SEARCH_AND_REPLACE = {
        "REPLACE(s, 'l', 'L')",
        "REPLACE(s, '', '-')",
        "REPLACE(s, 'o', '')",
        "REPLACE(s, s, 'x')",
        "REPLACE(s, '🎉', '!')",
        "REPLACE(s, 'll', 'l')",
        "POSITION('l' IN s)",
        "POSITION('' IN s)",
        "LOCATE('l', s)",
        "LOCATE('l', s, 4)",
        "LOCATE('o', s, i32)",
        "POSITION('ö' IN s)",
        "LOCATE(s, 'hello hello')",
        "POSITION('🎉' IN s)",
    };

    static final String[] PADS_AND_WORDS = {
        "INITCAP(s)",
        "INITCAP(CONCAT(s, ' fOO-bar 9lives'))",
        "LPAD(s, 8, '*')",
        "RPAD(s, 8, 'ab')",
        "LPAD(s, 2, 'x')",
        "LPAD(s, i8, 'x')",
        "RPAD(s, i8, 'yz')",
        "LPAD(s, 5, '')",
        "LPAD(s, 20, '🎉')",
        "RPAD(s, 16, 'x')",
        "LPAD(s, 16, 'x')",
        "RPAD(s, 0, 'x')",
        "REPEAT(s, 3)",
        "REPEAT(s, i8)",
        "REPEAT(s, 0)",
    };

    static final String[] SPLITS_AND_CODES = {
        "REVERSE(s)",
        "TO_BASE64(REVERSE(" + RAW + "))",
        "SPLIT_INDEX(s, 'l', 1)",
        "SPLIT_INDEX(s, ' ', 2)",
        "SPLIT_INDEX(s, '', 0)",
        "SPLIT_INDEX(s, 'll', 0)",
        "SPLIT_INDEX(s, 'l', i8)",
        "SPLIT_INDEX(s, 108, 0)",
        "SPLIT_INDEX(s, 246, 1)",
        "ELT(2, s, r.y)",
        "ELT(i32, s, r.y, 'c')",
        "ASCII(s)",
        "ASCII(" + RAW + ")",
        "CHR(i32)",
        "CHR(i8)",
        "CHR(i64)",
    };

    static final String[] HASHES = {
        "MD5(s)",
        "SHA1(s)",
        "SHA224(s)",
        "SHA256(s)",
        "SHA384(s)",
        "SHA512(s)",
        "SHA2(s, 256)",
        "SHA2(s, 224)",
        "SHA2(s, 512)",
        "MD5(bin)",
        "SHA256(" + RAW + ")",
        "TO_BASE64(s)",
        "TO_BASE64(bin)",
        "FROM_BASE64(TO_BASE64(s))",
    };

    /** Functions over each other's results, CHAR values, and halves of surrogate pairs. */
    static final String[] NESTED = {
        "UPPER(CAST(s AS CHAR(8)))",
        "CHAR_LENGTH(CAST(s AS CHAR(8)))",
        "CONCAT(CAST(s AS CHAR(3)), '|')",
        "TRIM(CAST(s AS CHAR(12)))",
        "LOWER(LPAD(s, 16, 'X'))",
        "CHAR_LENGTH(RPAD(s, 16, 'x'))",
        "REVERSE(RPAD(s, 16, 'x'))",
        "UPPER(REPLACE(s, '', '.'))",
        "INITCAP(LOWER(s))",
        "SPLIT_INDEX(UPPER(s), 'L', 0)",
        "MD5(LPAD(s, 16, 'x'))",
        "POSITION('?' IN RPAD(s, 16, 'x'))",
        "RPAD(s, 16, 'x') || '!'",
        "ELT(2, UPPER(s), LOWER(s))",
        "SUBSTRING(REPEAT(s, 2), 5, 10)",
        "TO_BASE64(LPAD(s, 20, '🎉'))",
    };

    static final String[] FILTERS = {
        "CHAR_LENGTH(s) > 3",
        "UPPER(s) = 'HELLO'",
        "POSITION('l' IN s) > 0",
        "TRIM(s) = 'padded'",
        "SUBSTRING(s, 1, 1) = 'h'",
        "CONCAT(s, 'x') <> 'ax'",
        "MD5(s) IS NOT NULL",
        "REVERSE(s) = 'olleh'",
        "LPAD(s, 3, '0') = 'hel'",
        "SPLIT_INDEX(s, 'l', 0) = 'he'",
        "s || '!' = 'a!'",
        "LOWER(s) = 'abcdef'",
        "INITCAP(s) = 'Hello'",
    };

    static Stream<Arguments> projectionGroups() {
        List<Arguments> groups = new ArrayList<>();
        for (String[] group :
                new String[][] {
                    LENGTH_AND_CASE,
                    TRIMS,
                    SUBSTRINGS,
                    CONCATS,
                    SEARCH_AND_REPLACE,
                    PADS_AND_WORDS,
                    SPLITS_AND_CODES,
                    HASHES,
                    NESTED
                }) {
            groups.add(Arguments.of((Object) group));
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

    static Stream<String> filters() {
        return Stream.of(FILTERS);
    }

    @ParameterizedTest
    @MethodSource("filters")
    void filters(String condition) {
        HARNESS.assertParity("SELECT id, s, UPPER(s) FROM t WHERE " + condition);
    }

    /**
     * Operand kinds the native functions refuse: the Calc falls back to Flink with the reason in
     * EXPLAIN, and the results are stock.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "TRIM(BOTH r.y FROM s)|the trim characters must be a literal",
                "LTRIM(s, r.y)|the trim characters must be a literal",
                "ELT(i64, s, r.y)|the index must be INT",
                "SHA2(s, CHAR_LENGTH(s) * 0 + 256)|the bit length must be a literal",
                "REPLACE(LPAD(s, 16, 'x'), '?', '!')|half a surrogate pair",
                "SPLIT_INDEX(s, RPAD(r.y, 1, 'x'), 0)|half a surrogate pair",
            })
    void refusals(String expression, String reason) {
        String sql = "SELECT id, " + expression + " FROM t";
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv =
                StreamFusion.create(env, EnvironmentSettings.inStreamingMode());
        ParityHarness.registerTestTable(env, tEnv);
        String explain = tEnv.explainSql(sql);
        assertThat(explain).contains("fallback  Calc(");
        assertThat(explain).contains(reason);
        ParityHarness.Result stock = ParityHarness.run(HARNESS.stock(), sql);
        assertEquals(stock.rows, ParityHarness.run(tEnv, sql).rows);
    }
}
