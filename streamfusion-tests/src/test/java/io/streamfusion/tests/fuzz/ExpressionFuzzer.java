package io.streamfusion.tests.fuzz;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.config.StreamFusionOptions;
import io.streamfusion.runtime.metrics.NativeMetrics;
import io.streamfusion.tests.ParityCluster;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Differential expression fuzzer: random expressions over random edge-case rows, run through stock
 * Flink and natively on the same MiniCluster, compared value by value (bit-exact for floating
 * point, scale-exact for DECIMAL) and error for error. Expressions the native planner refuses are
 * counted by reason and not compared. A difference is shrunk to a minimal expression on the one row
 * that shows it.
 *
 * <p>Expressions are run in batches: one query projects many of them, so one job checks many. A
 * failing batch is split until the failing expressions stand alone.
 */
final class ExpressionFuzzer {

    static final String[] ZONES = {
        "UTC", "America/New_York", "Asia/Kolkata", "Europe/Berlin", "GMT+05:30"
    };

    private final long seed;
    private final int batchSize;
    private final int rowCount;
    private final PrintStream log;

    // Outcome.
    int expressions;
    int invalid;
    int compared;
    int refused;
    int bothFailed;
    int unplannable;
    static final String PLANNING_FAILED = "planning failed: ";
    // Where the time goes (nanoseconds): validating, planning natively, running jobs.
    static long validateNanos;
    static long planNanos;
    static long runNanos;
    static int jobs;
    final Map<String, Integer> refusals = new TreeMap<>();
    final List<String> mismatches = new ArrayList<>();

    ExpressionFuzzer(long seed, int batchSize, int rowCount, PrintStream log) {
        this.seed = seed;
        this.batchSize = batchSize;
        this.rowCount = rowCount;
        this.log = log;
    }

    /** Runs {@code count} valid expressions. */
    void run(int count) {
        Random random = new Random(seed);
        ExprGen gen = new ExprGen(random);
        List<Row> rows = FuzzData.rows(seed, rowCount);
        long start = System.nanoTime();
        int batch = 0;
        while (expressions < count) {
            String zone = ZONES[random.nextInt(ZONES.length)];
            Engines engines = new Engines(rows, zone);
            List<ExprGen.Node> exprs = new ArrayList<>();
            while (exprs.size() < batchSize && expressions + exprs.size() < count) {
                ExprGen.Node node = gen.any(1 + random.nextInt(4));
                if (engines.valid(node.sql())) {
                    exprs.add(node);
                } else {
                    invalid++;
                }
            }
            expressions += exprs.size();
            List<ExprGen.Node> supported = engines.nativeSubset(exprs, this);
            refused += exprs.size() - supported.size();
            compare(engines, supported, gen);
            batch++;
            if (log != null) {
                log.printf(
                        "fuzz: batch %d (%s): %d expressions so far, %d compared, %d refused, %d"
                                + " mismatches, %.0f s (validate %.1f s, plan %.1f s, %d jobs %.1f"
                                + " s)%n",
                        batch,
                        zone,
                        expressions,
                        compared,
                        refused,
                        mismatches.size(),
                        (System.nanoTime() - start) / 1e9,
                        validateNanos / 1e9,
                        planNanos / 1e9,
                        jobs,
                        runNanos / 1e9);
            }
        }
    }

    String summary() {
        StringBuilder s = new StringBuilder();
        s.append(
                String.format(
                        "fuzz: seed %d, %d rows: %d expressions (%d invalid ones regenerated): %d"
                                + " compared natively, %d refused, %d that Flink cannot plan, %d"
                                + " failing on both engines%n",
                        seed,
                        rowCount,
                        expressions,
                        invalid,
                        compared,
                        refused - unplannable,
                        unplannable,
                        bothFailed));
        refusals.entrySet().stream()
                .sorted((a, b) -> b.getValue() - a.getValue())
                .limit(25)
                .forEach(
                        e ->
                                s.append(
                                        String.format(
                                                "  refused %5d x %s%n", e.getValue(), e.getKey())));
        for (String m : mismatches) {
            s.append(m).append('\n');
        }
        s.append(
                String.format(
                        "fuzz: %d expressions, %d mismatches", expressions, mismatches.size()));
        return s.toString();
    }

