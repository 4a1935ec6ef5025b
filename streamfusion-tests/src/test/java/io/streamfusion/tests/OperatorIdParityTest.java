package io.streamfusion.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamfusion.planner.StreamFusion;
import io.streamfusion.planner.SupportReport;
import io.streamfusion.runtime.config.StreamFusionOptions;

import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

/**
 * The operator ids of a job are stock Flink's, so that savepoints move between stock Flink and
 * StreamFusion under every uid setting. Under Flink's default ({@code
 * table.exec.uid.generation=PLAN_ONLY}) a job not compiled into a plan has no uids, and Flink
 * derives each operator's id from the job graph's shape: an island that took the place of several
 * operators changed the ids of every operator after it (the window aggregation's state could not be
 * restored across engines). Compiles the job graph at parallelism 2 on both engines and compares
 * every vertex's operator ids, generated and user-given.
 */
class OperatorIdParityTest {
    private static final String SOURCE =
            "CREATE TEMPORARY TABLE src (id BIGINT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts"
                    + " - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' ="
                    + " '100')";

    /** The rows of {@link #SOURCE} without event time, for the group aggregations. */
    private static final String PLAIN_SOURCE =
            "CREATE TEMPORARY TABLE plain (id BIGINT, v INT) WITH ('connector' = 'datagen',"
                    + " 'number-of-rows' = '100')";

    private static final String SINK =
            "CREATE TEMPORARY TABLE snk (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' ="
                    + " 'blackhole')";

    /** A Calc, then a TUMBLE window aggregation (two phases), then a Calc. */
    private static final String WINDOW =
            "INSERT INTO snk SELECT k, c, s * 2 FROM (SELECT id % 10 AS k, window_start,"
                    + " COUNT(*) AS c, SUM(CAST(v AS BIGINT)) AS s FROM TABLE(TUMBLE(TABLE src,"
                    + " DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE v > 0 GROUP BY id % 10,"
                    + " window_start, window_end) WHERE c > 1";

    /** A Calc, then a group aggregation, then a Calc. */
    private static final String GROUP =
            "INSERT INTO snk SELECT k, c, s + 1 FROM (SELECT id % 10 AS k, COUNT(*) AS c,"
                    + " SUM(CAST(v AS BIGINT)) AS s FROM plain WHERE v > 0 GROUP BY id % 10)";

    /**
     * WINDOW: the Calc joins the local window phase's island and the Calc after the global phase
     * joins its island. GROUP: one phase, the Calc after the aggregation joins its island.
     * GROUP_MINIBATCH: two phases, the Calc joins the local phase's island.
     */
    @ParameterizedTest(name = "{0}, uids {1}")
    @CsvSource({
        "WINDOW, PLAN_ONLY",
        "WINDOW, ALWAYS",
        "GROUP, PLAN_ONLY",
        "GROUP_MINIBATCH, PLAN_ONLY",
        "GROUP_MINIBATCH, ALWAYS",
    })
    void everyOperatorHasStockFlinksId(String query, String uids) {
        String insert = query.equals("WINDOW") ? WINDOW : GROUP;
        boolean miniBatch = query.equals("GROUP_MINIBATCH");
        List<List<String>> stock = operatorIds(false, uids, miniBatch, insert);
        List<List<String>> streamFusion = operatorIds(true, uids, miniBatch, insert);
        assertThat(streamFusion).isEqualTo(stock);
    }

    /**
     * Per job vertex (sources first), the generated and the user-given id of each of its chained
     * operators; asserts that the native plan has islands, which is what changed the ids.
     */
    private static List<List<String>> operatorIds(
            boolean nativeEngine, String uids, boolean miniBatch, String insert) {
        // Generated uids (ALWAYS) hold the ExecNode ids, which count on across plannings.
        ExecNodeContext.resetIdCounter();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        EnvironmentSettings settings = EnvironmentSettings.inStreamingMode();
        StreamTableEnvironment tEnv =
                nativeEngine
                        ? StreamFusion.create(env, settings)
                        : StreamTableEnvironment.create(env, settings);
        tEnv.getConfig().set("table.exec.uid.generation", uids);
        if (miniBatch) {
            tEnv.getConfig().set("table.exec.mini-batch.enabled", "true");
            tEnv.getConfig().set("table.exec.mini-batch.allow-latency", "1 s");
            tEnv.getConfig().set("table.exec.mini-batch.size", "100");
        }
        if (nativeEngine) {
            tEnv.getConfig().set(StreamFusionOptions.FALLBACK.key(), "forbid");
        }
        tEnv.executeSql(SOURCE);
        tEnv.executeSql(PLAIN_SOURCE);
        tEnv.executeSql(SINK);
        StreamStatementSet statements = tEnv.createStatementSet();
        statements.addInsertSql(insert);
        statements.attachAsDataStream();
        if (nativeEngine) {
            SupportReport report = StreamFusion.planner(tEnv).lastReport();
            assertThat(report.nativeCount()).isPositive();
            assertThat(report.islands()).as("islands in " + report.summary()).isNotEmpty();
        }
        JobGraph job = env.getStreamGraph().getJobGraph();
        List<List<String>> ids = new ArrayList<>();
        for (JobVertex vertex : job.getVerticesSortedTopologicallyFromSources()) {
            List<String> operators = new ArrayList<>();
            for (OperatorIDPair pair : vertex.getOperatorIDs()) {
                operators.add(
                        pair.getGeneratedOperatorID()
                                + "/"
                                + pair.getUserDefinedOperatorID().map(String::valueOf).orElse("-"));
            }
            ids.add(operators);
        }
        return ids;
    }
}
