-- Experience continuity: the id a person's continuity flags are bucketed by (the anonymous id
-- they started with), per flag key; the first override written wins.
CREATE TABLE feature_flag_hash_key_overrides (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  feature_flag_key text NOT NULL,
  hash_key text NOT NULL,
  PRIMARY KEY (person_id, feature_flag_key)
);
