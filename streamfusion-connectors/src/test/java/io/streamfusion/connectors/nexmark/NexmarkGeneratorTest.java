package io.streamfusion.connectors.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The generator against research/nexmark.md §3, and the reader's ordering and determinism. */
class NexmarkGeneratorTest {
    private static final int EVENTS = 100_000;

    static GeneratorConfig config(long events, int generators) {
        Configuration options = new Configuration();
        options.set(NexmarkOptions.EVENTS_NUM, events);
        options.set(NexmarkOptions.EVENT_GENERATORS, generators);
        return GeneratorConfig.fromOptions(options);
    }

    /** All events of all generators, in generator order. */
    static List<RowData> generate(GeneratorConfig config) {
        EventGenerator generator = new EventGenerator(config);
        List<RowData> rows = new ArrayList<>();
        for (int g = 0; g < config.numGenerators; g++) {
            for (long c = 0; c < config.eventsOf(g); c++) {
                rows.add(generator.event(g, c));
            }
        }
        return rows;
    }

    static long timestampOf(RowData event) {
        int kind = event.getInt(NexmarkSchema.EVENT_TYPE);
        switch (kind) {
            case EventGenerator.PERSON:
                return event.getRow(NexmarkSchema.PERSON, 8).getTimestamp(6, 3).getMillisecond();
            case EventGenerator.AUCTION:
                return event.getRow(NexmarkSchema.AUCTION, 10).getTimestamp(5, 3).getMillisecond();
            default:
                return event.getRow(NexmarkSchema.BID, 7).getTimestamp(5, 3).getMillisecond();
        }
    }

    @Test
    void proportionsAreOneThreeFortySixAndOnlyOneRowIsSet() {
        int[] counts = new int[3];
        for (RowData event : generate(config(EVENTS, 1))) {
            int kind = event.getInt(NexmarkSchema.EVENT_TYPE);
            counts[kind]++;
            for (int column = 1; column <= 3; column++) {
                assertEquals(column - 1 != kind, event.isNullAt(column), "column " + column);
            }
        }
        // 100,000 consecutive ids are exactly 2,000 blocks of 50.
        assertEquals(2_000, counts[EventGenerator.PERSON]);
        assertEquals(6_000, counts[EventGenerator.AUCTION]);
        assertEquals(92_000, counts[EventGenerator.BID]);
    }

    @Test
    void idsAreDenseAndReferencesStayInRange() {
        long nextPerson = -1;
        long nextAuction = -1;
        long maxPerson = GeneratorConfig.FIRST_PERSON_ID - 1;
        long maxAuction = GeneratorConfig.FIRST_AUCTION_ID - 1;
        for (RowData event : generate(config(EVENTS, 1))) {
            switch (event.getInt(NexmarkSchema.EVENT_TYPE)) {
                case EventGenerator.PERSON:
                    {
                        long id = event.getRow(NexmarkSchema.PERSON, 8).getLong(0);
                        assertTrue(
                                nextPerson < 0 || id == nextPerson, "person ids are consecutive");
                        nextPerson = id + 1;
                        maxPerson = id;
                        break;
                    }
                case EventGenerator.AUCTION:
                    {
                        RowData a = event.getRow(NexmarkSchema.AUCTION, 10);
                        long id = a.getLong(0);
                        assertTrue(
                                nextAuction < 0 || id == nextAuction,
                                "auction ids are consecutive");
                        nextAuction = id + 1;
                        maxAuction = id;
                        long seller = a.getLong(7);
                        assertTrue(
                                seller >= 1000 && seller <= Math.max(maxPerson, 1000) + 10,
                                "seller " + seller);
                        long category = a.getLong(8);
                        assertTrue(category >= 10 && category <= 14, "category " + category);
                        break;
                    }
                default:
                    {
                        RowData b = event.getRow(NexmarkSchema.BID, 7);
                        long auction = b.getLong(0);
                        assertTrue(
                                auction >= 1000 && auction <= maxAuction + 10,
                                "auction " + auction);
                        // Reference quirk: bidders are person ids + 1000.
                        long bidder = b.getLong(1) - 1000;
                        // Person 1000 (event id 0) is never generated, yet the first events may
                        // refer to it.
                        assertTrue(
                                bidder >= 1000 && bidder <= Math.max(maxPerson, 1000) + 10,
                                "bidder " + bidder);
                    }
            }
        }
        // Ids 2 .. 100,001: base-0 persons 1 .. 2000 and auctions 1 .. 6000 (ids 0 and 1 unused).
        assertEquals(1000 + EVENTS / 50, maxPerson);
        assertEquals(1000 + 3 * EVENTS / 50, maxAuction);
    }

