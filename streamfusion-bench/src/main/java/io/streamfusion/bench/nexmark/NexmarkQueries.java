package io.streamfusion.bench.nexmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nexmark query suite as shipped in {@code resources/nexmark/}: the reference SQL files
 * (attributed in each file), their {@code ${VAR}} placeholders, which queries the reference runner
 * skips and why, and the q13 side-input file.
 */
public final class NexmarkQueries {
    /** q0 .. q23 in order, including the skipped ones. */
    public static final List<String> ALL = queryNames();

    /**
     * StreamFusion's own queries over the Nexmark sources (not part of {@code all}), for shapes
     * Nexmark lacks: {@code x1} MIN/MAX over a retracting input (an aggregation's changelog),
     * {@code x2} DISTINCT aggregates in tumbling windows, {@code x3} in hopping windows, {@code x4}
     * FIRST_VALUE/LAST_VALUE over a retracting input, {@code x5} DISTINCT aggregates in cumulating
     * windows, {@code x6} in session windows, {@code x7} MIN/MAX over an updating input in tumbling
     * windows, {@code x8} in session windows.
     */
    public static final List<String> EXTRA =
            List.of("x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8");

    /**
     * Queries the reference runner does not run (its Benchmark.UNSUPPORTED_QUERIES), with the
     * reason it gives.
     */
    public static final Map<String, String> SKIPPED =
            Map.of(
                    "q6",
                    "this query is not supported yet in Flink SQL, because the OVER WINDOW operator"
                            + " doesn't support to consume retractions.");

    /**
     * Result columns the results check ignores, per query, because Flink picks their values among
     * tied rows by arrival order: q9's ROW_NUMBER orders bids by price and dateTime only, so of two
     * bids with equal price and time either bidder may win, on stock Flink too.
     */
    public static final Map<String, List<String>> TIE_BROKEN_COLUMNS =
            Map.of("q9", List.of("bidder", "bid_extra"));

    /**
     * The upsert key of the queries whose collected changelog is an upsert stream: Flink's Rank
     * emits +U without -U there (even to a sink that accepts -U), so the results check folds it by
     * key, the last row per key winning. Without the key such a changelog cannot be folded, and the
     * check says so instead of comparing.
     */
    public static final Map<String, List<String>> UPSERT_KEYS = Map.of("q9", List.of("id"));

    /** Lines i,i for i in [0, SIDE_INPUT_ROWS): the reference side input of q13. */
    public static final int SIDE_INPUT_ROWS = 10_000;

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z_]+)}");

    private NexmarkQueries() {}

    /** The reference runner's variables for a run of {@code events} events at rate {@code tps}. */
    public static Map<String, String> variables(
            long events, long tps, Path outputDir, Path sideInput) {
        Map<String, String> vars = new HashMap<>();
        vars.put("TPS", Long.toString(tps));
        vars.put("EVENTS_NUM", Long.toString(events));
        vars.put("PERSON_PROPORTION", "1");
        vars.put("AUCTION_PROPORTION", "3");
        vars.put("BID_PROPORTION", "46");
        vars.put("NEXMARK_TABLE", "datagen");
        vars.put("NEXMARK_OUTPUT_DIR", outputDir.toAbsolutePath().toString());
        vars.put("SIDE_INPUT_PATH", sideInput.toAbsolutePath().toString());
        return vars;
    }

    /** The text of resources/nexmark/{name}.sql with the placeholders substituted. */
    public static String sql(String name, Map<String, String> vars) {
        String path = "/nexmark/" + name + ".sql";
        try (InputStream in = NexmarkQueries.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("No nexmark SQL file " + path);
            }
            return substitute(new String(in.readAllBytes(), StandardCharsets.UTF_8), vars);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Source DDL, views, then the query's own statements, ready to execute one by one. */
    public static List<String> statements(String query, Map<String, String> vars) {
        List<String> out = new ArrayList<>(split(sql("ddl_gen", vars)));
        out.addAll(split(sql("ddl_views", vars)));
        out.addAll(split(sql(query, vars)));
        return out;
    }

    static String substitute(String text, Map<String, String> vars) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = vars.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("No value for ${" + m.group(1) + "}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    /** Splits at semicolons that end a line; drops chunks holding only comments. */
    static List<String> split(String script) {
        List<String> statements = new ArrayList<>();
        for (String chunk : script.split(";\\s*(\\n|$)")) {
            StringBuilder code = new StringBuilder();
            for (String line : chunk.split("\n")) {
                if (!line.trim().startsWith("--")) {
                    code.append(line).append('\n');
                }
            }
            if (!code.toString().isBlank()) {
                statements.add(code.toString().trim());
            }
        }
        return statements;
    }

    /** Writes the q13 side input: lines "i,i" for i in [0, 10,000). */
    public static void writeSideInput(Path file) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < SIDE_INPUT_ROWS; i++) {
            text.append(i).append(',').append(i).append('\n');
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> queryNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i <= 23; i++) {
            names.add("q" + i);
        }
        return List.copyOf(names);
    }
}
