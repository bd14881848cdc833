CREATE TABLE feature_flags (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key text NOT NULL,
  name text NOT NULL DEFAULT '',
  filters jsonb NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  deleted boolean NOT NULL DEFAULT false,
  ensure_experience_continuity boolean NOT NULL DEFAULT false,
  version integer NOT NULL DEFAULT 1,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A key names one live flag per project; deleted flags keep theirs until a new flag takes it.
CREATE UNIQUE INDEX feature_flags_live_key_idx ON feature_flags (project_id, key) WHERE NOT deleted;
CREATE INDEX feature_flags_project_idx ON feature_flags (project_id, created_at DESC);
