package io.streamfusion.bench;

import java.util.List;
import java.util.Map;

/**
 * {@code ./sf bench calc [--rows N] [--parallelism P] [--warmups W] [--trials T] [--select SQL]}:
 * a filter and projection over generated rows (table src: id BIGINT, v INT), stock Flink vs
 * StreamFusion, alternating trials. A benchmark, not a test: it reports, it asserts nothing.
 */
public final class CalcBenchmark {
    private CalcBenchmark() {}

    static final String SOURCE =
            "CREATE TEMPORARY TABLE src (id BIGINT, v INT) WITH ('connector' = 'datagen', "
                    + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}', "
                    + "'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '{rows}', "
                    + "'rows-per-second' = '1000000000')";

    static final SideBySide.Query FILTER_PROJECT =
            new SideBySide.Query(
                    "calc",
                    SOURCE,
                    "SELECT id, id * 3 + 7 AS a, CAST(v AS DECIMAL(18, 2)) * 1.5 AS price, "
                            + "CASE WHEN id % 10 = 0 THEN 'ten' ELSE 'other' END AS tag, "
                            + "v % 1000 IN (1, 5, 7) AS hot "
                            + "FROM src WHERE id % 4 <> 0 AND v > 100");

    public static void main(String[] args) throws Exception {
        long rows = 10_000_000L;
        int parallelism = 1;
        int warmups = 1;
        int trials = 5;
        SideBySide.Query query = FILTER_PROJECT;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--parallelism": parallelism = Integer.parseInt(args[++i]); break;
                case "--warmups": warmups = Integer.parseInt(args[++i]); break;
                case "--trials": trials = Integer.parseInt(args[++i]); break;
                case "--select": query = new SideBySide.Query("custom", SOURCE, args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        System.out.printf(
                "calc benchmark: %,d rows, parallelism %d, %d warmups, %d trials (alternating), "
                        + "job net runtime%n", rows, parallelism, warmups, trials);
        SideBySide runner = new SideBySide(parallelism, Map.of());

        System.out.println(query.select);
        SideBySide.Outcome outcome = runner.run(query, rows, 20_000, warmups, trials);
        SideBySide.printTable(List.of(outcome));
    }
}
