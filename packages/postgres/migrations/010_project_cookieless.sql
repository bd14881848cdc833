-- Cookieless server hash mode, as PostHog names it: 0 off (events of the cookieless sentinel
-- distinct id are dropped), 1 stateless, 2 stateful. With it on, capture replaces the sentinel
-- with a hash of the day's salt, the visitor's address, user agent and the site's host.
ALTER TABLE projects ADD COLUMN cookieless_server_hash_mode smallint NOT NULL DEFAULT 0
  CHECK (cookieless_server_hash_mode IN (0, 1, 2));

-- The daily salts of cookieless hashes, one per calendar day, shared by every instance. A salt
-- is deleted once no event can be of its day any more, so the hashes cannot be reversed.
CREATE TABLE cookieless_salts (
  day text PRIMARY KEY,
  salt bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