    @Test
    void generatorsPartitionTheIdSpaceWithMonotonicTimestamps() {
        GeneratorConfig config = config(10_007, 3);
        EventGenerator generator = new EventGenerator(config);
        long total = 0;
        for (int g = 0; g < 3; g++) {
            long previous = Long.MIN_VALUE;
            for (long c = 0; c < config.eventsOf(g); c++) {
                long t = timestampOf(generator.event(g, c));
                assertTrue(t >= previous, "timestamps of generator " + g + " go back at " + c);
                previous = t;
            }
            // Contiguous, disjoint ranges; the last generator takes the remainder.
            assertEquals(1 + g * 3335L, config.firstEventId(g));
            total += config.eventsOf(g);
        }
        assertEquals(3335, config.eventsOf(0));
        assertEquals(3337, config.eventsOf(2));
        assertEquals(10_007, total);
        // Aligned timelines: the c-th event of every generator has the same timestamp.
        assertEquals(timestampOf(generator.event(0, 1000)), timestampOf(generator.event(2, 1000)));
        assertEquals(GeneratorConfig.DEFAULT_BASE_TIME, config.baseTime);
        // 10,000 events/s over 3 generators: each generator's events are 300 us apart.
        assertEquals(
                GeneratorConfig.DEFAULT_BASE_TIME + 3000, timestampOf(generator.event(1, 9_999)));
    }

