package io.streamfusion.bench.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.connectors.nexmark.EventGenerator;
import io.streamfusion.connectors.nexmark.GeneratorConfig;
import io.streamfusion.connectors.nexmark.NexmarkOptions;
import io.streamfusion.connectors.nexmark.NexmarkSchema;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** The nexmark SQL files and the nexmark connector on stock Flink. */
class NexmarkQueriesTest {
    private static final long EVENTS = 10_000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @TempDir Path temp;

    private StreamTableEnvironment stock(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        return StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    }

    private Map<String, String> vars() {
        Path sideInput = temp.resolve("side_input.txt");
        NexmarkQueries.writeSideInput(sideInput);
        return NexmarkQueries.variables(EVENTS, 10_000_000, temp.resolve("output"), sideInput);
    }

    /** Runs the query's SELECT (its INSERT without the blackhole sink) and collects the rows. */
    private List<Row> collect(String query, int parallelism) {
        StreamTableEnvironment tEnv = stock(parallelism);
        String insert = null;
        for (String statement : NexmarkQueries.statements(query, vars())) {
            if (statement.startsWith("INSERT INTO")) {
                insert = statement;
            } else {
                tEnv.executeSql(statement);
            }
        }
        String select = insert.substring(insert.indexOf("SELECT"));
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.sqlQuery(select).execute().collect()) {
            it.forEachRemaining(rows::add);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        return rows;
    }

    /** The bids of the default config, straight from the generator. */
    private static List<RowData> bids() {
        Configuration options = new Configuration();
        options.set(NexmarkOptions.EVENTS_NUM, EVENTS);
        GeneratorConfig config = GeneratorConfig.fromOptions(options);
        EventGenerator generator = new EventGenerator(config);
        List<RowData> bids = new ArrayList<>();
        for (int g = 0; g < config.numGenerators(); g++) {
            for (long c = 0; c < config.eventsOf(g); c++) {
                RowData event = generator.event(g, c);
                if (event.getInt(NexmarkSchema.EVENT_TYPE) == EventGenerator.BID) {
                    bids.add(event.getRow(NexmarkSchema.BID, 7));
                }
            }
        }
        return bids;
    }

    @Test
    void q0q1q2ProduceTheGeneratedBids() {
        List<RowData> bids = bids();
        assertEquals(EVENTS * 46 / 50, bids.size());

        List<Row> q0 = collect("q0", 2);
        assertEquals(bids.size(), q0.size());
        long priceSum = 0;
        for (RowData bid : bids) {
            priceSum += bid.getLong(2);
        }
        long q0PriceSum = 0;
        for (Row row : q0) {
            q0PriceSum += (Long) row.getField("price");
        }
        assertEquals(priceSum, q0PriceSum);

        List<Row> q1 = collect("q1", 2);
        assertEquals(bids.size(), q1.size());
        BigDecimal euros = BigDecimal.ZERO;
        for (Row row : q1) {
            euros = euros.add((BigDecimal) row.getField("price"));
        }
        assertEquals(new BigDecimal("0.908").multiply(BigDecimal.valueOf(priceSum)), euros);

        long selected = 0;
        for (RowData bid : bids) {
            if (bid.getLong(0) % 123 == 0) {
                selected++;
            }
        }
        List<Row> q2 = collect("q2", 2);
        assertTrue(selected > 0, "q2 selects some bids");
        assertEquals(selected, q2.size());
        for (Row row : q2) {
            assertEquals(0, (Long) row.getField("auction") % 123);
        }
    }

    @Test
    void sameEventsAtParallelismOneAndThree() {
        List<String> one = scanAll(1);
        List<String> three = scanAll(3);
        assertEquals(EVENTS, one.size());
        assertEquals(one, three);
    }

    private List<String> scanAll(int parallelism) {
        StreamTableEnvironment tEnv = stock(parallelism);
        tEnv.executeSql(NexmarkQueries.split(NexmarkQueries.sql("ddl_gen", vars())).get(0));
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it =
                tEnv.sqlQuery("SELECT event_type, person, auction, bid, `dateTime` FROM datagen")
                        .execute()
                        .collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        Collections.sort(rows);
        return rows;
    }

    @Test
    void everyQueryPlansOnStockFlinkExceptTheDocumentedSkip() {
        List<String> failures = new ArrayList<>();
        for (String query : NexmarkQueries.ALL) {
            if (NexmarkQueries.SKIPPED.containsKey(query)) {
                continue;
            }
            StreamTableEnvironment tEnv = stock(2);
            String insert = null;
            try {
                for (String statement : NexmarkQueries.statements(query, vars())) {
                    if (statement.startsWith("INSERT INTO")) {
                        insert = statement;
                    } else {
                        tEnv.executeSql(statement);
                    }
                }
                String plan = tEnv.explainSql(insert);
                assertTrue(plan.contains("nexmark"), query + " scans the nexmark source");
            } catch (Exception e) {
                failures.add(query + ": " + e);
            }
        }
        assertEquals(List.of(), failures);
        assertEquals(Map.of("q6", NexmarkQueries.SKIPPED.get("q6")), NexmarkQueries.SKIPPED);
        assertFalse(NexmarkQueries.SKIPPED.get("q6").isEmpty());
    }
}
