import { Counter, type Registry } from 'prom-client'

/** What running plugins measures, beside the drops counted in burrow_events_dropped_total (reason `plugin:<name>`). */
export function createPluginMetrics(registry: Registry) {
  const registers = [registry]
  return {
    pluginRuns: new Counter({
      name: 'burrow_plugin_runs_total',
      help: 'Transformation plugin runs on events, by plugin and outcome (succeeded, failed: threw, timed out or returned an invalid event)',
      labelNames: ['plugin', 'outcome'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'burrow_plugin_webhook_deliveries_total',
      help: 'Webhook requests, by outcome (delivered, retry, undeliverable)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    jobsRun: new Counter({
      name: 'burrow_plugin_jobs_total',
      help: 'Plugin jobs run, by outcome (done, failed, skipped)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  }
}

export type PluginMetrics = ReturnType<typeof createPluginMetrics>
