-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x6: DISTINCT aggregates in session windows
-- -------------------------------------------------------------------------------------------------
-- Per bidder and session of bids (no gap of 10 seconds, Nexmark q11's windows): the bids, the
-- distinct auctions and the distinct auctions bid on above 10,000. Flink keeps a map per state
-- window (value -> bitmask of the two calls sharing it) and merges a merged session's map into
-- the surviving one's.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x6 (
  bidder BIGINT,
  bid_count BIGINT,
  auctions BIGINT,
  big_auctions BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x6
SELECT B.bidder, COUNT(*), COUNT(DISTINCT B.auction),
       COUNT(DISTINCT B.auction) FILTER (WHERE B.price > 10000),
       SESSION_START(B.`dateTime`, INTERVAL '10' SECOND),
       SESSION_END(B.`dateTime`, INTERVAL '10' SECOND)
FROM bid B
GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND);
