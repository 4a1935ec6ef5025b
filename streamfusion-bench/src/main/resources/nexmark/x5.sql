-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x5: DISTINCT aggregates in cumulating event-time windows
-- -------------------------------------------------------------------------------------------------
-- Per auction group, every 2 seconds since the start of the current 10 seconds of event time:
-- the bids, the distinct bidders and the distinct auctions. Flink keeps a map per DISTINCT
-- argument, group and 2-second slice (a count per value) and, when a step fires, merges the
-- step's map into the first slice's.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x5 (
  g BIGINT,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  bids BIGINT,
  bidders BIGINT,
  auctions BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x5
SELECT auction % 100, window_start, window_end, COUNT(*), COUNT(DISTINCT bidder),
       COUNT(DISTINCT auction)
FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY auction % 100, window_start, window_end;
