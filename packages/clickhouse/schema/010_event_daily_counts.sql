-- How many events of each name a project had each day, and the latest one's time, kept up to
-- date as events are inserted: the event definitions' volumes and last-seen times read these few
-- rows instead of counting every event. A batch that ClickHouse drops as already stored (its
-- deduplication token seen) is not counted again: inserts into events deduplicate the blocks
-- they push to this view too (deduplicate_blocks_in_dependent_materialized_views), which needs a
-- deduplication window on this table as well.
CREATE TABLE IF NOT EXISTS event_daily_counts
(
    team_id Int64,
    event String,
    day Date,
    events SimpleAggregateFunction(sum, UInt64),
    last_seen SimpleAggregateFunction(max, DateTime64(6, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (team_id, event, day)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS event_daily_counts_mv TO event_daily_counts AS
SELECT team_id, event, toDate(timestamp) AS day, count() AS events, max(timestamp) AS last_seen
FROM events
GROUP BY team_id, event, day;

-- The events stored before this migration (the service inserts none while it migrates).
INSERT INTO event_daily_counts
SELECT team_id, event, toDate(timestamp) AS day, count() AS events, max(timestamp) AS last_seen
FROM events
GROUP BY team_id, event, day;
