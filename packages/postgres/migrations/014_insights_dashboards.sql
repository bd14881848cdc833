-- Saved insights as PostHog keeps them: a query (an InsightVizNode and the like), found by a
-- random short id in links; soft-deleted with `deleted`, never removed by the API.
CREATE TABLE insights (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  short_id text NOT NULL,
  name text,
  derived_name text,
  description text NOT NULL DEFAULT '',
  query jsonb,
  tags text[] NOT NULL DEFAULT '{}',
  favorited boolean NOT NULL DEFAULT false,
  saved boolean NOT NULL DEFAULT false,
  deleted boolean NOT NULL DEFAULT false,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_modified_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  last_modified_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, short_id)
);
CREATE INDEX insights_of_project ON insights (project_id, id);

CREATE TABLE dashboards (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text,
  description text NOT NULL DEFAULT '',
  pinned boolean NOT NULL DEFAULT false,
  deleted boolean NOT NULL DEFAULT false,
  creation_mode text NOT NULL DEFAULT 'default',
  -- PostHog's levels: 21 everyone in the project may edit, 37 only those invited.
  restriction_level smallint NOT NULL DEFAULT 21,
  tags text[] NOT NULL DEFAULT '{}',
  filters jsonb NOT NULL DEFAULT '{}',
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_accessed_at timestamptz
);
CREATE INDEX dashboards_of_project ON dashboards (project_id, id);

-- A tile shows an insight (or a text card) on a dashboard; an insight is on a dashboard once.
CREATE TABLE dashboard_tiles (
  id serial PRIMARY KEY,
  dashboard_id integer NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
  insight_id integer REFERENCES insights (id) ON DELETE CASCADE,
  text jsonb,
  layouts jsonb NOT NULL DEFAULT '{}',
  color text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (dashboard_id, insight_id)
);
CREATE INDEX dashboard_tiles_of_insight ON dashboard_tiles (insight_id);
