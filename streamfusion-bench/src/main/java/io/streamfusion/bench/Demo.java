package io.streamfusion.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sf demo}: a few queries on an embedded MiniCluster, stock Flink and StreamFusion side
 * by side, with throughput, speedup, native coverage and a results check. Sized to finish in a
 * few minutes on 2 cores.
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        List<SideBySide.Query> queries =
                List.of(
                        CalcBenchmark.FILTER_PROJECT,
                        new SideBySide.Query(
                                "filter",
                                CalcBenchmark.SOURCE,
                                "SELECT id, v FROM src WHERE v % 100 = 7 OR id BETWEEN 1000 AND 2000"),
                        new SideBySide.Query(
                                "arith",
                                CalcBenchmark.SOURCE,
                                "SELECT id * v, id - v, CAST(id AS DOUBLE) / 3, "
                                        + "CASE WHEN v < 0 THEN -v ELSE v END, COALESCE(id, 0) FROM src"));
        System.out.printf(
                "StreamFusion demo: %,d generated rows per query, parallelism 1, 1 warmup, 3 trials%n%n", rows);
        SideBySide runner = new SideBySide(1, Map.of());
        List<SideBySide.Outcome> outcomes = new ArrayList<>();
        for (SideBySide.Query query : queries) {
            System.err.println("running " + query.name + " ...");
            outcomes.add(runner.run(query, rows, 20_000, 1, 3));
        }
        System.out.println();
        SideBySide.printTable(outcomes);
        boolean allMatch = outcomes.stream().allMatch(o -> o.resultsMatch);
        System.out.println();
        System.out.println(allMatch ? "results check: all queries match stock Flink" : "results check: MISMATCH");
        if (!allMatch) {
            System.exit(1);
        }
    }
}
