-- Groups as PostHog keeps them: one row per (type index, key) of a project, its properties set
-- by `$groupidentify` events, and a version that orders its copies in ClickHouse.
CREATE TABLE groups (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  group_type_index smallint NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
  group_key text NOT NULL,
  group_properties jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, group_type_index, group_key)
);
CREATE INDEX groups_by_creation ON groups (project_id, group_type_index, created_at DESC);

-- What PostHog's group types resource shows beside the type and its index.
ALTER TABLE group_type_mappings
  ADD COLUMN name_singular text,
  ADD COLUMN name_plural text,
  ADD COLUMN default_columns jsonb,
  ADD COLUMN created_at timestamptz DEFAULT now();

-- Early access features, each backed by a feature flag whose enrolment condition lets users
-- opt in; one feature per flag.
CREATE TABLE early_access_features (
  id uuid PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  feature_flag_id integer REFERENCES feature_flags (id) ON DELETE SET NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  stage text NOT NULL,
  documentation_url text NOT NULL DEFAULT '',
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX early_access_features_of_project ON early_access_features (project_id, created_at);
CREATE UNIQUE INDEX early_access_features_one_per_flag ON early_access_features (feature_flag_id);
