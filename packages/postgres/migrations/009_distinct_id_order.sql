-- The order in which distinct ids joined their person: PostHog lists a person's distinct ids in
-- it (the first is the one shown for the person's events). A merge moves a row and keeps its id.
ALTER TABLE person_distinct_ids ADD COLUMN id bigserial;
CREATE INDEX person_distinct_ids_person_order_idx ON person_distinct_ids (person_id, id);
DROP INDEX person_distinct_ids_person_idx;
