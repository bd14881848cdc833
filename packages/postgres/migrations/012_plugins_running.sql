-- App metrics of plugin configs, summed per hour and category (processEvent, onEvent, webhook, scheduledTask).
CREATE TABLE plugin_app_metrics (
  plugin_config_id integer NOT NULL REFERENCES plugin_configs (id) ON DELETE CASCADE,
  category text NOT NULL,
  hour timestamptz NOT NULL,
  successes bigint NOT NULL DEFAULT 0,
  successes_on_retry bigint NOT NULL DEFAULT 0,
  failures bigint NOT NULL DEFAULT 0,
  last_error text,
  last_error_at timestamptz,
  PRIMARY KEY (plugin_config_id, category, hour)
);
CREATE INDEX plugin_app_metrics_hour_idx ON plugin_app_metrics (hour);

-- Webhook deliveries: one row per (config, event), so a batch stored again after a crash adds nothing.
-- A sender leases a row (leased_until) before sending it; rows past their lease are free again.
CREATE TABLE plugin_webhook_outbox (
  plugin_config_id integer NOT NULL REFERENCES plugin_configs (id) ON DELETE CASCADE,
  event_uuid uuid NOT NULL,
  project_id integer NOT NULL,
  event jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  PRIMARY KEY (plugin_config_id, event_uuid)
);
CREATE INDEX plugin_webhook_outbox_due_idx ON plugin_webhook_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX plugin_webhook_outbox_done_idx ON plugin_webhook_outbox (delivered_at) WHERE status = 'delivered';

-- Jobs run once: a server leases a queued job, runs it, and records how it ended.
ALTER TABLE plugin_jobs
  ADD COLUMN leased_until timestamptz,
  ADD COLUMN started_at timestamptz,
  ADD COLUMN finished_at timestamptz,
  ADD COLUMN error text;
