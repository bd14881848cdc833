-- What a new database gets on a cluster (CLICKHOUSE_CLUSTER=burrow, CLICKHOUSE_DATABASE=analytics):
-- the migrations of packages/clickhouse/schema as packages/clickhouse/src/layout.ts lays them out.
-- Generated and checked by layout.test.ts (vitest -u rewrites it after a schema change).

CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER burrow
(name String, applied_at DateTime DEFAULT now())
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.schema_migrations', '{shard}-{replica}') ORDER BY name;

CREATE TABLE IF NOT EXISTS events_local ON CLUSTER burrow
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/analytics.events_local', '{replica}', inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
SETTINGS replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS events ON CLUSTER burrow AS events_local
ENGINE = Distributed(burrow, analytics, events_local, sipHash64(distinct_id));

CREATE TABLE IF NOT EXISTS events_dead_letter_queue ON CLUSTER burrow
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.events_dead_letter_queue', '{shard}-{replica}', _timestamp)
ORDER BY (id, event_uuid, distinct_id, team_id)
TTL toDate(_timestamp) + INTERVAL 4 WEEK
SETTINGS index_granularity = 512;

CREATE TABLE IF NOT EXISTS person ON CLUSTER burrow
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.person', '{shard}-{replica}', version)
ORDER BY (team_id, id);

CREATE TABLE IF NOT EXISTS person_distinct_id2 ON CLUSTER burrow
(
    team_id Int64,
    distinct_id String,
    person_id UUID,
    is_deleted Int8 DEFAULT 0,
    version Int64 DEFAULT 0,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.person_distinct_id2', '{shard}-{replica}', version)
ORDER BY (team_id, distinct_id)
SETTINGS index_granularity = 512;

CREATE TABLE IF NOT EXISTS plugin_log_entries ON CLUSTER burrow
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.plugin_log_entries', '{shard}-{replica}', _timestamp)
PARTITION BY plugin_id
ORDER BY (team_id, plugin_config_id, timestamp, id)
TTL toDateTime(timestamp) + INTERVAL 1 WEEK
SETTINGS index_granularity = 512;

CREATE TABLE IF NOT EXISTS cohortpeople ON CLUSTER burrow
(
    person_id UUID,
    cohort_id Int64,
    team_id Int64,
    version UInt64,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.cohortpeople', '{shard}-{replica}', _timestamp)
ORDER BY (team_id, cohort_id, version, person_id);

CREATE TABLE IF NOT EXISTS ingestion_warnings ON CLUSTER burrow
(
    team_id Int64,
    source LowCardinality(String),
    type LowCardinality(String),
    details String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/noshard/analytics.ingestion_warnings', '{shard}-{replica}')
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, type, timestamp)
TTL toDateTime(timestamp) + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS groups ON CLUSTER burrow
(
    group_type_index UInt8,
    group_key String,
    created_at DateTime64(6, 'UTC'),
    team_id Int64,
    group_properties String,
    version UInt64,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics.groups', '{shard}-{replica}', version)
ORDER BY (team_id, group_type_index, group_key);

ALTER TABLE events_local ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_0` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_0'), '^"|"$', '');

ALTER TABLE events ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_0` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_0'), '^"|"$', '');

ALTER TABLE events_local ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_1` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_1'), '^"|"$', '');

ALTER TABLE events ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_1` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_1'), '^"|"$', '');

ALTER TABLE events_local ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_2` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_2'), '^"|"$', '');

ALTER TABLE events ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_2` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_2'), '^"|"$', '');

ALTER TABLE events_local ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_3` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_3'), '^"|"$', '');

ALTER TABLE events ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_3` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_3'), '^"|"$', '');

ALTER TABLE events_local ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_4` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_4'), '^"|"$', '');

ALTER TABLE events ON CLUSTER burrow ADD COLUMN IF NOT EXISTS `$group_4` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_4'), '^"|"$', '');

ALTER TABLE events_local ON CLUSTER burrow MODIFY SETTING fsync_after_insert = 1, fsync_part_directory = 1;

ALTER TABLE events_dead_letter_queue ON CLUSTER burrow MODIFY SETTING fsync_after_insert = 1, fsync_part_directory = 1;

ALTER TABLE events_local ON CLUSTER burrow MODIFY SETTING replicated_deduplication_window = 100000;

ALTER TABLE events_local ON CLUSTER burrow ADD INDEX IF NOT EXISTS events_uuid_bloom uuid TYPE bloom_filter(0.001) GRANULARITY 1;

ALTER TABLE events_local ON CLUSTER burrow ADD INDEX IF NOT EXISTS events_distinct_id_bloom distinct_id TYPE bloom_filter(0.01) GRANULARITY 1;

ALTER TABLE events_local ON CLUSTER burrow MATERIALIZE INDEX events_uuid_bloom;

ALTER TABLE events_local ON CLUSTER burrow MATERIALIZE INDEX events_distinct_id_bloom;

CREATE TABLE IF NOT EXISTS event_daily_counts_local ON CLUSTER burrow
(
    team_id Int64,
    event String,
    day Date,
    events SimpleAggregateFunction(sum, UInt64),
    last_seen SimpleAggregateFunction(max, DateTime64(6, 'UTC'))
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/analytics.event_daily_counts_local', '{replica}')
ORDER BY (team_id, event, day)
SETTINGS replicated_deduplication_window = 100000;

CREATE TABLE IF NOT EXISTS event_daily_counts ON CLUSTER burrow AS event_daily_counts_local
ENGINE = Distributed(burrow, analytics, event_daily_counts_local, sipHash64(team_id, event));

CREATE MATERIALIZED VIEW IF NOT EXISTS event_daily_counts_mv ON CLUSTER burrow TO event_daily_counts_local AS SELECT team_id, event, toDate(timestamp) AS day, count() AS events, max(timestamp) AS last_seen
FROM events_local
GROUP BY team_id, event, day;

INSERT INTO event_daily_counts
SELECT team_id, event, toDate(timestamp) AS day, count() AS events, max(timestamp) AS last_seen
FROM events
GROUP BY team_id, event, day;
