package io.streamfusion.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The drop-in install on a real cluster: Flink 2.2.1's distribution as shipped (its jars from PyPI,
 * the planner loader in {@code lib/}), the StreamFusion jar copied into {@code lib/}, a JobManager
 * and two TaskManagers of one slot as processes of their own, SQL through Flink's SQL Client
 * ({@code -f}). A query runs with native operators (EXPLAIN, the job's operator names, the REST
 * metrics) at parallelism 2, one subtask on each TaskManager so that records cross the network; its
 * results equal stock Flink's ({@code SET 'streamfusion.enabled' = 'false'} in the same kind of
 * session) when it runs through, when a TaskManager is killed mid-job, and when it is stopped with
 * a savepoint and restored at parallelism 1.
 */
class ClusterInstallTest {

    @TempDir static Path home;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestClusters.start(home.resolve("cluster"), 2, 1);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stop();
        }
    }

    private static final int ROWS = 200_000;

    /**
     * The session's settings, the source (rate-limited when {@code rowsPerSecond} > 0, so that a
     * job still runs when a test acts on it) and the sink (CSV files under {@code out}), as a user
     * writes them.
     */
    private static String tables(Path out, boolean enabled, boolean sync, long rowsPerSecond) {
        return String.join(
                "\n",
                "SET 'streamfusion.enabled' = '" + enabled + "';",
                "SET 'table.dml-sync' = '" + sync + "';",
                "SET 'execution.checkpointing.interval' = '500 ms';",
                "CREATE TEMPORARY TABLE src (id BIGINT, k AS id % 10, ts AS TO_TIMESTAMP_LTZ(id,"
                        + " 3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen',"
                        + (rowsPerSecond > 0 ? " 'rows-per-second' = '" + rowsPerSecond + "'," : "")
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
                        + " 'fields.id.end' = '"
                        + ROWS
                        + "');",
                "CREATE TEMPORARY TABLE out_csv (k BIGINT, window_end TIMESTAMP(3), c BIGINT,"
                        + " s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'file://"
                        + out
                        + "', 'format' = 'csv');",
                "");
    }

    /** A Calc, a TUMBLE window aggregation keyed by k (so rows go over the network), a Calc. */
    private static final String QUERY =
            "INSERT INTO out_csv SELECT k, CAST(window_end AS TIMESTAMP(3)), c, s * 2 FROM"
                    + " (SELECT k, window_start, window_end, COUNT(*) AS c, SUM(id) AS s FROM"
                    + " TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
                    + " WHERE id % 7 <> 3 GROUP BY k, window_start, window_end)";

    private static LocalCluster.SqlResult sql(String name, String script) throws Exception {
        Path file = home.resolve(name + ".sql");
        Files.writeString(file, script);
        LocalCluster.SqlResult result = cluster.sql(file);
        assertThat(result.exitCode).as(result.output).isZero();
        assertThat(result.output).as(result.output).doesNotContain("[ERROR]");
        return result;
    }

    private static List<String> expected;

    /** The windows of an uninterrupted stock run on the same cluster (once per class). */
    private static synchronized List<String> stockWindows() throws Exception {
        if (expected == null) {
            Path out = home.resolve("stock");
            sql("stock", tables(out, false, true, 0) + QUERY + ";\n");
            assertThat(cluster.rest("/jobs/" + lastJobId()))
                    .as("the stock job's operators")
                    .contains("WindowAggregate")
                    .doesNotContain("Native");
            expected = TestClusters.csvLines(out);
            assertThat(expected).as("stock's windows").hasSizeGreaterThan(100);
        }
        return expected;
    }

    @Test
    void sqlClientRunsNativelyOnTheClusterWithStockResults() throws Exception {
        Path out = home.resolve("native");
        LocalCluster.SqlResult nat =
                sql(
                        "native",
                        tables(out, true, true, 0)
                                + "EXPLAIN "
                                + QUERY
                                + ";\n"
                                + QUERY
                                + ";\nSET 'streamfusion.enabled' = 'false';\nEXPLAIN "
                                + QUERY
                                + ";\n");
        // The second EXPLAIN, after SET 'streamfusion.enabled' = 'false' in the same session,
        // plans stock operators.
        String disabled =
                nat.output.substring(nat.output.lastIndexOf("== Optimized Execution Plan =="));
        assertThat(disabled).contains("WindowAggregate(").doesNotContain("Native");
        assertThat(nat.output).contains("== StreamFusion ==");
        Matcher count = Pattern.compile("(\\d+) of (\\d+) operators native").matcher(nat.output);
        assertThat(count.find()).as(nat.output).isTrue();
        assertThat(count.group(1)).as("every operator native").isEqualTo(count.group(2));
        String job = lastJobId();
        String plan = cluster.rest("/jobs/" + job);
        assertThat(plan).as("the job's operators").contains("NativeWindowAggregate");
        assertThat(plan).contains("\"state\":\"FINISHED\"");
        // One subtask of the window aggregation on each TaskManager: its input crossed the network.
        assertThat(taskManagersOf(job, "NativeWindowAggregate")).hasSize(2).doesNotHaveDuplicates();
        assertThat(TestClusters.csvLines(out)).isEqualTo(stockWindows());
    }

    /**
     * A TaskManager process killed with SIGKILL mid-job, after a checkpoint completed: the job
     * restarts from it on the TaskManager left and one started in its place, and its results equal
     * stock Flink's (the CSV sink commits exactly once). While it runs, the REST API shows the
     * native operators' memory metric.
     */
    @Test
    void aTaskManagerKilledMidJobRestartsToStockResults() throws Exception {
        Path out = home.resolve("killed");
        String job = jobId(sql("killed", tables(out, true, false, 20_000) + QUERY + ";\n").output);
        awaitCompletedCheckpoint(job);
        assertThat(
                        awaitOperatorMetric(
                                job, "NativeWindowAggregate", "streamfusionNativeMemoryBytes"))
                .as("the native window aggregation's memory metric")
                .isNotNull();
        ProcessHandle victim = cluster.taskManager(2).orElseThrow();
        victim.destroyForcibly();
        victim.onExit().get();
        cluster.addTaskManager();
        assertThat(TestClusters.awaitTerminal(cluster, job))
                .as("after %s", cluster.rest("/jobs/" + job + "/exceptions"))
                .isEqualTo("FINISHED");
        assertThat(cluster.rest("/jobs/" + job + "/exceptions"))
                .as("the failure the kill caused")
                .contains("tm-2");
        assertThat(TestClusters.csvLines(out)).isEqualTo(stockWindows());
    }

    /**
     * Nexmark's events (the project's Nexmark source, Nexmark's own DDL), paced at 20,000 events/s
     * when {@code paced}, and the CSV sink.
     */
    private static String bids(Path out, boolean paced) throws IOException {
        String ddl = NexmarkDdl.table(20_000, 200_000, paced);
        return String.join(
                "\n",
                "SET 'table.exec.uid.generation' = 'ALWAYS';",
                "SET 'execution.checkpointing.interval' = '500 ms';",
                ddl,
                "CREATE TEMPORARY TABLE out_csv (k BIGINT, window_end TIMESTAMP(3), c BIGINT,"
                        + " s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'file://"
                        + out
                        + "', 'format' = 'csv');",
                "");
    }

    private static final String BID_QUERY =
            "INSERT INTO out_csv SELECT k, CAST(window_end AS TIMESTAMP(3)), c, s FROM (SELECT"
                + " bid.auction % 10 AS k, window_start, window_end, COUNT(*) AS c, SUM(bid.price)"
                + " AS s FROM TABLE(TUMBLE(TABLE datagen, DESCRIPTOR(`dateTime`), INTERVAL '1'"
                + " SECOND)) WHERE event_type = 2 AND bid.price % 7 <> 3 GROUP BY bid.auction % 10,"
                + " window_start, window_end)";

    /**
     * Stop-with-savepoint of a native job at parallelism 2, then the same statement restored from
     * the savepoint at parallelism 1: together they write what one stock run writes. The source is
     * the project's Nexmark source (FLIP-27: its splits' positions move with a rescale; Flink's
     * datagen sequence loses rows when restored at a lower parallelism, on stock Flink as
     * natively). Both sessions set generated uids, as a Flink user must to rescale a job from SQL:
     * without uids Flink derives operator ids from the job graph's chaining, which the parallelism
     * change alters here (the file sink's committer runs at parallelism 1 and chains to its writer
     * only at 1), so stock Flink too refuses that restore.
     */
    @Test
    void aSavepointRestoresAtAnotherParallelism() throws Exception {
        Path expectedOut = home.resolve("rescaled-stock");
        sql(
                "rescaled-stock",
                "SET 'streamfusion.enabled' = 'false';\nSET 'table.dml-sync' = 'true';\n"
                        + bids(expectedOut, false)
                        + BID_QUERY
                        + ";\n");
        List<String> stock = TestClusters.csvLines(expectedOut);
        assertThat(stock).as("stock's windows").hasSizeGreaterThan(50);

        Path out = home.resolve("rescaled");
        String job =
                jobId(
                        sql(
                                        "rescaled-1",
                                        "SET 'table.dml-sync' = 'false';\n"
                                                + bids(out, true)
                                                + BID_QUERY
                                                + ";\n")
                                .output);
        awaitCompletedCheckpoint(job);
        LocalCluster.SqlResult stopped =
                sql("rescaled-stop", "STOP JOB '" + job + "' WITH SAVEPOINT;\n");
        Matcher savepoint = Pattern.compile("(file:[^\\s|]+)").matcher(stopped.output);
        assertThat(savepoint.find()).as(stopped.output).isTrue();
        assertThat(TestClusters.awaitTerminal(cluster, job)).isEqualTo("FINISHED");
        assertThat(TestClusters.csvLines(out))
                .as("windows before the savepoint")
                .hasSizeLessThan(stock.size());
        sql(
                "rescaled-2",
                bids(out, true)
                        + "SET 'execution.state-recovery.path' = '"
                        + savepoint.group(1)
                        + "';\nSET 'parallelism.default' = '1';\nSET 'table.dml-sync' = 'true';\n"
                        + BID_QUERY
                        + ";\n");
        String restored = lastJobId();
        assertThat(restored).isNotEqualTo(job);
        assertThat(cluster.rest("/jobs/" + restored))
                .as("the restored job's operators")
                .contains("NativeWindowAggregate");
        assertThat(cluster.rest("/jobs/" + restored + "/checkpoints"))
                .as("the restored job's checkpoint statistics")
                .contains("\"restored\":{");
        assertThat(TestClusters.csvLines(out)).isEqualTo(stock);
    }

    private static String jobId(String output) {
        Matcher m = Pattern.compile("Job ID: ([0-9a-f]{32})").matcher(output);
        assertThat(m.find()).as(output).isTrue();
        return m.group(1);
    }

    /** The id of the job that started last. */
    private static String lastJobId() throws Exception {
        String job = cluster.lastJobId();
        assertThat(job).as("a job on the cluster").isNotNull();
        return job;
    }

    private static void awaitCompletedCheckpoint(String job) throws Exception {
        long deadline = System.currentTimeMillis() + TestClusters.TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            Matcher completed =
                    Pattern.compile("\"completed\":(\\d+)")
                            .matcher(cluster.rest("/jobs/" + job + "/checkpoints"));
            if (completed.find() && Integer.parseInt(completed.group(1)) > 0) {
                return;
            }
            assertThat(TestClusters.jobState(cluster, job))
                    .as("job " + job)
                    .isIn("CREATED", "INITIALIZING", "RUNNING");
            Thread.sleep(100);
        }
        throw new AssertionError("no checkpoint of job " + job + " completed");
    }

    /**
     * The value of operator metric {@code metric} in the vertex named {@code vertex...} once the
     * JobManager has fetched it (every second, LocalCluster's setting) while the job runs; null if
     * it never appears.
     */
    private static String awaitOperatorMetric(String job, String vertex, String metric)
            throws Exception {
        long deadline = System.currentTimeMillis() + TestClusters.TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline
                && TestClusters.jobState(cluster, job).equals("RUNNING")) {
            String value = operatorMetric(job, vertex, metric);
            if (value != null) {
                return value;
            }
            Thread.sleep(200);
        }
        return null;
    }

    /**
     * The value of operator metric {@code metric} in the vertex named {@code vertex...}, or null.
     */
    private static String operatorMetric(String job, String vertex, String metric)
            throws Exception {
        String base = "/jobs/" + job + "/vertices/" + vertexId(job, vertex) + "/metrics";
        Matcher id =
                Pattern.compile("\"id\":\"([^\"]*" + Pattern.quote(metric) + ")\"")
                        .matcher(cluster.rest(base));
        if (!id.find()) {
            return null;
        }
        Matcher value =
                Pattern.compile("\"value\":\"([^\"]*)\"")
                        .matcher(
                                cluster.rest(
                                        base
                                                + "?get="
                                                + URLEncoder.encode(
                                                        id.group(1), StandardCharsets.UTF_8)));
        return value.find() ? value.group(1) : null;
    }

    private static String vertexId(String job, String name) throws Exception {
        String plan = cluster.rest("/jobs/" + job);
        Matcher vertex =
                Pattern.compile(
                                "\"id\":\"([0-9a-f]+)\",\"slotSharingGroupId\":\"[^\"]*\",\"name\":\""
                                        + Pattern.quote(name))
                        .matcher(plan);
        assertThat(vertex.find()).as(plan).isTrue();
        return vertex.group(1);
    }

    /** The resource ids of the TaskManagers that ran the vertex named {@code name...}. */
    private static List<String> taskManagersOf(String job, String name) throws Exception {
        String detail =
                cluster.rest("/jobs/" + job + "/vertices/" + vertexId(job, name) + "/taskmanagers");
        List<String> ids = new ArrayList<>();
        Matcher tm = Pattern.compile("\"taskmanager-id\":\"([^\"]+)\"").matcher(detail);
        while (tm.find()) {
            ids.add(tm.group(1));
        }
        assertThat(ids).as(detail).isNotEmpty();
        return ids;
    }
}
