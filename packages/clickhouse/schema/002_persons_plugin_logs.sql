-- Persons as PostHog keeps them for joins: the latest row of an id (highest version) wins.
CREATE TABLE IF NOT EXISTS person
(
    id UUID,
    created_at DateTime64(3, 'UTC'),
    team_id Int64,
    properties String,
    is_identified Int8,
    is_deleted Int8 DEFAULT 0,
    version UInt64,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, id);

-- Which person a distinct id belongs to; the row of the highest version is the current mapping.
CREATE TABLE IF NOT EXISTS person_distinct_id2
(
    team_id Int64,
    distinct_id String,
    person_id UUID,
    is_deleted Int8 DEFAULT 0,
    version Int64 DEFAULT 0,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, distinct_id)
SETTINGS index_granularity = 512;

CREATE TABLE IF NOT EXISTS plugin_log_entries
(
    id UUID,
    team_id Int64,
    plugin_id Int64,
    plugin_config_id Int64,
    timestamp DateTime64(6, 'UTC'),
    source LowCardinality(String),
    type LowCardinality(String),
    message String,
    instance_id UUID,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(_timestamp)
PARTITION BY plugin_id
ORDER BY (team_id, plugin_config_id, timestamp, id)
TTL toDateTime(timestamp) + INTERVAL 1 WEEK
SETTINGS index_granularity = 512;
