package io.streamfusion.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The drop-in install on a real cluster: Flink 2.2.1's distribution as shipped (its jars from PyPI,
 * the planner loader in {@code lib/}), the StreamFusion jar copied into {@code lib/}, a JobManager
 * and two TaskManagers as processes of their own, SQL through Flink's SQL Client ({@code -f}). A
 * query runs with native operators (EXPLAIN, the job's operator names, the REST metrics) at
 * parallelism 2, one subtask on each TaskManager so that records cross the network, and its results
 * equal what stock Flink computes for them; {@code SET 'streamfusion.enabled' = 'false'} gives
 * stock operators in the same session.
 */
class ClusterInstallTest {
    private static final Path ROOT =
            Path.of(System.getProperty("streamfusion.root", "..")).toAbsolutePath().normalize();

    @TempDir static Path home;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        cluster =
                new LocalCluster(
                        home.resolve("cluster"),
                        ROOT.resolve(
                                ".cache/flink-" + System.getProperty("flink.version", "2.2.1")),
                        ClusterCommand.streamFusionJar(ROOT),
                        port,
                        2,
                        1);
        cluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stop();
        }
    }

    private static final int ROWS = 200_000;

    /** The source, the sink (CSV files under {@code out}) and the query, as a user writes them. */
    private static String script(Path out, boolean enabled) {
        return String.join(
                "\n",
                "SET 'streamfusion.enabled' = '" + enabled + "';",
                "SET 'table.dml-sync' = 'true';",
                "SET 'execution.checkpointing.interval' = '1 s';",
                "CREATE TEMPORARY TABLE src (id BIGINT, k AS id % 10, ts AS TO_TIMESTAMP_LTZ(id,"
                    + " 3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'fields.id.kind'"
                    + " = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '"
                        + ROWS
                        + "');",
                "CREATE TEMPORARY TABLE out_csv (k BIGINT, window_end TIMESTAMP(3), c BIGINT,"
                        + " s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'file://"
                        + out
                        + "', 'format' = 'csv');",
                "EXPLAIN " + QUERY + ";",
                QUERY + ";",
                "");
    }

    /** A Calc, a TUMBLE window aggregation keyed by k (so rows go over the network), a Calc. */
    private static final String QUERY =
            "INSERT INTO out_csv SELECT k, CAST(window_end AS TIMESTAMP(3)), c, s * 2 FROM"
                    + " (SELECT k, window_start, window_end, COUNT(*) AS c, SUM(id) AS s FROM"
                    + " TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
                    + " WHERE id % 7 <> 3 GROUP BY k, window_start, window_end)";

    private static LocalCluster.SqlResult run(String name, boolean enabled) throws Exception {
        Path out = home.resolve(name);
        Path file = home.resolve(name + ".sql");
        Files.writeString(file, script(out, enabled));
        LocalCluster.SqlResult result = cluster.sql(file);
        assertThat(result.exitCode).as(result.output).isZero();
        return result;
    }

    /** Every line of the CSV files under {@code dir}, sorted. */
    private static List<String> lines(Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (Files.isRegularFile(file) && !name.startsWith(".")) {
                    lines.addAll(Files.readAllLines(file));
                }
            }
        }
        lines.sort(null);
        return lines;
    }

    @Test
    void sqlClientRunsNativelyOnTheClusterWithStockResults() throws Exception {
        LocalCluster.SqlResult nat = run("native", true);
        assertThat(nat.output).as(nat.output).contains("== StreamFusion ==").contains("native");
        String job = lastJobId();
        String plan = cluster.rest("/jobs/" + job);
        assertThat(plan).as("the job's operators").contains("Native");
        assertThat(plan).contains("\"state\":\"FINISHED\"");
        // One subtask of the window aggregation on each TaskManager: its input crossed the network.
        assertThat(taskManagersOf(job, "NativeWindowAggregate"))
                .containsExactlyInAnyOrder("tm-1", "tm-2");

        LocalCluster.SqlResult stock = run("stock", false);
        assertThat(stock.output).doesNotContain("NativeCalc");
        String stockJob = lastJobId();
        assertThat(stockJob).isNotEqualTo(job);
        assertThat(cluster.rest("/jobs/" + stockJob)).doesNotContain("Native");

        List<String> expected = lines(home.resolve("stock"));
        assertThat(expected).as("stock's windows").hasSizeGreaterThan(100);
        assertThat(lines(home.resolve("native"))).isEqualTo(expected);
    }

    /** The id of the job that started last. */
    private static String lastJobId() throws Exception {
        String overview = cluster.rest("/jobs/overview");
        Matcher m =
                Pattern.compile("\"jid\":\"([0-9a-f]+)\"[^}]*?\"start-time\":(\\d+)")
                        .matcher(overview);
        String last = null;
        long lastStart = -1;
        while (m.find()) {
            long start = Long.parseLong(m.group(2));
            if (start > lastStart) {
                lastStart = start;
                last = m.group(1);
            }
        }
        assertThat(last).as(overview).isNotNull();
        return last;
    }

    /**
     * The resource ids of the TaskManagers that ran the subtasks of the vertex named {@code
     * name...}.
     */
    private static List<String> taskManagersOf(String job, String name) throws Exception {
        String plan = cluster.rest("/jobs/" + job);
        Matcher vertex =
                Pattern.compile(
                                "\"id\":\"([0-9a-f]+)\",\"slotSharingGroupId\":\"[^\"]*\",\"name\":\""
                                        + Pattern.quote(name))
                        .matcher(plan);
        assertThat(vertex.find()).as(plan).isTrue();
        String subtasks =
                cluster.rest(
                        "/jobs/" + job + "/vertices/" + vertex.group(1) + "/subtasks/accumulators");
        String detail =
                cluster.rest("/jobs/" + job + "/vertices/" + vertex.group(1) + "/taskmanagers");
        List<String> ids = new ArrayList<>();
        Matcher tm = Pattern.compile("\"taskmanager-id\":\"([^\"]+)\"").matcher(detail);
        while (tm.find()) {
            ids.add(tm.group(1));
        }
        assertThat(ids).as(detail + subtasks).isNotEmpty();
        return ids;
    }
}