    private void compare(Engines engines, List<ExprGen.Node> exprs, ExprGen gen) {
        if (exprs.isEmpty()) return;
        Outcome stock = engines.run(false, exprs, null);
        Outcome nat = engines.run(true, exprs, null);
        if (stock.error == null && nat.error == null) {
            compared += exprs.size();
            for (int c = 0; c < exprs.size(); c++) {
                for (Map.Entry<Integer, Row> e : stock.rows.entrySet()) {
                    Object s = e.getValue().getField(c + 1);
                    Row n = nat.rows.get(e.getKey());
                    Object v = n == null ? "<missing row>" : n.getField(c + 1);
                    if (!Objects.deepEquals(s, v)) {
                        reportMismatch(engines, gen, exprs.get(c), e.getKey());
                        break;
                    }
                }
            }
            if (nat.rows.size() != stock.rows.size()) {
                mismatches.add(
                        "row count differs: stock "
                                + stock.rows.size()
                                + ", native "
                                + nat.rows.size()
                                + " for "
                                + exprs);
            }
            return;
        }
        if (exprs.size() > 1) {
            int half = exprs.size() / 2;
            compare(engines, exprs.subList(0, half), gen);
            compare(engines, exprs.subList(half, exprs.size()), gen);
            return;
        }
        if (stock.error != null && nat.error != null) {
            bothFailed++;
            return;
        }
        reportMismatch(engines, gen, exprs.get(0), null);
    }

    /** Shrinks a difference to a small expression and one row, and records it. */
    private void reportMismatch(Engines engines, ExprGen gen, ExprGen.Node expr, Integer rowId) {
        Integer row = rowId != null ? rowId : engines.firstDifferingRow(expr);
        ExprGen.Node smallest = expr;
        int budget = mismatches.size() < 5 ? 30 : 0;
        boolean progress = true;
        while (progress && budget > 0) {
            progress = false;
            List<ExprGen.Node> candidates = gen.shrinkCandidates(smallest);
            candidates.sort((a, b) -> a.size() - b.size());
            for (ExprGen.Node candidate : candidates) {
                if (budget-- <= 0) break;
                if (candidate.size() >= smallest.size()) continue;
                if (engines.valid(candidate.sql()) && engines.differs(candidate, row)) {
                    smallest = candidate;
                    progress = true;
                    break;
                }
            }
        }
        String detail = engines.describe(smallest, row);
        mismatches.add(
                String.format(
                        "MISMATCH (zone %s)%n  expression: %s%n  minimal:    %s%n  row:       "
                                + " %s%n%s",
                        engines.zone,
                        expr.sql(),
                        smallest.sql(),
                        row == null ? "?" : engines.rowText(row),
                        detail));
        if (log != null) log.println(mismatches.get(mismatches.size() - 1));
    }

    /** The result of one query on one engine. */
    static final class Outcome {
        final Map<Integer, Row> rows;
        final Throwable error;

        Outcome(Map<Integer, Row> rows, Throwable error) {
            this.rows = rows;
            this.error = error;
        }
    }

    /** A stock and a native table environment over the same rows and session zone. */
    static final class Engines {
        final String zone;
        private final List<Row> rows;
        private final StreamTableEnvironment stock;
        private final StreamTableEnvironment nativeEnv;

        Engines(List<Row> rows, String zone) {
            this.rows = rows;
            this.zone = zone;
            this.stock = create(false);
            this.nativeEnv = create(true);
        }

