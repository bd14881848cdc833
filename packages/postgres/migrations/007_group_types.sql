-- The group types a project's events name (`$groups: {company: ...}`), each with its index
-- (0 to 4, PostHog's limit of five), which group flags refer to.
CREATE TABLE group_type_mappings (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  group_type text NOT NULL,
  group_type_index smallint NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
  PRIMARY KEY (project_id, group_type),
  UNIQUE (project_id, group_type_index)
);
