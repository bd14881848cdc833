-- The events list reads a project's newest events first, but the sorting key orders a day's rows
-- by event name, so the newest rows of a day are spread over all its granules: finding the
-- latest 100 read the whole day's timestamps, and their properties were read from as many
-- scattered places. This projection keeps the same rows (the columns a list shows, not the
-- materialised property columns added later) in time order, where the newest are the last few
-- granules of each part. Queries that it answers with fewer marks read it instead of the table.
--
-- A ReplacingMergeTree refuses a projection unless told what a merge that drops duplicate rows
-- does to it: it is built again from the merged rows. Deletes of persons' and projects' events
-- are mutations, which rebuild it with the part; a lightweight delete would rebuild it as well.
ALTER TABLE events MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild', lightweight_mutation_projection_mode = 'rebuild';

ALTER TABLE events ADD PROJECTION IF NOT EXISTS events_by_time
(
    SELECT team_id, timestamp, uuid, event, properties, distinct_id, elements_chain, person_id
    ORDER BY team_id, timestamp, uuid
);

-- The parts stored before this migration get it in the background (the embedded engine would
-- otherwise wait for it, holding up the service's start): until a part has it, the table is read.
ALTER TABLE events MATERIALIZE PROJECTION events_by_time SETTINGS mutations_sync = 0;
