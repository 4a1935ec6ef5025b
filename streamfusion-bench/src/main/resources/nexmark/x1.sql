-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x1: MIN and MAX over a retracting input
-- -------------------------------------------------------------------------------------------------
-- The number of bids per auction, then per auction group the lowest and highest of those counts.
-- Every bid updates its auction's count, which the outer aggregation sees as a retraction of the
-- old count and an accumulation of the new one (MinWithRetract/MaxWithRetractAggFunction: a
-- count per value in state, and a scan of the group's values when its extreme is retracted).
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x1 (
  g BIGINT,
  lo BIGINT,
  hi BIGINT,
  n BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x1
SELECT auction % 1000, MIN(cnt), MAX(cnt), COUNT(*)
FROM (SELECT auction, COUNT(*) AS cnt FROM bid GROUP BY auction)
GROUP BY auction % 1000;
