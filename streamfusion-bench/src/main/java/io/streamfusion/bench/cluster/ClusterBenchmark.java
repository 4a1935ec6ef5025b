package io.streamfusion.bench.cluster;

import io.streamfusion.bench.nexmark.NexmarkQueries;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./sf bench cluster}: Nexmark queries on a standalone cluster ({@link LocalCluster}: a
 * JobManager and two TaskManagers of one slot, each a process of its own, the distribution as
 * shipped with the StreamFusion jar in {@code lib/}), submitted through Flink's SQL Client at
 * parallelism 2, stock and native in one run on the same cluster ({@code streamfusion.enabled} per
 * session), warm-ups first, then trials alternating the engines. A trial's time is the job's
 * duration as the JobManager reports it (REST {@code /jobs/<id>}: from submission to the end,
 * deployment included). Each trial is appended to {@code OUT/cluster-results.jsonl} as it ends;
 * {@code --resume} skips the trials found there.
 *
 * <pre>
 * [--queries q0,q5,q11] [--events N] [--trials T] [--warmups W] [--out DIR] [--resume]
 * </pre>
 */
public final class ClusterBenchmark {
    private ClusterBenchmark() {}

    public static void main(String[] args) throws Exception {
        List<String> argv = Arrays.asList(args);
        List<String> queries = Arrays.asList(option(argv, "--queries", "q0,q5,q11").split(","));
        long events = Long.parseLong(option(argv, "--events", "2000000"));
        int trials = Integer.parseInt(option(argv, "--trials", "3"));
        int warmups = Integer.parseInt(option(argv, "--warmups", "1"));
        Path out = Path.of(option(argv, "--out", "cluster-results")).toAbsolutePath();
        boolean resume = argv.contains("--resume");
        Files.createDirectories(out);
        Path results = out.resolve("cluster-results.jsonl");
        List<String> done =
                resume && Files.exists(results) ? Files.readAllLines(results) : List.of();

        Path root = Path.of(System.getProperty("streamfusion.root", ".")).toAbsolutePath();
        LocalCluster cluster =
                new LocalCluster(
                        root.resolve(".cache/bench-cluster"),
                        ClusterCommand.flinkHome(root),
                        ClusterCommand.streamFusionJar(root),
                        List.of(ClusterCommand.connectorsJar(root)),
                        Integer.parseInt(option(argv, "--port", "8091")),
                        2,
                        1);
        if (cluster.isRunning()) {
            cluster.stop();
        }
        cluster.start();
        System.out.println(
                "cluster: " + cluster.webUi() + ", 2 TaskManagers of 1 slot, parallelism 2");
        try {
            for (String query : queries) {
                for (int w = 0; w < warmups; w++) {
                    for (boolean nat : new boolean[] {false, true}) {
                        long ms = run(cluster, out, query, nat, Math.min(events, 500_000));
                        System.out.printf("%s warm-up %s: %d ms%n", query, engine(nat), ms);
                    }
                }
                for (int t = 0; t < trials; t++) {
                    // Alternate which engine goes first.
                    boolean[] order =
                            t % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false};
                    for (boolean nat : order) {
                        String key =
                                "\"query\":\""
                                        + query
                                        + "\",\"engine\":\""
                                        + engine(nat)
                                        + "\",\"trial\":"
                                        + t
                                        + ",";
                        if (done.stream().anyMatch(l -> l.contains(key))) {
                            continue;
                        }
                        long ms = run(cluster, out, query, nat, events);
                        String line =
                                "{"
                                        + key
                                        + "\"events\":"
                                        + events
                                        + ",\"millis\":"
                                        + ms
                                        + ",\"events_per_second\":"
                                        + (events * 1000 / Math.max(1, ms))
                                        + "}";
                        Files.writeString(
                                results,
                                line + "\n",
                                StandardOpenOption.CREATE,
                                StandardOpenOption.APPEND);
                        System.out.println(line);
                    }
                }
            }
        } finally {
            cluster.stop();
        }
        summarize(Files.readAllLines(results));
    }

    private static String engine(boolean nat) {
        return nat ? "native" : "stock";
    }

    /** Runs {@code query} over {@code events} events; the job's duration in ms. */
    private static long run(LocalCluster cluster, Path out, String query, boolean nat, long events)
            throws Exception {
        Map<String, String> vars =
                NexmarkQueries.variables(
                        events, 10_000_000, out.resolve("sink"), out.resolve("side-input.csv"));
        List<String> statements = new ArrayList<>();
        statements.add("SET 'streamfusion.enabled' = '" + nat + "'");
        statements.add("SET 'table.dml-sync' = 'true'");
        statements.add("SET 'parallelism.default' = '2'");
        statements.addAll(NexmarkQueries.statements(query, vars));
        Path script = out.resolve(query + "-" + engine(nat) + ".sql");
        Files.writeString(script, String.join(";\n", statements) + ";\n");
        LocalCluster.SqlResult result = cluster.sql(script);
        if (result.exitCode != 0 || result.output.contains("[ERROR]")) {
            throw new IllegalStateException(
                    query + " on " + engine(nat) + " failed:\n" + result.output);
        }
        String job = cluster.lastJobId();
        String detail = cluster.rest("/jobs/" + job);
        if (!detail.contains("\"state\":\"FINISHED\"")) {
            throw new IllegalStateException(query + " did not finish: " + detail);
        }
        if (nat != detail.contains("Native")) {
            throw new IllegalStateException(
                    query + " on " + engine(nat) + ": unexpected operators " + detail);
        }
        Matcher duration = Pattern.compile("\"duration\":(\\d+)").matcher(detail);
        if (!duration.find()) {
            throw new IllegalStateException("no duration in " + detail);
        }
        return Long.parseLong(duration.group(1));
    }

    /** Per query and engine: median, min and max of the trials' events/s; native / stock. */
    private static void summarize(List<String> lines) {
        Map<String, List<Long>> rates = new HashMap<>();
        Pattern p =
                Pattern.compile(
                        "\"query\":\"(\\w+)\",\"engine\":\"(\\w+)\".*\"events_per_second\":(\\d+)");
        List<String> queries = new ArrayList<>();
        for (String line : lines) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                rates.computeIfAbsent(m.group(1) + " " + m.group(2), k -> new ArrayList<>())
                        .add(Long.parseLong(m.group(3)));
                if (!queries.contains(m.group(1))) {
                    queries.add(m.group(1));
                }
            }
        }
        System.out.println(
                "query  stock events/s (min-max)      native events/s (min-max)     native/stock");
        for (String q : queries) {
            List<Long> s = rates.getOrDefault(q + " stock", List.of());
            List<Long> n = rates.getOrDefault(q + " native", List.of());
            if (s.isEmpty() || n.isEmpty()) {
                continue;
            }
            System.out.printf(
                    "%-5s  %,9d (%,d-%,d)  %,9d (%,d-%,d)  %.2fx%n",
                    q,
                    median(s),
                    min(s),
                    max(s),
                    median(n),
                    min(n),
                    max(n),
                    (double) median(n) / median(s));
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static long min(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).min().orElse(0);
    }

    private static long max(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private static String option(List<String> args, String name, String fallback) {
        int i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : fallback;
    }
}
