-- Groups as PostHog's `groups` table keeps them: the row of a (type index, key) with the highest
-- version is the group's current state.
CREATE TABLE IF NOT EXISTS groups
(
    group_type_index UInt8,
    group_key String,
    created_at DateTime64(6, 'UTC'),
    team_id Int64,
    group_properties String,
    version UInt64,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, group_type_index, group_key);

-- The key of each group an event belongs to, by group type index, as PostHog's events columns
-- `$group_0` ... `$group_4`, read from the properties ingestion gives the event.
ALTER TABLE events ADD COLUMN IF NOT EXISTS `$group_0` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_0'), '^"|"$', '');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `$group_1` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_1'), '^"|"$', '');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `$group_2` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_2'), '^"|"$', '');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `$group_3` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_3'), '^"|"$', '');
ALTER TABLE events ADD COLUMN IF NOT EXISTS `$group_4` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '$group_4'), '^"|"$', '');
