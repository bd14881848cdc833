-- Cookieless server hash mode, as PostHog names it: 0 off (events of the cookieless sentinel
-- distinct id are dropped), 1 stateless, 2 stateful. With it on, capture replaces the sentinel
-- with a hash of the day's salt, the visitor's address, user agent and the site's host.
ALTER TABLE projects ADD COLUMN cookieless_server_hash_mode smallint NOT NULL DEFAULT 0
  CHECK (cookieless_server_hash_mode IN (0, 1, 2));
