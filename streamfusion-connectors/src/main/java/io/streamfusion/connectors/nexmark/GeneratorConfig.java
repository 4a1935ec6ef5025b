package io.streamfusion.connectors.nexmark;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.Preconditions;

import java.io.Serializable;

/**
 * Everything that determines the generated events (research/nexmark.md §3). The event stream is a
 * pure function of this config: generator g owns the contiguous event-id range that the reference
 * gives to split g, and its c-th event has number n = c + 1, id firstEventId(g) + n and timestamp
 * baseTime + trunc(n * interEventDelayMicros) / 1000.
 */
public final class GeneratorConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** 2025-01-01T12:00:00Z. */
    static final long DEFAULT_BASE_TIME = 1_735_732_800_000L;

    static final long FIRST_PERSON_ID = 1000;
    static final long FIRST_AUCTION_ID = 1000;
    static final long FIRST_CATEGORY_ID = 10;
    static final int NUM_CATEGORIES = 5;
    static final int HOT_BATCH_SIZE = 100;
    static final int PERSON_ID_LEAD = 10;
    static final int AUCTION_ID_LEAD = 10;
    static final int NUM_ACTIVE_PEOPLE = 1000;
    static final int NUM_IN_FLIGHT_AUCTIONS = 100;

    final long firstEventRate;
    final long maxEvents;
    final long stopAt;
    final int personProportion;
    final int auctionProportion;
    final int bidProportion;
    final int totalProportion;
    final int personAvgSize;
    final int auctionAvgSize;
    final int bidAvgSize;
    final int hotAuctionRatio;
    final int hotBiddersRatio;
    final int hotSellersRatio;
    final boolean maxEmitSpeed;
    final boolean keepAlive;
    final long baseTime;
    final int numGenerators;
    final boolean bidderDoubleOffset;
    final boolean bounded;

    /** Spacing of one generator's events in microseconds (reference: 1e6 / rate * generators). */
    final double interEventDelayMicros;

    /** Events of one generator during which 100 auctions are created (auction lifetime). */
    final long eventsForAuctions;

    GeneratorConfig(
            long firstEventRate,
            long maxEvents,
            long stopAt,
            int personProportion,
            int auctionProportion,
            int bidProportion,
            int personAvgSize,
            int auctionAvgSize,
            int bidAvgSize,
            int hotAuctionRatio,
            int hotBiddersRatio,
            int hotSellersRatio,
            boolean maxEmitSpeed,
            boolean keepAlive,
            long baseTime,
            int numGenerators,
            boolean bidderDoubleOffset) {
        Preconditions.checkArgument(
                firstEventRate > 0, "first-event.rate must be > 0: %s", firstEventRate);
        Preconditions.checkArgument(maxEvents >= 0, "events.num must be >= 0: %s", maxEvents);
        // Bids and auctions refer to people and auctions, so both must exist.
        Preconditions.checkArgument(
                personProportion >= 1, "person.proportion must be >= 1: %s", personProportion);
        Preconditions.checkArgument(
                auctionProportion >= 1, "auction.proportion must be >= 1: %s", auctionProportion);
        Preconditions.checkArgument(
                bidProportion >= 0, "bid.proportion must be >= 0: %s", bidProportion);
        Preconditions.checkArgument(
                hotAuctionRatio >= 1, "bid.hot-ratio.auctions must be >= 1: %s", hotAuctionRatio);
        Preconditions.checkArgument(
                hotBiddersRatio >= 1, "bid.hot-ratio.bidders must be >= 1: %s", hotBiddersRatio);
        Preconditions.checkArgument(
                hotSellersRatio >= 1,
                "auction.hot-ratio.sellers must be >= 1: %s",
                hotSellersRatio);
        Preconditions.checkArgument(
                numGenerators >= 1, "event-generators must be >= 1: %s", numGenerators);
        this.firstEventRate = firstEventRate;
        this.bounded = !keepAlive && (maxEvents > 0 || stopAt >= 0);
        this.totalProportion = personProportion + auctionProportion + bidProportion;
        // Reference: 0 means "as many as the id space allows".
        this.maxEvents =
                maxEvents == 0 ? Long.MAX_VALUE / ((long) totalProportion * 1000) : maxEvents;
        this.stopAt = stopAt;
        this.personProportion = personProportion;
        this.auctionProportion = auctionProportion;
        this.bidProportion = bidProportion;
        this.personAvgSize = personAvgSize;
        this.auctionAvgSize = auctionAvgSize;
        this.bidAvgSize = bidAvgSize;
        this.hotAuctionRatio = hotAuctionRatio;
        this.hotBiddersRatio = hotBiddersRatio;
        this.hotSellersRatio = hotSellersRatio;
        this.maxEmitSpeed = maxEmitSpeed;
        this.keepAlive = keepAlive;
        this.baseTime = baseTime;
        this.numGenerators = numGenerators;
        this.bidderDoubleOffset = bidderDoubleOffset;
        this.interEventDelayMicros = 1_000_000.0 / firstEventRate * numGenerators;
        this.eventsForAuctions =
                (long) NUM_IN_FLIGHT_AUCTIONS * totalProportion / auctionProportion;
    }

    public static GeneratorConfig fromOptions(ReadableConfig options) {
        return new GeneratorConfig(
                options.get(NexmarkOptions.FIRST_EVENT_RATE),
                options.get(NexmarkOptions.EVENTS_NUM),
                options.get(NexmarkOptions.STOP_AT),
                options.get(NexmarkOptions.PERSON_PROPORTION),
                options.get(NexmarkOptions.AUCTION_PROPORTION),
                options.get(NexmarkOptions.BID_PROPORTION),
                (int) options.get(NexmarkOptions.PERSON_AVG_SIZE).getBytes(),
                (int) options.get(NexmarkOptions.AUCTION_AVG_SIZE).getBytes(),
                (int) options.get(NexmarkOptions.BID_AVG_SIZE).getBytes(),
                options.get(NexmarkOptions.BID_HOT_RATIO_AUCTIONS),
                options.get(NexmarkOptions.BID_HOT_RATIO_BIDDERS),
                options.get(NexmarkOptions.AUCTION_HOT_RATIO_SELLERS),
                options.get(NexmarkOptions.MAX_EMIT_SPEED),
                options.get(NexmarkOptions.KEEP_ALIVE),
                options.get(NexmarkOptions.BASE_TIME),
                options.get(NexmarkOptions.EVENT_GENERATORS),
                options.get(NexmarkOptions.BIDDER_DOUBLE_OFFSET));
    }

    /** Events per generator before the last one, which also takes the remainder. */
    private long eventsPerGenerator(long total) {
        return total / numGenerators;
    }

    /** The id before generator g's first event (its first event has id firstEventId(g) + 1). */
    long firstEventId(int generator) {
        return 1 + generator * eventsPerGenerator(maxEvents);
    }

    public int numGenerators() {
        return numGenerators;
    }

    /** How many events generator g emits, after events.num and stop-at. */
    public long eventsOf(int generator) {
        long n = share(maxEvents, generator);
        return stopAt >= 0 ? Math.min(n, share(stopAt, generator)) : n;
    }

    private long share(long total, int generator) {
        long each = eventsPerGenerator(total);
        return generator == numGenerators - 1 ? total - each * (numGenerators - 1) : each;
    }

    /** Timestamp of the event with number n (1-based) on any generator's timeline. */
    long timestampOf(long eventNumber) {
        return baseTime + ((long) (eventNumber * interEventDelayMicros)) / 1000;
    }
}
