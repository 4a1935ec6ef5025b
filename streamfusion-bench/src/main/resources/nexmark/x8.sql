-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x8: MIN and MAX over an updating input in session windows
-- -------------------------------------------------------------------------------------------------
-- Each bidder's latest bid (Flink's rowtime deduplication: a bidder's next bid retracts the
-- previous one, -U at its time, +U), then per auction and session of bids (no gap of 10 seconds)
-- the lowest and highest latest price and their count. Flink keeps a map per state window
-- (price -> count, MinWithRetract/MaxWithRetractAggFunction), merges a merged session's map into
-- the surviving one's and scans a map whole when its extreme is retracted; a retraction of a bid
-- on another auction lands in that auction's session. Results vary between stock runs: which
-- bids the deduplication emits before retracting them (a bid older than its bidder's latest is
-- ignored) depends on how the source subtasks' bids interleave, and retracted bids extend their
-- sessions too, so sessions start and end elsewhere; the runner reports the results UNVERIFIED
-- (stock differs from itself). Parity is the tests' (deterministic changelogs).
-- -------------------------------------------------------------------------------------------------

CREATE TEMPORARY VIEW latest_bid AS
SELECT auction, bidder, price, `dateTime`
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY `dateTime` DESC) AS rn FROM bid)
WHERE rn = 1;

CREATE TABLE nexmark_x8 (
  auction BIGINT,
  window_end TIMESTAMP(3),
  lo BIGINT,
  hi BIGINT,
  bids BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x8
SELECT auction, window_end, MIN(price), MAX(price), COUNT(*)
FROM TABLE(SESSION(TABLE latest_bid PARTITION BY auction, DESCRIPTOR(`dateTime`),
                   INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end;
