-- The people a project tracks: the source of truth; ClickHouse holds copies for joins.
-- version grows with every change, so ClickHouse keeps the latest row of each person.
CREATE TABLE persons (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  properties jsonb NOT NULL DEFAULT '{}',
  is_identified boolean NOT NULL DEFAULT false,
  version bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- when the properties last changed: on a merge, the later-written person's values win
  properties_updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX persons_project_idx ON persons (project_id, id);

-- Versions of distinct id mappings come from one sequence, so that every change of a mapping
-- (creation, move, deletion, creation again after a deletion) outranks all earlier ones in
-- ClickHouse, which keeps the highest version of each distinct id.
CREATE SEQUENCE person_distinct_id_versions;

-- Each distinct id of a project belongs to one person: the unique key is what keeps two
-- servers that see a new distinct id at once from creating two persons.
CREATE TABLE person_distinct_ids (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  distinct_id text NOT NULL,
  person_id bigint NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  version bigint NOT NULL DEFAULT nextval('person_distinct_id_versions'),
  PRIMARY KEY (project_id, distinct_id)
);
CREATE INDEX person_distinct_ids_person_idx ON person_distinct_ids (person_id);

-- The members of static cohorts, as uploaded (feature flags read them here); ClickHouse's
-- cohortpeople holds a copy next to the calculated members of dynamic cohorts.
CREATE TABLE cohort_people (
  cohort_id integer NOT NULL REFERENCES cohorts (id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  PRIMARY KEY (cohort_id, person_id)
);
CREATE INDEX cohort_people_person_idx ON cohort_people (person_id);
