package io.streamfusion.connectors.nexmark;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Options of the {@code 'connector' = 'nexmark'} table source. Names and defaults follow the
 * reference nexmark connector (research/nexmark.md §2.1); the last three are ours and make the
 * reference's implicit choices explicit so that a run is reproducible.
 */
public final class NexmarkOptions {

    public static final ConfigOption<Long> FIRST_EVENT_RATE =
            ConfigOptions.key("first-event.rate")
                    .longType()
                    .defaultValue(10_000L)
                    .withDescription(
                            "Event-time rate in events per second over all generators: sets the "
                                    + "spacing of event timestamps. Wall-clock emission follows it "
                                    + "only when max-emit-speed is false.");

    public static final ConfigOption<Long> NEXT_EVENT_RATE =
            ConfigOptions.key("next-event.rate")
                    .longType()
                    .defaultValue(10_000L)
                    .withDescription(
                            "Accepted for DDL compatibility. As in the reference generator, only"
                                + " first-event.rate shapes the timeline; this value is ignored.");

    public static final ConfigOption<Long> EVENTS_NUM =
            ConfigOptions.key("events.num")
                    .longType()
                    .defaultValue(0L)
                    .withDescription("Total number of events over all splits; 0 means unbounded.");

    public static final ConfigOption<Integer> PERSON_PROPORTION =
            ConfigOptions.key("person.proportion").intType().defaultValue(1);

    public static final ConfigOption<Integer> AUCTION_PROPORTION =
            ConfigOptions.key("auction.proportion").intType().defaultValue(3);

    public static final ConfigOption<Integer> BID_PROPORTION =
            ConfigOptions.key("bid.proportion").intType().defaultValue(46);

    public static final ConfigOption<MemorySize> PERSON_AVG_SIZE =
            ConfigOptions.key("person.avg-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("200b"))
                    .withDescription("Target average person size; the extra field pads up to it.");

    public static final ConfigOption<MemorySize> AUCTION_AVG_SIZE =
            ConfigOptions.key("auction.avg-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("500b"))
                    .withDescription("Target average auction size; the extra field pads up to it.");

    public static final ConfigOption<MemorySize> BID_AVG_SIZE =
            ConfigOptions.key("bid.avg-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("100b"))
                    .withDescription("Target average bid size; the extra field pads up to it.");

    public static final ConfigOption<Integer> BID_HOT_RATIO_AUCTIONS =
            ConfigOptions.key("bid.hot-ratio.auctions")
                    .intType()
                    .defaultValue(2)
                    .withDescription("A bid goes to the hot auction with probability 1 - 1/ratio.");

    public static final ConfigOption<Integer> BID_HOT_RATIO_BIDDERS =
            ConfigOptions.key("bid.hot-ratio.bidders")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "A bid comes from the hot bidder with probability 1 - 1/ratio.");

    public static final ConfigOption<Integer> AUCTION_HOT_RATIO_SELLERS =
            ConfigOptions.key("auction.hot-ratio.sellers")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "An auction belongs to the hot seller with probability 1 - 1/ratio.");

    public static final ConfigOption<Boolean> MAX_EMIT_SPEED =
            ConfigOptions.key("max-emit-speed")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Emit as fast as possible. When false, each event is held back until "
                                    + "its timestamp is due on the wall clock.");

    public static final ConfigOption<Boolean> KEEP_ALIVE =
            ConfigOptions.key("keep-alive")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "When all events are emitted, stay idle instead of finishing.");

    public static final ConfigOption<Long> STOP_AT =
            ConfigOptions.key("stop-at")
                    .longType()
                    .defaultValue(-1L)
                    .withDescription(
                            "Emit at most this many events in total (divided over the generators "
                                    + "like events.num); -1 means no limit.");

    public static final ConfigOption<Long> BASE_TIME =
            ConfigOptions.key("base-time")
                    .longType()
                    .defaultValue(GeneratorConfig.DEFAULT_BASE_TIME)
                    .withDescription(
                            "Epoch milliseconds of the first event. The reference uses the wall "
                                    + "clock at planning time; a fixed default keeps runs "
                                    + "reproducible (2025-01-01T12:00:00Z).");

    public static final ConfigOption<Integer> EVENT_GENERATORS =
            ConfigOptions.key("event-generators")
                    .intType()
                    .defaultValue(8)
                    .withDescription(
                            "Number of generators, each with its own contiguous event-id range "
                                    + "and an event-time timeline aligned with the others (the "
                                    + "reference uses parallelism.default, 8 in its benchmark). "
                                    + "Generators are the source splits; they do not depend on the "
                                    + "source parallelism, so any parallelism yields the same "
                                    + "events. Use at least the source parallelism.");

    public static final ConfigOption<Boolean> BIDDER_DOUBLE_OFFSET =
            ConfigOptions.key("bid.bidder-double-offset")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Reproduce the reference quirk (nexmark issue #30) that adds the "
                                    + "first person id twice to a bidder, so bidder ids are "
                                    + "person ids + 1000.");

    private NexmarkOptions() {}
}
