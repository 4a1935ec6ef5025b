package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Parity of the pattern-matching functions (LIKE, SIMILAR TO, REGEXP, REGEXP_EXTRACT,
 * REGEXP_REPLACE, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR) on stock Flink and natively, fallback
 * forbidden, as projections (one query per group) and as filters. The input is a table of edge-case
 * strings of its own ({@code rx}: line terminators, supplementary code points, URLs as in Nexmark
 * q21) besides {@link TestData}'s {@code t}.
 */
class RegexFunctionParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    private static final ParityHarness HARNESS = new ParityHarness();

    private static final DataType RX_TYPE =
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.INT().notNull()),
                    DataTypes.FIELD("s", DataTypes.STRING()),
                    DataTypes.FIELD("n", DataTypes.INT()));

    private static final String[] STRINGS = {
        null,
        "",
        "a",
        "abc",
        "aBc",
        "ABCdef",
        "hello world",
        "foo123bar45",
        "  padded  ",
        "a.b*c",
        "x\ny",
        "line\n",
        "line\r\n",
        "end\r",
        "a\u0085",
        "a\u2028",
        "tab\tsep",
        "héllo wörld",
        "你好世界",
        "\uD83C\uDF89x",
        "a\uD83D\uDE00b\uD83D\uDE00",
        "\uD83D\uDE00",
        "aaa",
        "abab",
        "a_b%c",
        "A1b2C3",
        "mississippi",
        "back\\slash",
        "quote'd",
        "k\u212Aelvin",
        "\u017F",
        "http://www.nexmark.com/qmx/ezt/item.htm?query=1&channel_id=1234",
        "https://www.nexmark.com/bid?channel_id=&x=1",
        "channel_id=7",
        "x=1&channel_id=98&y",
        "Apache Flink",
        "a!_c",
        "100%",
        "[brackets]",
        "ab\r\nab",
        "foo\n\nbar",
        // U+E000..U+FFFF, where UTF-16 and UTF-8 byte order part from supplementary characters
        "\uFF21",
        "\uE000x",
        "\uD7FFz",
        "\uFFFD",
        "\uD83D\uDE00\uFF21",
    };

    static List<Row> rxRows() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < STRINGS.length; i++) {
            rows.add(Row.of(i, STRINGS[i], i % 5 - 1));
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> rxTypeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(RX_TYPE);
    }

    static final String[] LIKE = {
        // LikeCallGen's byte-wise paths: equals, startsWith, endsWith, contains, chain checker
        "s LIKE 'abc'",
        "s LIKE ''",
        "s LIKE 'a%'",
        "s LIKE '%c'",
        "s LIKE '%b%'",
        "s LIKE '%'",
        "s LIKE '%%'",
        "s LIKE 'a%c'",
        "s LIKE '%b%c'",
        "s LIKE 'h%o%d'",
        "s LIKE '%l%o%'",
        "s LIKE 'a%%'",
        "s LIKE '%%c'",
        "s LIKE 'hé%'",
        "s LIKE '%世界'",
        "s LIKE '%\uD83D\uDE00%'",
        "s LIKE '%\\%'",
        "s LIKE 'back\\%'",
        "s LIKE '%(%'",
        "s LIKE '%$%'",
        "s LIKE '%[%]%'",
        "s LIKE '%''%'",
        "s NOT LIKE 'a%'",
        "s NOT LIKE '%b%'",
        // the java.util.regex path ('_'): one code point, not a line terminator
        "s LIKE '_'",
        "s LIKE '__'",
        "s LIKE 'a_c'",
        "s LIKE '%_'",
        "s LIKE '_%'",
        "s LIKE 'line_'",
        "s LIKE 'line__'",
        "s LIKE '_nd_'",
        "s LIKE 'a_'",
        "s LIKE '%.%'",
        "s LIKE '%*%'",
        "s LIKE '[%'",
        "s LIKE '_\uD83D\uDE00'",
        "s LIKE 'x_y'",
        "s LIKE '%\\_%'",
        "s NOT LIKE 'a_c'",
        // ESCAPE: resolved at planning time, quick paths or the regex path
        "s LIKE 'a!_c' ESCAPE '!'",
        "s LIKE '100!%' ESCAPE '!'",
        "s LIKE '%!%' ESCAPE '!'",
        "s LIKE 'a!_%' ESCAPE '!'",
        "s LIKE '!_%' ESCAPE '!'",
        "s LIKE 'a$_c' ESCAPE '$'",
        "s LIKE 'a^_c' ESCAPE '^'",
        "s LIKE 'back\\\\%' ESCAPE '\\'",
        "s LIKE '%!!%' ESCAPE '!'",
        "s LIKE 'a%' ESCAPE '!'",
        "s NOT LIKE 'a!_c' ESCAPE '!'",
    };

    static final String[] SIMILAR = {
        "s SIMILAR TO 'abc'",
        "s SIMILAR TO 'a%'",
        "s SIMILAR TO '%b%'",
        "s SIMILAR TO 'a_c'",
        "s SIMILAR TO '[a-c]+'",
        "s SIMILAR TO '[^a]%'",
        "s SIMILAR TO '%[0-9]+%'",
        "s SIMILAR TO 'h(e|a)llo%'",
        "s SIMILAR TO '%[[:digit:]]%'",
        "s SIMILAR TO '[[:space:]]%'",
        "s SIMILAR TO 'a.c'",
        "s SIMILAR TO 'line%'",
        "s NOT SIMILAR TO '%b%'",
        "s SIMILAR TO 'a!%' ESCAPE '!'",
        "s SIMILAR TO '%[[:alpha:]]%'",
        "s SIMILAR TO '[[:upper:]][[:alnum:]]+'",
    };

    static final String[] REGEXP = {
        "REGEXP(s, 'a')",
        "REGEXP(s, '^a')",
        "REGEXP(s, 'c$')",
        "REGEXP(s, '^$')",
        "REGEXP(s, '')",
        "REGEXP(s, 'line$')",
        "REGEXP(s, 'end$')",
        "REGEXP(s, 'a$')",
        "REGEXP(s, '\\d+')",
        "REGEXP(s, '^\\w+$')",
        "REGEXP(s, '\\s')",
        "REGEXP(s, '(?i)abc')",
        "REGEXP(s, '(?i)k')",
        "REGEXP(s, '^.$')",
        "REGEXP(s, '^..$')",
        "REGEXP(s, '(?s)^.+$')",
        "REGEXP(s, '[^a-z]')",
        "REGEXP(s, 'é|你')",
        "REGEXP(s, '(a)\\1')",
        "REGEXP(s, 'a(?=b)')",
        "REGEXP(s, 'a(?!b)')",
        "REGEXP(s, '(?>a+)b')",
        "REGEXP(s, '[\\]]')",
        "REGEXP(s, '\\x41')",
        "REGEXP(s, '\\u00e9')",
        "REGEXP(s, 'i(ss)+')",
        "REGEXP(s, '^\\s+')",
        "REGEXP(s, '\\Z')",
        "REGEXP(s, 'a\\z')",
        "REGEXP(s, CAST(NULL AS STRING))",
        "REGEXP(s, '^\\p{Alpha}+$')",
        "REGEXP(s, '\\p{Punct}')",
        "REGEXP(s, '(?i)É|K')",
        "REGEXP(s, '[\\s\\S]{12}')",
    };

    static final String[] EXTRACT = {
        "REGEXP_EXTRACT(s, '(&|^)channel_id=([^&]*)', 2)",
        "REGEXP_EXTRACT(s, 'channel_id=(\\d+)', 1)",
        "REGEXP_EXTRACT(s, '[a-z]+')",
        "REGEXP_EXTRACT(s, '(a)(b)?', 2)",
        "REGEXP_EXTRACT(s, '(a)(b)?', 3)",
        "REGEXP_EXTRACT(s, '(a)', -1)",
        "REGEXP_EXTRACT(s, '(\\d)(\\d)?', n)",
        "REGEXP_EXTRACT(s, '.', 0)",
        "REGEXP_EXTRACT(s, '.$')",
        "REGEXP_EXTRACT(s, '(.)(.)', 2)",
        "REGEXP_EXTRACT(s, '\\W+')",
        "REGEXP_EXTRACT(s, '(a|ab)(c|bcd)(d*)', 3)",
        "REGEXP_EXTRACT(s, 'a*?b')",
        "REGEXP_EXTRACT(s, 'a++b')",
        "REGEXP_EXTRACT(s, '(?i)(B)C', 1)",
        "REGEXP_EXTRACT(s, '[^\\s]+$')",
        "REGEXP_EXTRACT(s, '(\\w+) (\\w+)', 2)",
        "REGEXP_EXTRACT(s, 'x')",
        "REGEXP_EXTRACT(s, '(x)?y', 1)",
        "REGEXP_EXTRACT(s, '(?<=channel_id=)\\d+')",
        "REGEXP_EXTRACT(s, '(?<![a-z])[a-z]{2}', 0)",
        "REGEXP_EXTRACT(s, 'ss(i)', CAST(NULL AS INT))",
    };

    static final String[] REPLACE = {
        "REGEXP_REPLACE(s, 'a', 'X')",
        "REGEXP_REPLACE(s, '[aeiou]', '')",
        "REGEXP_REPLACE(s, '\\d+', '#')",
        "REGEXP_REPLACE(s, 'ss', '$1\\\\')",
        "REGEXP_REPLACE(s, '.', '.')",
        "REGEXP_REPLACE(s, '(?s).', '-')",
        "REGEXP_REPLACE(s, '\\s+', ' ')",
        "REGEXP_REPLACE(s, 'l+', s)",
        "REGEXP_REPLACE(s, '$x', 'y')",
        "REGEXP_REPLACE(s, '[\\r\\n]', '|')",
        "REGEXP_REPLACE(s, 'é', 'e')",
        "REGEXP_REPLACE(s, 'a', CAST(NULL AS STRING))",
        "REGEXP_REPLACE(s, '(.)\\1', '<$0>')",
    };

    static final String[] MATCHERS = {
        "REGEXP_COUNT(s, 'a')", "REGEXP_COUNT(s, 's+')", "REGEXP_COUNT(s, '.')",
                "REGEXP_COUNT(s, '\\W')",
        "REGEXP_INSTR(s, 'b')", "REGEXP_INSTR(s, 'x')", "REGEXP_INSTR(s, '.$')",
                "REGEXP_INSTR(s, '[^a-z]')",
        "REGEXP_INSTR(s, 'o')", "REGEXP_SUBSTR(s, '[a-z]+')", "REGEXP_SUBSTR(s, '\\d+')",
                "REGEXP_SUBSTR(s, '(?i)b.')",
    };

    static Stream<Arguments> projectionGroups() {
        List<Arguments> groups = new ArrayList<>();
        for (String[] group : new String[][] {LIKE, SIMILAR, REGEXP, EXTRACT, REPLACE, MATCHERS}) {
            for (int i = 0; i < group.length; i += 16) {
                String[] chunk = new String[Math.min(16, group.length - i)];
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
        assertParity(sql.append("\nFROM rx").toString());
    }

    static Stream<String> filters() {
        return Stream.of(
                "s LIKE 'a%'",
                "s LIKE '%o%'",
                "s LIKE 'a_c'",
                "s NOT LIKE '%b%'",
                "s SIMILAR TO '[a-c]+'",
                "REGEXP(s, '^\\w+$')",
                "REGEXP_EXTRACT(s, '(&|^)channel_id=([^&]*)', 2) <> ''",
                "REGEXP_EXTRACT(s, '(\\d)(\\d)?', n) IS NOT NULL",
                "REGEXP_COUNT(s, 'a') > 1",
                "REGEXP_INSTR(s, 'b') = 2",
                "REGEXP_REPLACE(s, 'l', '') = 'heo word'",
                "REGEXP(s, 'l') AND id > 3 OR s LIKE '%\uD83D\uDE00'");
    }

    @ParameterizedTest
    @MethodSource("filters")
    void filters(String condition) {
        assertParity("SELECT id, s FROM rx WHERE " + condition);
    }

    /** The functions on TestData's table, next to the other kinds of columns. */
    @Test
    void onTestData() {
        HARNESS.assertParity(
                "SELECT id, s LIKE 'h%', s LIKE '%ll_', r.y LIKE '%e%', REGEXP(s, 'l+'),"
                        + " REGEXP_EXTRACT(s, '(\\w)(\\w)', 2), REGEXP_REPLACE(r.y, 'e', 'E'),"
                        + " REGEXP_INSTR(s, '[^ -~]'), REGEXP_SUBSTR(CAST(i32 AS STRING), '\\d{2}')"
                        + " FROM t WHERE s SIMILAR TO '%l%' OR s IS NULL OR REGEXP(s, 'α')");
    }

    /** Nexmark q21's extraction of the channel id runs natively. */
    @Test
    void nexmarkQ21ChannelId() {
        assertParity(
                "SELECT id, s, CASE WHEN s = 'channel_id=7' THEN '0' ELSE REGEXP_EXTRACT(s,"
                    + " '(&|^)channel_id=([^&]*)', 2) END AS channel_id FROM rx WHERE"
                    + " REGEXP_EXTRACT(s, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL OR s IN ('abc',"
                    + " 'aaa')");
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("REGEXP(s, '\\bhello')", "the escape \\b"),
                Arguments.of("REGEXP(s, '(?<=a.)b')", "inside a lookbehind"),
                Arguments.of("REGEXP_EXTRACT(s, s)", "the pattern is not a literal"),
                Arguments.of("s LIKE s", "the pattern is not a literal"),
                Arguments.of("REGEXP_REPLACE(s, 'x*', '-')", "can match the empty string"),
                Arguments.of("REGEXP(s, '\uD83D\uDE00')", "beyond U+FFFF"),
                // java.util.regex recurses once per repetition of such a group (a stack
                // overflow on long values) and remembers failed positions (no exponential
                // backtracking), which PCRE2 reproduces neither way.
                Arguments.of("s SIMILAR TO '(a|b)+'", "a group containing '|' or a quantifier"),
                Arguments.of("REGEXP(s, '(a|aa)*b')", "repeated without bound"),
                Arguments.of("REGEXP(s, '(a+)+b')", "repeated without bound"));
    }

    /**
     * The translator's recursion is bounded: patterns nested deeper than 100 groups are refused
     * with the reason (they crashed the JVM). Only the plan is checked: whether Flink's own pattern
     * compilation overflows its stack on them depends on the thread.
     */
    @ParameterizedTest
    @ValueSource(strings = {"REGEXP(s, '(|2000')", "REGEXP_EXTRACT(s, '(?:|1200', 0)"})
    void deeplyNestedPatternsAreRefusedWithTheirReason(String spec) {
        String open = spec.substring(spec.indexOf('\'') + 1, spec.indexOf('|'));
        int depth = Integer.parseInt(spec.replaceAll("^.*\\|(\\d+).*$", "$1"));
        String expression =
                spec.substring(0, spec.indexOf('\'') + 1)
                        + nested(open, depth)
                        + spec.substring(spec.indexOf('\'', spec.indexOf('|')));
        String explain =
                environment(true, "allow").explainSql("SELECT id, " + expression + " FROM rx");
        assertTrue(explain.contains("nested deeper than 100 groups"), explain);
    }

    /** {@code depth} groups opened with {@code open} around an "a". */
    private static String nested(String open, int depth) {
        return open.repeat(depth) + "a" + ")".repeat(depth);
    }

    /** Moderately nested groups stay native (strict), with Java's captures. */
    @Test
    void nestedGroupsWithinTheBoundMatch() {
        assertParity(
                "SELECT id, REGEXP_EXTRACT(s, '"
                        + nested("(", 50)
                        + "', 50), REGEXP(s, '"
                        + nested("(?:", 99)
                        + "') FROM rx");
    }

    /**
     * SIMILAR TO a pattern nested 10,000 deep. The native engine refuses it, with the depth as the
     * reason (such patterns crashed the JVM once). What Flink does with it is not the code's alone:
     * {@code java.util.regex} compiles the pattern recursively, and whether that overflows (Flink
     * then fails with a PatternSyntaxException) depends on the thread's stack size and on what the
     * JIT has compiled; at 2,000 levels a warm JVM compiled it in one fresh-clone run. At 10,000
     * levels a thread of the default 1 MiB stack overflows warm or cold, and the test does not rely
     * even on that: it asserts the refusal, and that the fallback does what stock Flink does in the
     * same run (the same failure, or the same rows).
     */
    @Test
    void deeplyNestedSimilarToIsRefusedAndFallsBackAsFlinkDoes() {
        String sql = "SELECT id, s SIMILAR TO '" + nested("(", 10_000) + "' FROM rx";
        StreamTableEnvironment nativeEnv = environment(true, "allow");
        String explain = nativeEnv.explainSql(sql);
        assertTrue(explain.contains("nested deeper than 100 groups"), explain);

        Outcome stock = outcome(environment(false, "allow"), sql);
        Outcome fallback = outcome(nativeEnv, sql);
        assertEquals(0, StreamFusion.planner(nativeEnv).lastReport().nativeCount());
        assertEquals(stock.failure, fallback.failure, "stock and fallback fail alike");
        assertEquals(stock.rows, fallback.rows);
    }

    /** Rows of a run, or the deepest cause's class when it failed. */
    private static final class Outcome {
        final String failure;
        final List<Row> rows;

        Outcome(String failure, List<Row> rows) {
            this.failure = failure;
            this.rows = rows;
        }
    }

    private static Outcome outcome(StreamTableEnvironment tEnv, String sql) {
        try {
            return new Outcome(null, ParityHarness.run(tEnv, sql).rows);
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            // The class only: where the compilation overflowed ("near index n") depends on the
            // stack already in use, which differs between the two jobs.
            return new Outcome(cause.getClass().getName(), null);
        }
    }

    /** What cannot be matched exactly falls back to Flink, with stock results and a reason. */
    @ParameterizedTest
    @MethodSource("refusals")
    void refusedCallsFallBackWithTheirReason(String expression, String reason) {
        String sql = "SELECT id, " + expression + " FROM rx";
        ParityHarness.Result stock = run(false, sql);
        StreamTableEnvironment tEnv = environment(true, "allow");
        ParityHarness.Result fallback = ParityHarness.run(tEnv, sql);
        assertEquals(stock.rows, fallback.rows);
        SupportReport report = StreamFusion.planner(tEnv).lastReport();
        assertEquals(0, report.nativeCount());
        assertTrue(
                report.fallbackReasons().get(0).contains(reason),
                "reason " + report.fallbackReasons() + " lacks: " + reason);
    }

    // ---- the harness, on the rx table ----

    static StreamTableEnvironment environment(boolean nativeEngine, String fallback) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = ParityHarness.tableEnvironment(env, nativeEngine, fallback);
        tEnv.createTemporaryView("rx", tEnv.fromDataStream(env.fromData(rxRows(), rxTypeInfo())));
        return tEnv;
    }

    private static ParityHarness.Result run(boolean nativeEngine, String sql) {
        return ParityHarness.run(environment(nativeEngine, "forbid"), sql);
    }

    static void assertParity(String sql) {
        ParityHarness.Result stock = run(false, sql);
        long before = NativeMetrics.recordsIn();
        ParityHarness.Result nat = run(true, sql);
        assertTrue(
                NativeMetrics.recordsIn() > before,
                "the native operator processed no records for: " + sql);
        assertEquals(stock.schema, nat.schema, "schema differs for: " + sql);
        assertEquals(stock.rows.size(), nat.rows.size(), "row count differs for: " + sql);
        for (int i = 0; i < stock.rows.size(); i++) {
            Row s = stock.rows.get(i);
            Row n = nat.rows.get(i);
            assertEquals(s.getKind(), n.getKind(), "RowKind differs for: " + sql);
            assertTrue(
                    s.equals(n), "row differs for: " + sql + "\n stock:  " + s + "\n native: " + n);
        }
    }
}
