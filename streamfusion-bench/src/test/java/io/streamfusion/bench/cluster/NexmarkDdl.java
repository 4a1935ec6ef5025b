package io.streamfusion.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Nexmark's own DDL of its event table, for the project's Nexmark source on a cluster. */
final class NexmarkDdl {
    private NexmarkDdl() {}

    /**
     * The {@code datagen} table of {@code events} events (46 of 50 bids), paced at {@code
     * eventsPerSecond} when {@code paced}, else as fast as the source goes.
     */
    static String table(long eventsPerSecond, long events, boolean paced) throws IOException {
        String ddl;
        try (InputStream in = NexmarkDdl.class.getResourceAsStream("/nexmark/ddl_gen.sql")) {
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return ddl.replace("${TPS}", Long.toString(eventsPerSecond))
                .replace("${EVENTS_NUM}", Long.toString(events))
                .replace("${PERSON_PROPORTION}", "1")
                .replace("${AUCTION_PROPORTION}", "3")
                .replace("${BID_PROPORTION}", "46")
                .replace(
                        "'bid.proportion' = '46'",
                        "'bid.proportion' = '46', 'max-emit-speed' = '" + !paced + "'")
                .strip();
    }
}
