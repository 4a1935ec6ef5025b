package io.streamfusion.bench;

import io.streamfusion.bench.nexmark.CountChar;
import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.config.StreamFusionOptions;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one query on stock Flink and on StreamFusion with the same generated data, parallelism and
 * options: a results check on a small input first, then warmups and alternating timed trials (job
 * net runtime, which excludes MiniCluster start-up).
 */
final class SideBySide {

    /** A benchmark query: DDL of its source (with a row-count placeholder) and its SELECT. */
    static final class Query {
        final String name;
        final String sourceDdl; // contains {rows}
        final String select;

        Query(String name, String sourceDdl, String select) {
            this.name = name;
            this.sourceDdl = sourceDdl;
            this.select = select;
        }
    }

    static final class Outcome {
        final Query query;
        final List<Double> stockSeconds = new ArrayList<>();
        final List<Double> nativeSeconds = new ArrayList<>();
        boolean resultsMatch;
        String coverage = "";
        List<String> fallbackReasons = List.of();
        long rows;

        Outcome(Query query) {
            this.query = query;
        }

        String describe(List<Double> values) {
            return String.format(
                    "%.3fs [%.3f-%.3f] %.2fM rows/s",
                    Trials.median(values),
                    Collections.min(values),
                    Collections.max(values),
                    rows / Trials.median(values) / 1e6);
        }

        double speedup() {
            return Trials.median(stockSeconds) / Trials.median(nativeSeconds);
        }
    }

    private final int parallelism;
    private final Map<String, String> options;

    SideBySide(int parallelism, Map<String, String> options) {
        this.parallelism = parallelism;
        this.options = options;
    }

    Outcome run(Query query, long rows, long checkRows, int warmups, int trials) throws Exception {
        Outcome outcome = new Outcome(query);
        outcome.rows = rows;
        outcome.resultsMatch =
                collect(Engines.Engine.STOCK, query, checkRows)
                        .equals(collect(Engines.Engine.NATIVE, query, checkRows));
        for (int i = 0; i < warmups; i++) {
            time(Engines.Engine.STOCK, query, rows, null);
            time(Engines.Engine.NATIVE, query, rows, null);
        }
        for (int i = 0; i < trials; i++) {
            // Alternate which engine goes first so that drift favours neither.
            boolean stockFirst = i % 2 == 0;
            Engines.Engine first = stockFirst ? Engines.Engine.STOCK : Engines.Engine.NATIVE;
            Engines.Engine second = stockFirst ? Engines.Engine.NATIVE : Engines.Engine.STOCK;
            double a = time(first, query, rows, outcome);
            double b = time(second, query, rows, outcome);
            (stockFirst ? outcome.stockSeconds : outcome.nativeSeconds).add(a);
            (stockFirst ? outcome.nativeSeconds : outcome.stockSeconds).add(b);
            System.err.printf(
                    "  %s trial %d/%d: stock %.3fs, native %.3fs%n",
                    query.name, i + 1, trials, stockFirst ? a : b, stockFirst ? b : a);
        }
        return outcome;
    }

    private StreamTableEnvironment environment(Engines.Engine engine, Query query, long rows) {
        StreamTableEnvironment tEnv = Engines.create(engine, parallelism, options);
        if (engine == Engines.Engine.NATIVE) {
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "forbid");
        }
        tEnv.executeSql(query.sourceDdl.replace("{rows}", Long.toString(rows)));
        // Nexmark q14's user-defined function, for custom SELECTs.
        tEnv.createTemporarySystemFunction("count_char", CountChar.class);
        return tEnv;
    }

    private double time(Engines.Engine engine, Query query, long rows, Outcome outcome)
            throws Exception {
        Trials.settle();
        StreamTableEnvironment tEnv = environment(engine, query, rows);
        TableResult result =
                tEnv.sqlQuery(query.select)
                        .executeInsert(TableDescriptor.forConnector("blackhole").build());
        JobExecutionResult job = result.getJobClient().get().getJobExecutionResult().get();
        if (engine == Engines.Engine.NATIVE && outcome != null) {
            SupportReport report = StreamFusion.planner(tEnv).lastReport();
            outcome.coverage = report.nativeCount() + "/" + report.totalCount();
            outcome.fallbackReasons = report.fallbackReasons();
        }
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }

    private List<String> collect(Engines.Engine engine, Query query, long rows) throws Exception {
        StreamTableEnvironment tEnv = environment(engine, query, rows);
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query.select).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        Collections.sort(out);
        return out;
    }

    static void printTable(List<Outcome> outcomes) {
        System.out.printf(
                "%-10s | %-34s | %-34s | %-7s | %-8s | %s%n",
                "query",
                "stock median [range]",
                "native median [range]",
                "speedup",
                "native",
                "results");
        for (Outcome o : outcomes) {
            System.out.printf(
                    "%-10s | %-34s | %-34s | %-7s | %-8s | %s%n",
                    o.query.name,
                    o.describe(o.stockSeconds),
                    o.describe(o.nativeSeconds),
                    o.resultsMatch ? String.format("%.2fx", o.speedup()) : "-",
                    o.coverage,
                    o.resultsMatch ? "match" : "FAILED (results differ)");
            for (String reason : o.fallbackReasons) {
                System.out.println("           fallback: " + reason);
            }
        }
    }
}
