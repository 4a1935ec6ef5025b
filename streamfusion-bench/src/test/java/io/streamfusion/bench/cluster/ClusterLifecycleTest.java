package io.streamfusion.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The drop-in install over the life of a session cluster: one TaskManager process with four slots
 * runs two native jobs at a time, submitted through Flink's SQL Gateway (its REST API, as a user's
 * tool speaks to it) and cancelled while rows stream through them, twenty times. The native library
 * is loaded once by the TaskManager (the StreamFusion jar is in {@code lib/}) while each job's
 * generated code comes and goes with the job's class loader. After every cancellation the
 * TaskManager's {@code streamfusionNativeMemoryBytes} (every native pool of the process) returns to
 * zero, and the TaskManager never dies or restarts. Through the same gateway, a session with {@code
 * streamfusion.enabled} off plans stock operators and a native run's results equal stock's.
 */
class ClusterLifecycleTest {
    private static final String TASK_MANAGER = "tm-1";

    @TempDir static Path home;

    private static LocalCluster cluster;
    private static String gateway;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestClusters.start(home.resolve("cluster"), 1, 4);
        gateway = cluster.startSqlGateway(LocalCluster.freePort());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stop();
        }
    }

    /** The source: {@code rows} rows of a sequence, as fast as the source goes. */
    private static String source(long rows) {
        return "CREATE TEMPORARY TABLE src (id BIGINT, k AS id % 100, ts AS TO_TIMESTAMP_LTZ(id,"
                + " 3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen',"
                + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '"
                + rows
                + "')";
    }

    /** A Calc and a TUMBLE window aggregation whose windows native code keeps (heap backend). */
    private static final String WINDOWS =
            "SELECT k, window_end, COUNT(*) AS c, SUM(id) AS s FROM TABLE(TUMBLE(TABLE src,"
                    + " DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE id % 7 <> 3 GROUP BY k,"
                    + " window_start, window_end";

    /** The same over Nexmark's bids, from the project's Nexmark source (FLIP-27, paced). */
    private static final String BID_WINDOWS =
            "SELECT bid.auction % 100 AS k, window_end, COUNT(*) AS c, SUM(bid.price) AS s FROM"
                    + " TABLE(TUMBLE(TABLE datagen, DESCRIPTOR(`dateTime`), INTERVAL '1' SECOND))"
                    + " WHERE event_type = 2 AND bid.price % 7 <> 3 GROUP BY bid.auction % 100,"
                    + " window_start, window_end";

    /** A group aggregation over Flink's keyed state behind a Calc. */
    private static final String BID_GROUPS =
            "SELECT bid.auction % 100 AS k, COUNT(*) AS c, MAX(bid.price) AS m FROM datagen WHERE"
                    + " event_type = 2 GROUP BY bid.auction % 100";

    private static SqlGatewayClient session(boolean enabled, boolean sync)
            throws IOException, InterruptedException {
        return new SqlGatewayClient(
                gateway,
                Map.of(
                        "streamfusion.enabled",
                        Boolean.toString(enabled),
                        "table.dml-sync",
                        Boolean.toString(sync),
                        "execution.checkpointing.interval",
                        "300 ms",
                        "parallelism.default",
                        "2"));
    }

    @Test
    void theSqlGatewayPlansNativelyAndStockWhenDisabledWithEqualResults() throws Exception {
        List<List<String>> results = new ArrayList<>();
        for (boolean enabled : new boolean[] {false, true}) {
            Path out = home.resolve("gateway-" + enabled);
            try (SqlGatewayClient sql = session(enabled, true)) {
                sql.execute(source(100_000));
                sql.execute(
                        "CREATE TEMPORARY TABLE out_csv (k BIGINT, window_end TIMESTAMP(3), c"
                                + " BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' ="
                                + " 'file://"
                                + out
                                + "', 'format' = 'csv')");
                String insert =
                        "INSERT INTO out_csv SELECT k, CAST(window_end AS TIMESTAMP(3)), c, s FROM"
                                + " ("
                                + WINDOWS
                                + ")";
                String explain = sql.executeSingle("EXPLAIN " + insert);
                if (enabled) {
                    Matcher count =
                            Pattern.compile("(\\d+) of (\\d+) operators native").matcher(explain);
                    assertThat(count.find()).as(explain).isTrue();
                    assertThat(count.group(1))
                            .as("every operator native")
                            .isEqualTo(count.group(2));
                } else {
                    assertThat(explain).contains("WindowAggregate(").doesNotContain("Native");
                }
                sql.execute(insert);
                assertThat(cluster.rest("/jobs/" + cluster.lastJobId()))
                        .as("the job's operators")
                        .matches(
                                plan ->
                                        plan.contains("NativeWindowAggregate") == enabled
                                                && plan.contains("\"state\":\"FINISHED\""));
            }
            results.add(TestClusters.csvLines(out));
        }
        assertThat(results.get(0)).as("stock's windows").hasSizeGreaterThan(100);
        assertThat(results.get(1)).isEqualTo(results.get(0));
    }

    @Test
    void twentySubmitCancelCyclesReturnNativeMemoryToZero() throws Exception {
        long pid = cluster.taskManager(1).orElseThrow().pid();
        List<String> rss = new ArrayList<>();
        try (SqlGatewayClient sql = session(true, false)) {
            // A billion events at 20,000 a second: the jobs never end by themselves.
            String ddl = NexmarkDdl.table(20_000, 1_000_000_000L, true);
            sql.execute(ddl.substring(0, ddl.lastIndexOf(';')));
            sql.execute(
                    "CREATE TEMPORARY TABLE window_sink (k BIGINT, window_end TIMESTAMP(3), c"
                            + " BIGINT, s BIGINT) WITH ('connector' = 'blackhole')");
            sql.execute(
                    "CREATE TEMPORARY TABLE group_sink (k BIGINT, c BIGINT, m BIGINT) WITH"
                            + " ('connector' = 'blackhole')");
            for (int cycle = 1; cycle <= 20; cycle++) {
                String windows = sql.executeSingle("INSERT INTO window_sink " + BID_WINDOWS);
                String groups = sql.executeSingle("INSERT INTO group_sink " + BID_GROUPS);
                for (String job : List.of(windows, groups)) {
                    assertThat(cluster.rest("/jobs/" + job))
                            .as("cycle %d: job %s's operators", cycle, job)
                            .contains("Native");
                }
                // Both jobs run on the one TaskManager and hold native memory: rows stream through
                // their islands when they are cancelled.
                awaitNativeMemory(cycle, bytes -> bytes > 0, windows, groups);
                cluster.cancel(windows);
                cluster.cancel(groups);
                for (String job : List.of(windows, groups)) {
                    assertThat(TestClusters.awaitTerminal(cluster, job))
                            .as("cycle %d: job %s, %s", cycle, job, exceptions(job))
                            .isEqualTo("CANCELED");
                }
                awaitNativeMemory(cycle, bytes -> bytes == 0);
                assertThat(cluster.taskManager(1).map(ProcessHandle::pid))
                        .as("cycle %d: the TaskManager process", cycle)
                        .contains(pid);
                rss.add(cycle + ": " + memory(pid));
            }
        }
        System.out.println("TaskManager memory by cycle (MiB):\n" + String.join("\n", rss));
        String overview = cluster.rest("/jobs/overview");
        assertThat(count(overview, "\"state\":\"CANCELED\"")).isEqualTo(40);
        assertThat(overview).doesNotContain("\"state\":\"FAILED\"");
        assertThat(LocalCluster.intField(cluster.rest("/overview"), "taskmanagers")).isEqualTo(1);
    }

    /** Waits until the TaskManager's native memory gauge satisfies {@code test}. */
    private static void awaitNativeMemory(
            int cycle, java.util.function.LongPredicate test, String... runningJobs)
            throws Exception {
        long deadline = System.currentTimeMillis() + TestClusters.TIMEOUT_MILLIS;
        String last = null;
        while (System.currentTimeMillis() < deadline) {
            for (String job : runningJobs) {
                assertThat(cluster.rest("/jobs/" + job))
                        .as("cycle %d: job %s, %s", cycle, job, exceptions(job))
                        .doesNotContain("\"state\":\"FAILED\"")
                        .doesNotContain("\"state\":\"RESTARTING\"");
            }
            last = cluster.taskManagerMetric(TASK_MANAGER, "streamfusionNativeMemoryBytes");
            if (last != null && test.test(Long.parseLong(last))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(
                "cycle "
                        + cycle
                        + ": the TaskManager's native memory stayed at "
                        + last
                        + "; jobs: "
                        + cluster.rest("/jobs/overview"));
    }

    private static String exceptions(String job) throws Exception {
        return cluster.rest("/jobs/" + job + "/exceptions");
    }

    /**
     * The TaskManager's resident memory, and what the JVM accounts of it: heap and non-heap
     * (metaspace, code cache) committed, and direct buffers.
     */
    private static String memory(long pid) throws Exception {
        StringBuilder out = new StringBuilder("rss=" + residentMegabytes(pid));
        for (String metric :
                List.of(
                        "Status.JVM.Memory.Heap.Committed",
                        "Status.JVM.Memory.NonHeap.Committed",
                        "Status.JVM.Memory.Direct.MemoryUsed")) {
            String value = cluster.taskManagerMetric(TASK_MANAGER, metric);
            long mib = value == null ? -1 : Long.parseLong(value) >> 20;
            out.append(' ')
                    .append(metric.replace("Status.JVM.Memory.", ""))
                    .append('=')
                    .append(mib);
        }
        return out.toString();
    }

    private static long residentMegabytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
            }
        }
        return -1;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
