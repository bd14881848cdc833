-- Actions as PostHog keeps them: a named selection of events, its steps (ORed) kept together as
-- JSON as PostHog's `steps_json` is, each with every field of a step so readers need no defaults.
-- Soft-deleted with `deleted`, never removed by the API.
CREATE TABLE actions (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text,
  description text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  steps jsonb NOT NULL DEFAULT '[]',
  post_to_slack boolean NOT NULL DEFAULT false,
  slack_message_format text NOT NULL DEFAULT '',
  deleted boolean NOT NULL DEFAULT false,
  pinned_at timestamptz,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- PostHog's field from before ClickHouse, still answered: the time the action was made.
  last_calculated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX actions_of_project ON actions (project_id, id);
-- PostHog refuses a second live action of a name in a project; the index closes the race between
-- its check and the write. Unnamed actions are left to the check, as nulls never collide here.
CREATE UNIQUE INDEX actions_live_name ON actions (project_id, name) WHERE NOT deleted;
