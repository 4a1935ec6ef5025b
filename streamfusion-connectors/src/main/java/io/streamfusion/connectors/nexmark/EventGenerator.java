package io.streamfusion.connectors.nexmark;

import static io.streamfusion.connectors.nexmark.GeneratorConfig.AUCTION_ID_LEAD;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.FIRST_AUCTION_ID;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.FIRST_CATEGORY_ID;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.FIRST_PERSON_ID;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.HOT_BATCH_SIZE;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.NUM_ACTIVE_PEOPLE;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.NUM_CATEGORIES;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.NUM_IN_FLIGHT_AUCTIONS;
import static io.streamfusion.connectors.nexmark.GeneratorConfig.PERSON_ID_LEAD;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;

import java.util.Arrays;

/**
 * Builds nexmark events as rows of the reference table shape (see {@link NexmarkSchema}), following
 * research/nexmark.md §3: the id arithmetic, hot sellers/auctions/bidders, log-uniform prices,
 * channels and URLs, and padding to the average sizes. Every random draw of an event comes from a
 * {@link SplitMix64} seeded by the event id, so an event depends only on the config and its id and
 * number, never on which reader produces it or what was produced before.
 *
 * <p>Not thread-safe: one instance per reader. Apart from the row itself (and the boxed longs and
 * the person/auction strings it holds) nothing is allocated per event: shared strings come from
 * {@link GeneratorTables}, and every extra field is a view into the shared padding pool.
 */
public final class EventGenerator {
    public static final int PERSON = 0;
    public static final int AUCTION = 1;
    public static final int BID = 2;

    private static final Integer[] EVENT_TYPES = {PERSON, AUCTION, BID};

    private final GeneratorConfig config;
    private final SplitMix64 rng = new SplitMix64(0);
    private final byte[] scratch = new byte[256];
    private long cachedMillis = Long.MIN_VALUE;
    private TimestampData cachedTimestamp;

    public EventGenerator(GeneratorConfig config) {
        this.config = config;
    }

    /** The kind of event id e: within each block of T ids, persons, then auctions, then bids. */
    public int kindOf(long eventId) {
        long offset = eventId % config.totalProportion;
        if (offset < config.personProportion) {
            return PERSON;
        }
        return offset < config.personProportion + config.auctionProportion ? AUCTION : BID;
    }

    /** Base-0 id of the last person created at or before event id e. */
    long lastPersonBase0(long eventId) {
        long epoch = eventId / config.totalProportion;
        long offset = eventId % config.totalProportion;
        if (offset >= config.personProportion) {
            offset = config.personProportion - 1;
        }
        return epoch * config.personProportion + offset;
    }

    /** Base-0 id of the last auction created at or before event id e. */
    long lastAuctionBase0(long eventId) {
        long epoch = eventId / config.totalProportion;
        long offset = eventId % config.totalProportion;
        if (offset < config.personProportion) {
            epoch--;
            offset = config.auctionProportion - 1;
        } else if (offset >= config.personProportion + config.auctionProportion) {
            offset = config.auctionProportion - 1;
        } else {
            offset -= config.personProportion;
        }
        return epoch * config.auctionProportion + offset;
    }

    /**
     * The c-th event (c = 0, 1, ...) of generator g: number n = c + 1, id firstEventId(g) + n,
     * timestamp of n on the generator's timeline.
     */
    public RowData event(int generator, long indexInGenerator) {
        long number = indexInGenerator + 1;
        long eventId = config.firstEventId(generator) + number;
        long millis = config.timestampOf(number);
        rng.reseed(GeneratorTables.EVENT_SEED, eventId);
        int kind = kindOf(eventId);
        GenericRowData row = new GenericRowData(4);
        row.setField(0, EVENT_TYPES[kind]);
        switch (kind) {
            case PERSON:
                row.setField(1, person(eventId, millis));
                break;
            case AUCTION:
                row.setField(2, auction(eventId, number, millis));
                break;
            default:
                row.setField(3, bid(eventId, millis));
        }
        return row;
    }

    private GenericRowData person(long eventId, long millis) {
        GenericRowData p = new GenericRowData(8);
        p.setField(0, lastPersonBase0(eventId) + FIRST_PERSON_ID);
        BinaryStringData name =
                GeneratorTables.NAMES[
                        rng.nextInt(GeneratorTables.NUM_FIRST_NAMES)
                                        * GeneratorTables.NUM_LAST_NAMES
                                + rng.nextInt(GeneratorTables.NUM_LAST_NAMES)];
        p.setField(1, name);
        int end = GeneratorTables.writeRandomString(rng, scratch, 0, 7, (byte) ' ');
        scratch[end++] = '@';
        end = GeneratorTables.writeRandomString(rng, scratch, end, 5, (byte) ' ');
        scratch[end++] = '.';
        scratch[end++] = 'c';
        scratch[end++] = 'o';
        scratch[end++] = 'm';
        p.setField(2, BinaryStringData.fromBytes(Arrays.copyOf(scratch, end)));
        int emailLength = end;
        byte[] card = new byte[19];
        for (int group = 0; group < 4; group++) {
            int digits = rng.nextInt(10_000);
            int at = group * 5;
            card[at] = (byte) ('0' + digits / 1000);
            card[at + 1] = (byte) ('0' + digits / 100 % 10);
            card[at + 2] = (byte) ('0' + digits / 10 % 10);
            card[at + 3] = (byte) ('0' + digits % 10);
            if (group < 3) {
                card[at + 4] = ' ';
            }
        }
        p.setField(3, BinaryStringData.fromBytes(card));
        BinaryStringData city = GeneratorTables.CITY[rng.nextInt(GeneratorTables.CITY.length)];
        BinaryStringData state = GeneratorTables.STATE[rng.nextInt(GeneratorTables.STATE.length)];
        p.setField(4, city);
        p.setField(5, state);
        p.setField(6, timestamp(millis));
        int size =
                8
                        + name.getSizeInBytes()
                        + emailLength
                        + card.length
                        + city.getSizeInBytes()
                        + state.getSizeInBytes();
        p.setField(7, extra(size, config.personAvgSize));
        return p;
    }

