-- Modelled on PostHog's events table. ReplacingMergeTree collapses rows with the same sorting
-- key (which ends in the event uuid), so a batch stored twice is counted once after merges.
CREATE TABLE IF NOT EXISTS events
(
    uuid UUID,
    event String,
    properties String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    team_id Int64,
    distinct_id String,
    elements_chain String,
    created_at DateTime64(6, 'UTC'),
    person_id UUID,
    inserted_at DateTime64(6, 'UTC') DEFAULT now64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS events_dead_letter_queue
(
    id UUID,
    event_uuid UUID,
    event String,
    properties String,
    distinct_id String,
    team_id Int64,
    elements_chain String,
    created_at DateTime64(6, 'UTC'),
    ip String,
    site_url String,
    now DateTime64(6, 'UTC'),
    raw_payload String,
    error_timestamp DateTime64(6, 'UTC'),
    error_location String,
    error String,
    tags Array(String),
    _timestamp DateTime DEFAULT now(),
    _offset UInt64 DEFAULT 0
)
ENGINE = ReplacingMergeTree(_timestamp)
ORDER BY (id, event_uuid, distinct_id, team_id)
TTL toDate(_timestamp) + INTERVAL 4 WEEK
SETTINGS index_granularity = 512;
