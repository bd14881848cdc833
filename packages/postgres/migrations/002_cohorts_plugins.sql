CREATE TABLE cohorts (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text,
  description text NOT NULL DEFAULT '',
  groups jsonb NOT NULL DEFAULT '[]',
  filters jsonb,
  deleted boolean NOT NULL DEFAULT false,
  is_static boolean NOT NULL DEFAULT false,
  is_calculating boolean NOT NULL DEFAULT false,
  last_calculation timestamptz,
  errors_calculating integer NOT NULL DEFAULT 0,
  count integer,
  -- bumped by every change of the definition, so a calculation can tell it is stale
  version integer NOT NULL DEFAULT 0,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cohorts_project_idx ON cohorts (project_id, id);

-- plugin_id names a plugin of the built-in catalog; at most one live config per plugin and project.
CREATE TABLE plugin_configs (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  plugin_id integer NOT NULL,
  enabled boolean NOT NULL DEFAULT false,
  "order" integer NOT NULL DEFAULT 0,
  config jsonb NOT NULL DEFAULT '{}',
  error jsonb,
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX plugin_configs_live_idx ON plugin_configs (project_id, plugin_id) WHERE NOT deleted;

CREATE TABLE plugin_jobs (
  id uuid PRIMARY KEY,
  plugin_config_id integer NOT NULL REFERENCES plugin_configs (id) ON DELETE CASCADE,
  type text NOT NULL,
  operation text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'queued',
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plugin_jobs_queued_idx ON plugin_jobs (created_at) WHERE status = 'queued';
