-- A remote configuration flag: one payload (under "true") that SDKs fetch by the flag's key
-- (posthog-node's getRemoteConfigPayload) rather than a rollout to evaluate.
ALTER TABLE feature_flags ADD COLUMN is_remote_configuration boolean NOT NULL DEFAULT false;
