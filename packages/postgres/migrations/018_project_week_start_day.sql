-- The day a project's weeks start on, as PostHog's team setting: 0 Sunday, 1 Monday; null is
-- PostHog's default, Sunday. Queries count weeks from it.
ALTER TABLE projects ADD COLUMN week_start_day smallint CHECK (week_start_day IN (0, 1));
