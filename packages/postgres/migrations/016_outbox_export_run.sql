-- The historical export sends every event of its range, those the config delivered or queued
-- before included, and each once per run: a delivery remembers the export job that queued it
-- last, so that a run taken again after its server died does not send its events twice.
ALTER TABLE plugin_webhook_outbox ADD COLUMN export_job_id uuid;
