-- Personal API keys as PostHog scopes them: the scopes a key carries ('*' for all, or
-- '<object>:read' / '<object>:write'), and the projects or organizations it is limited to
-- (null: every one its user belongs to). A key created before this migration keeps full access.
ALTER TABLE personal_api_keys
  ADD COLUMN scopes text[] NOT NULL DEFAULT '{*}',
  ADD COLUMN scoped_teams integer[],
  ADD COLUMN scoped_organizations text[],
  ADD COLUMN last_rolled_at timestamptz;
CREATE INDEX personal_api_keys_user_idx ON personal_api_keys (user_id, created_at DESC);

-- A membership has an id of its own (PostHog's membership `id`) and the time of its last change.
ALTER TABLE organization_memberships
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- An invitation to join an organization at a level; accepted by the user of its email.
CREATE TABLE organization_invites (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  target_email text NOT NULL,
  first_name text NOT NULL DEFAULT '',
  level smallint NOT NULL DEFAULT 1,
  message text,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_invites_org_idx ON organization_invites (organization_id, created_at DESC);
CREATE INDEX organization_invites_email_idx ON organization_invites (organization_id, lower(target_email));