        private StreamTableEnvironment create(boolean isNative) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            StreamTableEnvironment tEnv =
                    isNative
                            ? StreamFusion.create(env, EnvironmentSettings.inStreamingMode())
                            : StreamTableEnvironment.create(
                                    env, EnvironmentSettings.inStreamingMode());
            if (isNative) {
                tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "allow");
            }
            tEnv.getConfig().setLocalTimeZone(ZoneId.of(zone));
            tEnv.createTemporaryView(
                    "fuzz", tEnv.fromDataStream(env.fromData(rows, FuzzData.typeInfo())));
            return tEnv;
        }

        boolean valid(String expr) {
            long t0 = System.nanoTime();
            try {
                stock.sqlQuery("SELECT " + expr + " FROM fuzz");
                return true;
            } catch (Throwable e) {
                return false;
            } finally {
                validateNanos += System.nanoTime() - t0;
            }
        }

        private static String query(List<ExprGen.Node> exprs, Integer row) {
            StringBuilder sql = new StringBuilder("SELECT id");
            for (int i = 0; i < exprs.size(); i++) {
                sql.append(", ").append(exprs.get(i).sql()).append(" AS c").append(i);
            }
            // The filter keeps a Calc in the plan even for a projection of plain columns.
            sql.append(" FROM fuzz WHERE id ").append(row == null ? ">= 0" : "= " + row);
            return sql.toString();
        }

        /** The expressions of {@code exprs} whose query plans natively (split on refusal). */
        List<ExprGen.Node> nativeSubset(List<ExprGen.Node> exprs, ExpressionFuzzer fuzzer) {
            if (exprs.isEmpty()) return exprs;
            String refusal = refusal(exprs);
            if (refusal == null) return exprs;
            if (exprs.size() == 1) {
                if (refusal.startsWith(PLANNING_FAILED)) {
                    fuzzer.unplannable++; // Flink itself cannot plan it (e.g. a cast pair)
                } else {
                    fuzzer.refusals.merge(refusal, 1, Integer::sum);
                }
                return List.of();
            }
            int half = exprs.size() / 2;
            List<ExprGen.Node> out = new ArrayList<>(nativeSubset(exprs.subList(0, half), fuzzer));
            out.addAll(nativeSubset(exprs.subList(half, exprs.size()), fuzzer));
            return out;
        }

        /** Null when the query plans fully native, else the (normalised) fallback reason. */
        String refusal(List<ExprGen.Node> exprs) {
            long t0 = System.nanoTime();
            try {
                nativeEnv.explainSql(query(exprs, null));
            } catch (Throwable e) {
                return PLANNING_FAILED
                        + ExceptionUtils.stripException(e, RuntimeException.class).getMessage();
            } finally {
                planNanos += System.nanoTime() - t0;
            }
            SupportReport report = StreamFusion.planner(nativeEnv).lastReport();
            if (report.fallbackReasons().isEmpty() && report.nativeCount() > 0) return null;
            if (report.fallbackReasons().isEmpty()) return "no native operator";
            return groupingReason(report.fallbackReasons().get(0));
        }

        /** The reason without the operator text and operand types, so reasons group. */
        static String groupingReason(String reason) {
            int colon = reason.lastIndexOf("]): ");
            String r = colon >= 0 ? reason.substring(colon + 4) : reason;
            Matcher call =
                    Pattern.compile("^([A-Z_|]+)\\((.*?)\\) is not supported natively(.*)$")
                            .matcher(r);
            if (call.matches()) {
                return call.group(1)
                        + "("
                        + call.group(2).replaceAll("\\d+", "n")
                        + ") is not supported natively"
                        + call.group(3);
            }
            return r;
        }

        Outcome run(boolean isNative, List<ExprGen.Node> exprs, Integer row) {
            StreamTableEnvironment tEnv = isNative ? nativeEnv : stock;
            long before = NativeMetrics.recordsIn();
            long t0 = System.nanoTime();
            jobs++;
            Map<Integer, Row> out = new LinkedHashMap<>();
            try {
                Table table = tEnv.sqlQuery(query(exprs, row));
                try (CloseableIterator<Row> it = table.execute().collect()) {
                    while (it.hasNext()) {
                        Row r = it.next();
                        out.put((Integer) r.getField(0), r);
                    }
                }
            } catch (Throwable e) {
                ParityCluster.afterFailedJob(e);
                return new Outcome(out, e);
            } finally {
                runNanos += System.nanoTime() - t0;
            }
            if (isNative && NativeMetrics.recordsIn() == before && !out.isEmpty()) {
                return new Outcome(out, new AssertionError("the native Calc processed no records"));
            }
            return new Outcome(out, null);
        }

        Integer firstDifferingRow(ExprGen.Node expr) {
            for (Row r : rows) {
                Integer id = (Integer) r.getField(0);
                if (differs(expr, id)) return id;
            }
            return null;
        }

        boolean differs(ExprGen.Node expr, Integer row) {
            if (refusal(List.of(expr)) != null) return false;
            Outcome s = run(false, List.of(expr), row);
            Outcome n = run(true, List.of(expr), row);
            if (s.error != null || n.error != null) return (s.error == null) != (n.error == null);
            return !Objects.deepEquals(
                    s.rows.values().stream().map(r -> r.getField(1)).toArray(),
                    n.rows.values().stream().map(r -> r.getField(1)).toArray());
        }

        String describe(ExprGen.Node expr, Integer row) {
            Outcome s = run(false, List.of(expr), row);
            Outcome n = run(true, List.of(expr), row);
            return "  stock:      "
                    + show(s)
                    + "\n  native:     "
                    + show(n)
                    + "\n  reproduce:  SET 'table.local-time-zone' = '"
                    + zone
                    + "'; "
                    + query(List.of(expr), row);
        }

        private static String show(Outcome o) {
            if (o.error != null) {
                Throwable root =
                        ExceptionUtils.findThrowable(o.error, t -> t.getCause() == null)
                                .orElse(o.error);
                return "ERROR " + root;
            }
            List<String> values = new ArrayList<>();
            for (Row r : o.rows.values()) values.add(valueText(r.getField(1)));
            return values.toString();
        }

        String rowText(int id) {
            Row r = rows.get(id);
            Map<String, String> fields = new LinkedHashMap<>();
            for (int i = 0; i < FuzzData.COLUMNS.size(); i++) {
                fields.put(FuzzData.COLUMNS.get(i), valueText(r.getField(i)));
            }
            return fields.toString();
        }

        private static String valueText(Object v) {
            if (v instanceof byte[])
                return "X'" + org.apache.flink.util.StringUtils.byteToHexString((byte[]) v) + "'";
            if (v instanceof String) return "'" + ((String) v).replace("\n", "\\n") + "'";
            if (v instanceof Double)
                return v
                        + " (bits "
                        + Long.toHexString(Double.doubleToRawLongBits((Double) v))
                        + ")";
            if (v instanceof Float)
                return v
                        + " (bits "
                        + Integer.toHexString(Float.floatToRawIntBits((Float) v))
                        + ")";
            return String.valueOf(v);
        }
    }
}
