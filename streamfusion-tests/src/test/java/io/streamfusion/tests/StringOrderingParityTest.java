package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * String ordering (<, <=, >, >=, BETWEEN, GREATEST, LEAST) over the rx strings, which include
 * supplementary characters and characters in U+E000..U+FFFF. Flink's BinaryStringData.compareTo
 * orders two Java-held strings in UTF-16 order and any other pair by UTF-8 bytes; against a literal
 * whose characters are all below U+D800 (literals are Java-held in Flink's generated code) both
 * orders agree, so those comparisons run natively; the rest stay on Flink.
 */
class StringOrderingParityTest {

    @RegisterExtension static final ParityCluster MINI_CLUSTER = ParityHarness.miniCluster();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "s < 'b', s >= '', s > 'hello', s <= 'héllo'",
                "s > 'ü', s < '한글', 'b' > s, 'zz' <= s",
                "s BETWEEN 'a' AND 'c', s NOT BETWEEN '' AND 'm'",
                "GREATEST(s, 'm'), LEAST('m', s, 'c'), GREATEST('a', 'b', s)",
                "CASE WHEN s > 'k' THEN 1 WHEN s > 'b' THEN 2 ELSE 3 END"
            })
    void comparisonsWithPlainLiteralsAreNative(String expressions) {
        RegexFunctionParityTest.assertParity("SELECT id, " + expressions + " FROM rx");
    }

    @ParameterizedTest
    @ValueSource(strings = {"s > 'hello' AND s < 'x'", "s >= 'a' OR s IS NULL"})
    void filtersWithPlainLiteralsAreNative(String condition) {
        RegexFunctionParityTest.assertParity("SELECT id, s FROM rx WHERE " + condition);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "s < '\uFF21'",
                "s >= '\uD83D\uDE00'",
                "s < s || 'x'",
                "GREATEST(s, UPPER(s))",
                "s BETWEEN 'a' AND '\uE000'"
            })
    void otherOrderingsFallBackWithTheirReason(String expression) {
        String sql = "SELECT id, " + expression + " FROM rx";
        ParityHarness.Result stock =
                ParityHarness.run(RegexFunctionParityTest.environment(false, "forbid"), sql);
        StreamTableEnvironment tEnv = RegexFunctionParityTest.environment(true, "allow");
        assertEquals(stock.rows, ParityHarness.run(tEnv, sql).rows);
        SupportReport report = StreamFusion.planner(tEnv).lastReport();
        assertEquals(0, report.nativeCount());
        String reason = report.fallbackReasons().get(0);
        assertTrue(
                reason.contains("Flink orders strings held as Java objects"),
                "reasons: " + report.fallbackReasons());
    }
}
