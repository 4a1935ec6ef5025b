-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x3: DISTINCT aggregates in hopping event-time windows
-- -------------------------------------------------------------------------------------------------
-- Per auction group, every 2 seconds over the last 10 seconds of event time: the bids, the
-- distinct bidders and the distinct auctions. Flink keeps a map per DISTINCT argument, group and
-- 2-second slice (a count per value: its hopping aggregations count as if they consumed
-- retractions) and merges the five slices' maps of a window when it fires.
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x3 (
  g BIGINT,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  bids BIGINT,
  bidders BIGINT,
  auctions BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x3
SELECT auction % 100, window_start, window_end, COUNT(*), COUNT(DISTINCT bidder),
       COUNT(DISTINCT auction)
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY auction % 100, window_start, window_end;
