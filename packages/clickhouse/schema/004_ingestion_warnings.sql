-- What users are told about events that were not stored as sent (PostHog's ingestion warnings):
-- the kind of problem, its details as JSON text, and when it happened.
CREATE TABLE IF NOT EXISTS ingestion_warnings
(
    team_id Int64,
    source LowCardinality(String),
    type LowCardinality(String),
    details String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    _timestamp DateTime DEFAULT now()
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, type, timestamp)
TTL toDateTime(timestamp) + INTERVAL 90 DAY;
