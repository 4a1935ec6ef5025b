package io.streamfusion.bench;

import io.streamfusion.bench.nexmark.NexmarkBenchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sf demo [nexmark options]}: a few Nexmark queries on embedded MiniClusters, stock Flink
 * and StreamFusion side by side (throughput, speedup, native coverage, results check, report
 * files), then the calc benchmark's filter and projection. Sized to finish in a few minutes on 2
 * cores; options given on the command line override the demo's.
 */
public final class Demo {
    /**
     * Pass-through and calc queries, a group aggregation (q17), window TVF aggregations (q5; its
     * window join stays on Flink) and session windows (q11).
     */
    private static final List<String> NEXMARK_DEFAULTS =
            List.of(
                    "--queries", "q0,q1,q2,q14,q17,q5,q11",
                    "--events", "1000000",
                    "--check-events", "50000",
                    "--parallelism", "2",
                    "--warmups", "1",
                    "--trials", "3");

    private static final long CALC_ROWS = 5_000_000L;

    private Demo() {}

    public static void main(String[] args) throws Exception {
        List<String> nexmarkArgs = new ArrayList<>(NEXMARK_DEFAULTS);
        nexmarkArgs.addAll(Arrays.asList(args));
        System.out.println("StreamFusion demo, part 1: Nexmark (./sf bench nexmark)");
        boolean nexmarkMatch = NexmarkBenchmark.run(nexmarkArgs.toArray(new String[0]));

        System.out.printf(
                "%nStreamFusion demo, part 2: filter and projection (./sf bench calc), %,d"
                        + " generated rows, parallelism 1, 1 warmup, 3 trials, all operators native"
                        + " (strict)%n%n",
                CALC_ROWS);
        SideBySide.Outcome calc =
                new SideBySide(1, Map.of())
                        .run(CalcBenchmark.FILTER_PROJECT, CALC_ROWS, 20_000, 1, 3);
        SideBySide.printTable(List.of(calc));

        boolean allMatch = nexmarkMatch && calc.resultsMatch;
        System.out.println();
        System.out.println(
                allMatch
                        ? "results check: every query matches stock Flink"
                        : "results check: MISMATCH (see FAILED rows above)");
        System.exit(allMatch ? 0 : 1);
    }
}
