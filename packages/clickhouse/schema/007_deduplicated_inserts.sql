-- Each batch of events is inserted under a token recorded in the spool before the insert; a batch
-- inserted again after a crash carries the same token and is dropped if it was stored. The window
-- is how many recent insert blocks the table remembers: at a few inserts a second per instance,
-- hours of inserts, far longer than a restart takes.
ALTER TABLE events MODIFY SETTING non_replicated_deduplication_window = 100000;
