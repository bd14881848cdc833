CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id serial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  distinct_id text NOT NULL UNIQUE,
  email text NOT NULL UNIQUE,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  is_active boolean NOT NULL DEFAULT true,
  current_organization_id uuid REFERENCES organizations (id) ON DELETE SET NULL,
  current_project_id integer,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- level: 1 member, 8 admin, 15 owner (PostHog's OrganizationMembership levels)
CREATE TABLE organization_memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  level smallint NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_memberships_user_idx ON organization_memberships (user_id);

-- secure_value is 'sha256$' + hex digest of the key: the key itself is never stored.
CREATE TABLE personal_api_keys (
  id uuid PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  label text NOT NULL,
  secure_value text NOT NULL UNIQUE,
  mask_value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);

CREATE TABLE projects (
  id serial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  api_token text NOT NULL UNIQUE,
  name text NOT NULL,
  app_urls jsonb NOT NULL DEFAULT '[]',
  chat_incoming_webhook text,
  anonymize_ips boolean NOT NULL DEFAULT false,
  completed_snippet_onboarding boolean NOT NULL DEFAULT false,
  ingested_event boolean NOT NULL DEFAULT false,
  test_account_filters jsonb NOT NULL DEFAULT '[]',
  test_account_filters_default_checked boolean NOT NULL DEFAULT false,
  path_cleaning_filters jsonb NOT NULL DEFAULT '[]',
  is_demo boolean NOT NULL DEFAULT false,
  timezone text NOT NULL DEFAULT 'UTC',
  data_attributes jsonb NOT NULL DEFAULT '["data-attr"]',
  person_display_name_properties jsonb NOT NULL DEFAULT '["email", "name", "username"]',
  correlation_config jsonb NOT NULL DEFAULT '{}',
  session_recording_opt_in boolean NOT NULL DEFAULT false,
  capture_console_log_opt_in boolean NOT NULL DEFAULT false,
  access_control boolean NOT NULL DEFAULT false,
  primary_dashboard integer,
  live_events_columns jsonb,
  recording_domains jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_organization_idx ON projects (organization_id);

ALTER TABLE users
  ADD CONSTRAINT users_current_project_fk FOREIGN KEY (current_project_id) REFERENCES projects (id) ON DELETE SET NULL;

CREATE TABLE event_definitions (
  id uuid PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  owner_id integer REFERENCES users (id) ON DELETE SET NULL,
  description text NOT NULL DEFAULT '',
  tags jsonb NOT NULL DEFAULT '[]',
  verified boolean NOT NULL DEFAULT false,
  verified_at timestamptz,
  verified_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  post_to_chat boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  last_seen_at timestamptz,
  UNIQUE (project_id, name)
);
