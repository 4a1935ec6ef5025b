package io.streamfusion.bench;

import java.util.List;
import java.util.Map;

/**
 * {@code ./sf bench calc [--rows N] [--parallelism P] [--warmups W] [--trials T] [--select SQL]
 * [--source nexmark]}: a filter and projection over generated rows (table src: id BIGINT, v INT;
 * with {@code --source nexmark}, src is the nexmark generator's event table without its watermark:
 * event_type, person, auction, bid), stock Flink vs StreamFusion, alternating trials. Nexmark q14's
 * UDF is registered as {@code count_char}. A benchmark, not a test: it reports, it asserts nothing.
 */
public final class CalcBenchmark {
    private CalcBenchmark() {}

    static final String SOURCE =
            "CREATE TEMPORARY TABLE src (id BIGINT, v INT) WITH ('connector' = 'datagen',"
                + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' ="
                + " '{rows}', 'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end'"
                + " = '{rows}', 'rows-per-second' = '1000000000')";

    static final String NEXMARK_SOURCE =
            "CREATE TEMPORARY TABLE src (event_type INT, person ROW<id BIGINT, name VARCHAR,"
                + " emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR,"
                + " `dateTime` TIMESTAMP(3), extra VARCHAR>, auction ROW<id BIGINT, itemName"
                + " VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime`"
                + " TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra"
                + " VARCHAR>, bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR,"
                + " url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>) WITH ('connector' ="
                + " 'nexmark', 'events.num' = '{rows}')";

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
        String source = SOURCE;
        String select = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows":
                    rows = Long.parseLong(args[++i]);
                    break;
                case "--parallelism":
                    parallelism = Integer.parseInt(args[++i]);
                    break;
                case "--warmups":
                    warmups = Integer.parseInt(args[++i]);
                    break;
                case "--trials":
                    trials = Integer.parseInt(args[++i]);
                    break;
                case "--select":
                    select = args[++i];
                    break;
                case "--source":
                    String name = args[++i];
                    if (!name.equals("nexmark")) {
                        throw new IllegalArgumentException("unknown source " + name);
                    }
                    source = NEXMARK_SOURCE;
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (select != null) {
            query = new SideBySide.Query("custom", source, select);
        } else if (source != SOURCE) {
            throw new IllegalArgumentException("--source nexmark needs a --select");
        }
        System.out.printf(
                "calc benchmark: %,d rows, parallelism %d, %d warmups, %d trials (alternating), "
                        + "job net runtime%n",
                rows, parallelism, warmups, trials);
        SideBySide runner = new SideBySide(parallelism, Map.of());

        System.out.println(query.select);
        SideBySide.Outcome outcome = runner.run(query, rows, 20_000, warmups, trials);
        SideBySide.printTable(List.of(outcome));
    }
}
