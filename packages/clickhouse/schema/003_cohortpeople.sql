-- Members of each cohort: a dynamic cohort's calculation inserts its members under a new
-- version, a static cohort's list is copied here; readers take the cohort's current version.
CREATE TABLE IF NOT EXISTS cohortpeople
(
    person_id UUID,
    cohort_id Int64,
    team_id Int64,
    version UInt64,
    _timestamp DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(_timestamp)
ORDER BY (team_id, cohort_id, version, person_id);
