package io.streamfusion.bench;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./sf bench island-growth [--rows N] [--trials T] [--warmups W]}: the query whose island
 * grew when islands came to be formed by abilities (issue 43): a table whose rowtime is a physical
 * column (CSV files: ts TIMESTAMP(3), k INT, v BIGINT) and a window TVF aggregation with no
 * projection, planned in two phases. Three arms, alternating in rotating order within one run on
 * the same files: stock Flink; "before", StreamFusion with the watermark assigner kept Flink's
 * ({@code streamfusion.operators.excluded = WatermarkAssigner}, the plan before islands grew: the
 * local window phase an island alone); "after", StreamFusion as planned now (assigner and local
 * phase in one island). Results of all three are compared first. A benchmark: it reports, it
 * asserts nothing.
 */
public final class IslandGrowthBenchmark {
    private IslandGrowthBenchmark() {}

    static final String SELECT =
            "SELECT k, window_start, window_end, COUNT(*) AS c, SUM(v) AS s, MAX(v) AS m FROM"
                    + " TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k,"
                    + " window_start, window_end";

    private static final DateTimeFormatter CSV_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    /** One arm: an engine and its table options. */
    private static final class Arm {
        final String name;
        final Engines.Engine engine;
        final Map<String, String> options;
        final List<Double> seconds = new ArrayList<>();
        String plan = "";

        Arm(String name, Engines.Engine engine, Map<String, String> options) {
            this.name = name;
            this.engine = engine;
            this.options = options;
        }
    }

    public static void main(String[] args) throws Exception {
        long rows = 5_000_000L;
        int warmups = 1;
        int trials = 5;
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
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Map<String, String> before = new LinkedHashMap<>();
        before.put("streamfusion.operators.excluded", "WatermarkAssigner");
        before.put("streamfusion.fallback", "allow");
        Map<String, String> after = Map.of("streamfusion.fallback", "forbid");
        List<Arm> arms =
                List.of(
                        new Arm("stock", Engines.Engine.STOCK, Map.of()),
                        new Arm("before", Engines.Engine.NATIVE, before),
                        new Arm("after", Engines.Engine.NATIVE, after));
        Path dir = Files.createTempDirectory("streamfusion-island-growth");
        try {
            Path check = write(dir.resolve("check"), 50_000);
            Path data = write(dir.resolve("data"), rows);
            System.out.printf(
                    "island growth benchmark: %,d rows, parallelism 1, %d warmups, %d trials"
                            + " (rotating order), job net runtime%n%s%n",
                    rows, warmups, trials, SELECT);
            List<String> expected = collect(arms.get(0), check);
            for (Arm arm : arms.subList(1, arms.size())) {
                boolean match = collect(arm, check).equals(expected);
                System.out.printf(
                        "results of %s vs stock on 50,000 rows: %s%n",
                        arm.name, match ? "match" : "DIFFER");
            }
            for (int i = 0; i < warmups; i++) {
                for (Arm arm : arms) {
                    time(arm, data);
                }
            }
            for (int t = 0; t < trials; t++) {
                for (int a = 0; a < arms.size(); a++) {
                    Arm arm = arms.get((a + t) % arms.size());
                    double s = time(arm, data);
                    arm.seconds.add(s);
                    System.err.printf("  trial %d/%d: %s %.3fs%n", t + 1, trials, arm.name, s);
                }
            }
            double stock = Trials.median(arms.get(0).seconds);
            for (Arm arm : arms) {
                double median = Trials.median(arm.seconds);
                System.out.printf(
                        "%-6s | %.3fs [%.3f-%.3f] | %.2fM rows/s | %.2fx stock | %s%n",
                        arm.name,
                        median,
                        Collections.min(arm.seconds),
                        Collections.max(arm.seconds),
                        rows / median / 1e6,
                        stock / median,
                        arm.plan);
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** {@code rows} CSV rows in one file: ts a millisecond apart, k in 0..99, v = row % 9973. */
    private static Path write(Path dir, long rows) throws Exception {
        Files.createDirectories(dir);
        LocalDateTime start = LocalDateTime.ofInstant(Instant.EPOCH, ZoneOffset.UTC);
        try (BufferedWriter out =
                Files.newBufferedWriter(dir.resolve("part-0.csv"), StandardCharsets.UTF_8)) {
            for (long r = 0; r < rows; r++) {
                LocalDateTime ts = start.plusNanos(r * 1_000_000L);
                out.write(CSV_TIME.format(ts));
                out.write(',');
                out.write(Long.toString(r * 7919 % 100));
                out.write(',');
                out.write(Long.toString(r % 9973));
                out.write('\n');
            }
        }
        return dir;
    }

    private static StreamTableEnvironment environment(Arm arm, Path data) {
        StreamTableEnvironment tEnv = Engines.create(arm.engine, 1, arm.options);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE src (ts TIMESTAMP(3), k INT, v BIGINT, WATERMARK FOR ts AS"
                        + " ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '"
                        + data.toUri()
                        + "', 'format' = 'csv')");
        return tEnv;
    }

    private static double time(Arm arm, Path data) throws Exception {
        Trials.settle();
        StreamTableEnvironment tEnv = environment(arm, data);
        JobExecutionResult job =
                tEnv.sqlQuery(SELECT)
                        .executeInsert(TableDescriptor.forConnector("blackhole").build())
                        .getJobClient()
                        .get()
                        .getJobExecutionResult()
                        .get();
        if (arm.engine == Engines.Engine.NATIVE) {
            SupportReport report = StreamFusion.planner(tEnv).lastReport();
            arm.plan =
                    report.nativeCount()
                            + "/"
                            + report.totalCount()
                            + " native, islands "
                            + report.islands();
        }
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }

    private static List<String> collect(Arm arm, Path data) throws Exception {
        StreamTableEnvironment tEnv = environment(arm, data);
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(SELECT).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        Collections.sort(out);
        return out;
    }
}