    @Test
    void valuesFollowTheSpecifiedDistributions() {
        Pattern email = Pattern.compile("[a-z ]{0,6}@[a-z ]{0,4}\\.com");
        Pattern card = Pattern.compile("\\d{4} \\d{4} \\d{4} \\d{4}");
        Pattern url =
                Pattern.compile(
                        "https://www\\.nexmark\\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\\.htm\\?query=1(&channel_id=\\d+)?");
        Set<String> hotChannels = Set.of("Google", "Facebook", "Baidu", "Apple");
        Set<String> cities =
                Set.of(
                        "Phoenix",
                        "Los Angeles",
                        "San Francisco",
                        "Boise",
                        "Portland",
                        "Bend",
                        "Redmond",
                        "Seattle",
                        "Kent",
                        "Cheyenne");
        Set<String> states = Set.of("AZ", "CA", "ID", "OR", "WA", "WY");
        GeneratorConfig config = config(EVENTS, 1);

        long personSize = 0, auctionSize = 0, bidSize = 0;
        int persons = 0, auctions = 0, bids = 0;
        int hotAuction = 0, hotBidder = 0, hotSeller = 0, hotChannel = 0, channelIds = 0;
        int[] priceTiers = new int[3];
        Map<String, Integer> stateCounts = new HashMap<>();
        for (RowData event : generate(config)) {
            switch (event.getInt(NexmarkSchema.EVENT_TYPE)) {
                case EventGenerator.PERSON:
                    {
                        RowData p = event.getRow(NexmarkSchema.PERSON, 8);
                        String name = p.getString(1).toString();
                        assertTrue(name.matches("[A-Z][a-z]+ [A-Z][a-z]+"), name);
                        assertTrue(
                                email.matcher(p.getString(2).toString()).matches(),
                                p.getString(2).toString());
                        assertTrue(card.matcher(p.getString(3).toString()).matches());
                        assertTrue(cities.contains(p.getString(4).toString()));
                        String state = p.getString(5).toString();
                        assertTrue(states.contains(state));
                        stateCounts.merge(state, 1, Integer::sum);
                        int size = 8;
                        for (int f : new int[] {1, 2, 3, 4, 5, 7}) {
                            size += p.getString(f).toBytes().length;
                        }
                        personSize += size;
                        persons++;
                        break;
                    }
                case EventGenerator.AUCTION:
                    {
                        RowData a = event.getRow(NexmarkSchema.AUCTION, 10);
                        // With 1:3:46, the auction with base-0 id k follows person k / 3.
                        long lastPerson = (a.getLong(0) - 1000) / 3;
                        if (a.getLong(7) - 1000 == (lastPerson / 100) * 100) {
                            hotSeller++;
                        }
                        String item = a.getString(1).toString();
                        String description = a.getString(2).toString();
                        assertTrue(item.length() <= 19 && description.length() <= 99);
                        assertTrue(a.getLong(3) >= 100 && a.getLong(4) > a.getLong(3));
                        long start = a.getTimestamp(5, 3).getMillisecond();
                        long expires = a.getTimestamp(6, 3).getMillisecond();
                        // 1666 events 100 us apart: lifetimes of 1 .. 2 * 167 ms.
                        assertTrue(
                                expires > start && expires - start <= 334,
                                "auction length " + (expires - start));
                        auctionSize +=
                                8
                                        + item.length()
                                        + description.length()
                                        + 40
                                        + a.getString(9).toBytes().length;
                        auctions++;
                        break;
                    }
                default:
                    {
                        RowData b = event.getRow(NexmarkSchema.BID, 7);
                        long price = b.getLong(2);
                        assertTrue(price >= 100 && price < 100_000_000L, "price " + price);
                        priceTiers[price < 10_000 ? 0 : price < 1_000_000 ? 1 : 2]++;
                        if ((b.getLong(0) - 1000) % 100 == 0) {
                            hotAuction++;
                        }
                        if ((b.getLong(1) - 2000) % 100 == 1) {
                            hotBidder++;
                        }
                        String channel = b.getString(3).toString();
                        String link = b.getString(4).toString();
                        assertTrue(url.matcher(link).matches(), link);
                        if (hotChannels.contains(channel)) {
                            hotChannel++;
                            assertTrue(!link.contains("channel_id"));
                        } else {
                            assertTrue(channel.matches("channel-\\d{1,4}"), channel);
                            if (link.contains("&channel_id=")) {
                                channelIds++;
                            }
                        }
                        int extra = b.getString(6).toBytes().length;
                        assertTrue(extra >= 54 && extra <= 81, "bid extra length " + extra);
                        bidSize += 32 + extra;
                        bids++;
                    }
            }
        }
        assertClose(200, (double) personSize / persons, 5, "person size");
        assertClose(500, (double) auctionSize / auctions, 10, "auction size");
        assertClose(100, (double) bidSize / bids, 1, "bid size");
        // Hot picks plus the non-hot picks that land on the hot id.
        assertClose(0.5, (double) hotAuction / bids, 0.02, "hot auctions");
        assertClose(0.75, (double) hotBidder / bids, 0.02, "hot bidders");
        assertClose(0.75, (double) hotSeller / auctions, 0.03, "hot sellers");
        assertClose(0.5, (double) hotChannel / bids, 0.02, "hot channels");
        assertClose(0.9, (double) channelIds / (bids - hotChannel), 0.03, "channel ids");
        for (int tier : priceTiers) {
            assertClose(1.0 / 3, (double) tier / bids, 0.02, "price tier");
        }
        assertClose(
                0.5,
                (stateCounts.get("OR") + stateCounts.get("ID") + stateCounts.get("CA"))
                        / (double) persons,
                0.04,
                "q3 states");
    }

    @Test
    void randomStringsHaveTheSpecifiedLengths() {
        SplitMix64 rng = new SplitMix64(7);
        byte[] buf = new byte[128];
        int specials = 0, total = 0;
        for (int i = 0; i < 10_000; i++) {
            int end = GeneratorTables.writeRandomString(rng, buf, 0, 20, (byte) '_');
            assertTrue(end >= 3 && end <= 19, "length " + end);
            for (int j = 0; j < end; j++) {
                assertTrue(buf[j] == '_' || (buf[j] >= 'a' && buf[j] <= 'z'));
                specials += buf[j] == '_' ? 1 : 0;
            }
            total += end;
        }
        assertClose(1.0 / 13, (double) specials / total, 0.005, "special characters");
    }

    @Test
    void eachEventIsAFunctionOfItsIdOnly() {
        GeneratorConfig config = config(EVENTS, 4);
        EventGenerator first = new EventGenerator(config);
        EventGenerator second = new EventGenerator(config);
        // Out of order on the second generator: no hidden sequential state.
        RowData late = second.event(3, 500);
        RowData early = second.event(0, 17);
        assertEquals(render(first.event(0, 17)), render(early));
        assertEquals(render(first.event(3, 500)), render(late));
        assertNotEquals(render(first.event(0, 17)), render(first.event(0, 67)));
    }

