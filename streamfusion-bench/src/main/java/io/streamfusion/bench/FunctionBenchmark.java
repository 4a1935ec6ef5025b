package io.streamfusion.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sf bench functions [--rows N] [--warmups W] [--trials T] [--only name,name]}: the scalar
 * functions of the Nexmark queries, one query each over the bids of the nexmark source (default
 * event mix) (a projection of the function, filtered to bids), stock Flink vs StreamFusion with
 * fallback forbidden, alternating trials. The source and the filter are the same in both engines;
 * the difference is the Calc. A benchmark, not a test: it reports, it asserts nothing.
 */
public final class FunctionBenchmark {
    private FunctionBenchmark() {}

    static final String SOURCE =
            "CREATE TEMPORARY TABLE nexmark (event_type INT, person ROW<id BIGINT, name STRING,"
                + " emailAddress STRING, creditCard STRING, city STRING, state STRING, `dateTime`"
                + " TIMESTAMP(3), extra STRING>, auction ROW<id BIGINT, itemName STRING,"
                + " description STRING, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3),"
                + " expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING>, bid"
                + " ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,"
                + " `dateTime` TIMESTAMP(3), extra VARCHAR>) WITH ('connector' = 'nexmark',"
                + " 'events.num' = '{rows}')";

    /**
     * Function name to the projection over the bid row (as in Nexmark q1, q2, q10, q14, q21, q22).
     */
    static final Map<String, String> FUNCTIONS = new LinkedHashMap<>();

    static {
        FUNCTIONS.put("decimal_multiply", "0.908 * bid.price");
        FUNCTIONS.put("mod", "MOD(bid.auction, 123)");
        FUNCTIONS.put("date_format", "DATE_FORMAT(bid.`dateTime`, 'yyyy-MM-dd HH:mm')");
        FUNCTIONS.put("hour", "HOUR(bid.`dateTime`)");
        FUNCTIONS.put("lower", "LOWER(bid.channel)");
        FUNCTIONS.put("regexp_extract", "REGEXP_EXTRACT(bid.url, '(&|^)channel_id=([^&]*)', 2)");
        FUNCTIONS.put("split_index", "SPLIT_INDEX(bid.url, '/', 3)");
        FUNCTIONS.put(
                "case",
                "CASE WHEN bid.price < 10000 THEN 'low' WHEN bid.price < 1000000 THEN 'mid' ELSE"
                        + " 'high' END");
        FUNCTIONS.put("in", "bid.channel IN ('apple', 'google', 'facebook', 'baidu')");
        // Not Nexmark's: parsing a formatted timestamp back (SimpleDateFormat, DateTimeFormatter).
        FUNCTIONS.put(
                "unix_timestamp",
                "UNIX_TIMESTAMP(DATE_FORMAT(bid.`dateTime`, 'yyyy-MM-dd HH:mm:ss'))");
        FUNCTIONS.put(
                "to_timestamp",
                "TO_TIMESTAMP(DATE_FORMAT(bid.`dateTime`, 'yyyyMMddHHmmssSSS'),"
                        + " 'yyyyMMddHHmmssSSS')");
    }

    public static void main(String[] args) throws Exception {
        long rows = 10_000_000L;
        int warmups = 1;
        int trials = 3;
        List<String> only = new ArrayList<>(FUNCTIONS.keySet());
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows":
                    rows = Long.parseLong(args[++i]);
                    break;
                case "--warmups":
                    warmups = Integer.parseInt(args[++i]);
                    break;
                case "--trials":
                    trials = Integer.parseInt(args[++i]);
                    break;
                case "--only":
                    only = List.of(args[++i].split(","));
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        System.out.printf(
                "function benchmark: %,d Nexmark events (46 of 50 are bids), parallelism 1, %d"
                        + " warmups, %d trials (alternating), job net runtime%n",
                rows, warmups, trials);
        SideBySide runner = new SideBySide(1, Map.of());
        List<SideBySide.Outcome> outcomes = new ArrayList<>();
        for (String name : only) {
            String projection = FUNCTIONS.get(name);
            if (projection == null) throw new IllegalArgumentException("unknown function " + name);
            String select = "SELECT " + projection + " AS v FROM nexmark WHERE event_type = 2";
            System.out.println(name + ": " + select);
            outcomes.add(
                    runner.run(
                            new SideBySide.Query(name, SOURCE, select),
                            rows,
                            20_000,
                            warmups,
                            trials));
        }
        SideBySide.printTable(outcomes);
    }
}
