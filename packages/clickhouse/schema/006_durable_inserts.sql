-- An inserted part is synced to disk (its files and its directory) before the insert returns:
-- the spool deletes a segment once its rows are inserted, so the part must survive a host
-- crash or a full disk from then on.
ALTER TABLE events MODIFY SETTING fsync_after_insert = 1, fsync_part_directory = 1;

ALTER TABLE events_dead_letter_queue MODIFY SETTING fsync_after_insert = 1, fsync_part_directory = 1;
