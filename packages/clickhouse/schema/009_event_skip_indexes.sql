-- Lookups that the sorting key does not serve: one event by its uuid, and the events of one
-- distinct id (the sorting key has the distinct id only after the day and the event name).
-- A granule of 8,192 rows holds a small share of a project's ids, so a bloom filter lets most
-- granules be skipped without reading them.
ALTER TABLE events ADD INDEX IF NOT EXISTS events_uuid_bloom uuid TYPE bloom_filter(0.001) GRANULARITY 1;

ALTER TABLE events ADD INDEX IF NOT EXISTS events_distinct_id_bloom distinct_id TYPE bloom_filter(0.01) GRANULARITY 1;

ALTER TABLE events MATERIALIZE INDEX events_uuid_bloom;

ALTER TABLE events MATERIALIZE INDEX events_distinct_id_bloom;