    private GenericRowData auction(long eventId, long number, long millis) {
        GenericRowData a = new GenericRowData(10);
        a.setField(0, lastAuctionBase0(eventId) + FIRST_AUCTION_ID);
        long seller;
        if (rng.nextInt(config.hotSellersRatio) > 0) {
            seller = (lastPersonBase0(eventId) / HOT_BATCH_SIZE) * HOT_BATCH_SIZE;
        } else {
            seller = recentPerson(eventId);
        }
        a.setField(7, seller + FIRST_PERSON_ID);
        a.setField(8, FIRST_CATEGORY_ID + rng.nextInt(NUM_CATEGORIES));
        long initialBid = price();
        a.setField(3, initialBid);
        long horizon = config.timestampOf(number + config.eventsForAuctions) - millis;
        long length = 1 + rng.nextLong(Math.max(2 * horizon, 1));
        a.setField(6, TimestampData.fromEpochMillis(millis + length));
        int end = GeneratorTables.writeRandomString(rng, scratch, 0, 20, (byte) ' ');
        a.setField(1, BinaryStringData.fromBytes(Arrays.copyOf(scratch, end)));
        int itemNameLength = end;
        end = GeneratorTables.writeRandomString(rng, scratch, 0, 100, (byte) ' ');
        a.setField(2, BinaryStringData.fromBytes(Arrays.copyOf(scratch, end)));
        a.setField(4, initialBid + price());
        a.setField(5, timestamp(millis));
        a.setField(9, extra(8 + itemNameLength + end + 40, config.auctionAvgSize));
        return a;
    }

    private GenericRowData bid(long eventId, long millis) {
        GenericRowData b = new GenericRowData(7);
        long auction;
        long lastAuction = lastAuctionBase0(eventId);
        if (rng.nextInt(config.hotAuctionRatio) > 0) {
            auction = (lastAuction / HOT_BATCH_SIZE) * HOT_BATCH_SIZE;
        } else {
            long min = Math.max(lastAuction - NUM_IN_FLIGHT_AUCTIONS, 0);
            auction = min + rng.nextLong(lastAuction - min + 1 + AUCTION_ID_LEAD);
        }
        b.setField(0, auction + FIRST_AUCTION_ID);
        long bidder;
        if (rng.nextInt(config.hotBiddersRatio) > 0) {
            bidder = (lastPersonBase0(eventId) / HOT_BATCH_SIZE) * HOT_BATCH_SIZE + 1;
        } else {
            bidder = recentPerson(eventId);
        }
        bidder += FIRST_PERSON_ID;
        if (config.bidderDoubleOffset) {
            bidder += FIRST_PERSON_ID;
        }
        b.setField(1, bidder);
        b.setField(2, price());
        if (rng.nextInt(2) > 0) {
            int hot = rng.nextInt(GeneratorTables.HOT_CHANNELS.length);
            b.setField(3, GeneratorTables.HOT_CHANNELS[hot]);
            b.setField(4, GeneratorTables.HOT_URLS[hot]);
        } else {
            int channel = rng.nextInt(GeneratorTables.NUM_CHANNELS);
            b.setField(3, GeneratorTables.CHANNELS[channel]);
            b.setField(4, GeneratorTables.CHANNEL_URLS[channel]);
        }
        b.setField(5, timestamp(millis));
        b.setField(6, extra(32, config.bidAvgSize));
        return b;
    }

    /** A base-0 person among the last 1000 people, or one of the 10 not created yet. */
    private long recentPerson(long eventId) {
        long numPeople = lastPersonBase0(eventId) + 1;
        long active = Math.min(numPeople, NUM_ACTIVE_PEOPLE);
        return numPeople - active + rng.nextLong(active + PERSON_ID_LEAD);
    }

    /** Log-uniform over [100, 10^8): round(100 * 10^(6u)), u of 24 bits, by two table lookups. */
    private long price() {
        int u = rng.next24();
        return Math.round(
                100.0 * GeneratorTables.PRICE_HI[u >>> 12] * GeneratorTables.PRICE_LO[u & 0xFFF]);
    }

    /**
     * Padding from size {@code current} to about {@code average}: D = average - current, delta =
     * round(D / 5), length D - delta + uniform[0, 2 delta), a substring of the pool.
     */
    private BinaryStringData extra(int current, int average) {
        if (current >= average) {
            return BinaryStringData.EMPTY_UTF8;
        }
        int gap = average - current;
        int delta = (2 * gap + 5) / 10;
        int length = gap - delta + (delta == 0 ? 0 : rng.nextInt(2 * delta));
        length = Math.min(length, GeneratorTables.POOL_SIZE - 1);
        int offset = rng.nextInt(GeneratorTables.POOL_SIZE - length);
        return BinaryStringData.fromAddress(GeneratorTables.POOL_SEGMENTS, offset, length);
    }

    /** Timestamps are immutable, so consecutive events of the same millisecond share one. */
    private TimestampData timestamp(long millis) {
        if (millis != cachedMillis) {
            cachedMillis = millis;
            cachedTimestamp = TimestampData.fromEpochMillis(millis);
        }
        return cachedTimestamp;
    }
}