    @Test
    void readersEmitTheSameEventsAtAnyParallelismInTimestampOrder() {
        GeneratorConfig config = config(20_000, 6);
        List<String> sequential = new ArrayList<>();
        for (RowData row : generate(config)) {
            sequential.add(render(row));
        }
        for (int parallelism : new int[] {1, 3, 4}) {
            List<String> all = new ArrayList<>();
            for (int subtask = 0; subtask < parallelism; subtask++) {
                List<RowData> out = readAll(config, parallelism, subtask);
                long previous = Long.MIN_VALUE;
                for (RowData row : out) {
                    long t = timestampOf(row);
                    assertTrue(t >= previous, "reader output goes back in time");
                    previous = t;
                    all.add(render(row));
                }
            }
            Collections.sort(all);
            List<String> expected = new ArrayList<>(sequential);
            Collections.sort(expected);
            assertEquals(expected, all, "parallelism " + parallelism);
        }
    }

    @Test
    void readerResumesFromItsSnapshot() {
        GeneratorConfig config = config(5_000, 2);
        NexmarkSourceReader reader = new NexmarkSourceReader(config);
        reader.addSplits(List.of(new NexmarkSplit(0, 0), new NexmarkSplit(1, 0)));
        reader.notifyNoMoreSplits();
        Collecting output = new Collecting();
        assertEquals(InputStatus.MORE_AVAILABLE, reader.pollNext(output));
        List<NexmarkSplit> snapshot = reader.snapshotState(1);
        NexmarkSourceReader restored = new NexmarkSourceReader(config);
        restored.addSplits(snapshot);
        restored.notifyNoMoreSplits();
        while (restored.pollNext(output) != InputStatus.END_OF_INPUT) {}
        List<String> got = new ArrayList<>();
        output.rows.forEach(r -> got.add(render(r)));
        List<String> expected = new ArrayList<>();
        generate(config).forEach(r -> expected.add(render(r)));
        Collections.sort(got);
        Collections.sort(expected);
        assertEquals(expected, got);
    }

    @Test
    void stopAtLimitsTheEventsPerGenerator() {
        Configuration options = new Configuration();
        options.set(NexmarkOptions.EVENTS_NUM, 1_000L);
        options.set(NexmarkOptions.STOP_AT, 100L);
        options.set(NexmarkOptions.EVENT_GENERATORS, 3);
        GeneratorConfig config = GeneratorConfig.fromOptions(options);
        assertEquals(33, config.eventsOf(0));
        assertEquals(34, config.eventsOf(2));
        assertTrue(config.bounded);
        assertTrue(
                !GeneratorConfig.fromOptions(new Configuration()).bounded,
                "events.num 0 is unbounded");
    }

    /** What one reader emits when the enumerator assigns generator g to reader g mod P. */
    static List<RowData> readAll(GeneratorConfig config, int parallelism, int subtask) {
        NexmarkSourceReader reader = new NexmarkSourceReader(config);
        List<NexmarkSplit> splits = new ArrayList<>();
        for (int g = subtask; g < config.numGenerators; g += parallelism) {
            splits.add(new NexmarkSplit(g, 0));
        }
        reader.addSplits(splits);
        reader.notifyNoMoreSplits();
        Collecting output = new Collecting();
        while (reader.pollNext(output) != InputStatus.END_OF_INPUT) {}
        reader.close();
        return output.rows;
    }

    static String render(RowData event) {
        int kind = event.getInt(NexmarkSchema.EVENT_TYPE);
        int arity = kind == 0 ? 8 : kind == 1 ? 10 : 7;
        RowData inner = event.getRow(kind + 1, arity);
        return kind + ":" + inner;
    }

    private static void assertClose(double expected, double actual, double tolerance, String what) {
        assertTrue(
                Math.abs(expected - actual) <= tolerance,
                what + ": expected " + expected + " ± " + tolerance + " but was " + actual);
    }

    static final class Collecting implements ReaderOutput<RowData> {
        final List<RowData> rows = new ArrayList<>();

        @Override
        public void collect(RowData record) {
            rows.add(record);
        }

        @Override
        public void collect(RowData record, long timestamp) {
            rows.add(record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<RowData> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }
}
