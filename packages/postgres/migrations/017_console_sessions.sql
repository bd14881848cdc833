-- Signing in to the console. A password is kept apart from the users table, whose rows are read
-- with `select *` in many places: its hash never travels with a user row.
CREATE TABLE user_passwords (
  user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  -- An argon2id PHC string (algorithm, parameters, salt and hash).
  hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A signed-in browser. token_hash is the SHA-256 of the cookie's token, so that a copy of the
-- table does not sign anyone in; csrf_token is what the console sends back in a header with
-- every change it asks for.
CREATE TABLE user_sessions (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
CREATE INDEX user_sessions_expires_idx ON user_sessions (expires_at);
