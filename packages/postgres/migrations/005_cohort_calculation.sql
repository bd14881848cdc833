-- A calculation of a cohort takes the next pending_version and stores its members in
-- ClickHouse under it; members_version names the newest calculation that finished, the one
-- readers use. calculation_started_at lets one server at a time claim a periodic calculation.
ALTER TABLE cohorts
  ADD COLUMN pending_version integer NOT NULL DEFAULT 0,
  ADD COLUMN members_version integer,
  ADD COLUMN calculation_started_at timestamptz;
