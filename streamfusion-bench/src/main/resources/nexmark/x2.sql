-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x2: DISTINCT aggregates in tumbling event-time windows
-- -------------------------------------------------------------------------------------------------
-- Per auction group and 10 seconds of event time: the bids, the distinct bidders and auctions,
-- and the distinct bidders of bids over 10,000. Flink keeps one map per DISTINCT argument, group
-- and window (value -> bitmask of the calls that saw it) and plans two phases by default (the
-- local phase sends each window's map to the global one).
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x2 (
  g BIGINT,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  bids BIGINT,
  bidders BIGINT,
  auctions BIGINT,
  rich_bidders BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x2
SELECT auction % 100, window_start, window_end, COUNT(*), COUNT(DISTINCT bidder),
       COUNT(DISTINCT auction), COUNT(DISTINCT bidder) FILTER (WHERE price > 10000)
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY auction % 100, window_start, window_end;
