-- StreamFusion benchmark query over the Nexmark sources (not a Nexmark query).
-- -------------------------------------------------------------------------------------------------
-- x7: MIN and MAX over an updating input in tumbling windows
-- -------------------------------------------------------------------------------------------------
-- Each bidder's latest bid (Flink's rowtime deduplication: a bidder's next bid retracts the
-- previous one, -U at its time, +U), then per auction group and 10 seconds of event time the
-- lowest and highest latest price and their count. Flink keeps a map per group and window
-- (price -> count, MinWithRetract/MaxWithRetractAggFunction) and scans it whole when a window's
-- extreme is retracted. One phase: two-phase MIN/MAX over an updating input is refused (its
-- partial accumulators depend on where Flink flushes its window buffer).
-- -------------------------------------------------------------------------------------------------

SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';

CREATE TEMPORARY VIEW latest_bid AS
SELECT auction, bidder, price, `dateTime`
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY `dateTime` DESC) AS rn FROM bid)
WHERE rn = 1;

CREATE TABLE nexmark_x7 (
  g BIGINT,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  lo BIGINT,
  hi BIGINT,
  bids BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_x7
SELECT auction % 100, window_start, window_end, MIN(price), MAX(price), COUNT(*)
FROM TABLE(TUMBLE(TABLE latest_bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY auction % 100, window_start, window_end;
