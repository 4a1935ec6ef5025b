-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x4: FIRST_VALUE / LAST_VALUE over a retracting input
-- -------------------------------------------------------------------------------------------------
-- Per auction: its highest bid so far, through FIRST_VALUE and LAST_VALUE over the changelog of
-- the aggregation that computes it (-U old maximum, +U new one), so that the outer aggregation
-- keeps Flink's two state-backed maps per auction (value -> orders, order -> values) and every
-- retraction removes the auction's value (a scan of its order map). Grouped by the inner key so
-- that each group's rows arrive in one order at any parallelism (FIRST_VALUE and LAST_VALUE over
-- several upstream subtasks depend on how they interleave).
-- -------------------------------------------------------------------------------------------------

CREATE TABLE nexmark_x4 (
  auction BIGINT,
  first_price BIGINT,
  last_price BIGINT,
  maxima BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x4
SELECT auction, FIRST_VALUE(price), LAST_VALUE(price), COUNT(*)
FROM (SELECT auction, MAX(price) AS price FROM bid GROUP BY auction)
GROUP BY auction;
