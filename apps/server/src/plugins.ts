import type { Config } from '@burrow/config'
import type { CoreDeps } from '@burrow/core'
import { plugins } from '@burrow/plugins'
import { createPluginMetrics, DestinationStage, transformFrames, type PluginMetrics } from '@burrow/ingestion'
import { pluginWebhookOutbox } from '@burrow/postgres'
import type { FrameContent } from '@burrow/spool'
import { Gauge, type Counter, type Registry } from 'prom-client'
import { refreshedInBackground } from './observability/serviceMetrics'

/** What runs on events: the projects' transformations before they are stored, their destinations after. */
export interface PluginStages {
  resolver: plugins.PluginConfigsResolver
  /** Runs the projects' transformations on a batch (before groups and persons). */
  transform: (frames: FrameContent[]) => Promise<FrameContent[]>
  /** Queues the stored batch's events for the projects' destinations. */
  afterStored: (frames: FrameContent[]) => Promise<void>
  /** Writes what the stages counted and logged. */
  stop: () => Promise<void>
}

/** The plugins of this server: the stages, and the webhook sender and jobs that work off what they queue. */
export type PluginRuntime = PluginStages

/** Delivered rows are kept this long: they only stop a batch stored again from sending its events twice. */
const DELIVERED_KEPT_DAYS = 7

/**
 * The transformations and the destination queue alone, as replaying dead letters runs them in a
 * command: the events queued for destinations are sent by the servers' webhook senders.
 */
export function pluginStages(
  config: Config,
  deps: CoreDeps,
  registry: Registry,
  eventsDropped: Counter<'reason'>,
  queued: () => void = () => {},
): PluginStages & { appMetrics: plugins.AppMetrics; metrics: PluginMetrics } {
  if (config.TEST_PLUGINS) plugins.enableTestPlugins()
  const geoIp = new plugins.GeoIpDatabase(config.GEOIP_DATABASE)
  const resolver = new plugins.PluginConfigsResolver(deps, { geoIp: () => geoIp.get(), geoIpReady: () => geoIp.ready() })
  const appMetrics = new plugins.AppMetrics(deps.sql, { flushMs: config.PLUGIN_METRICS_FLUSH_MS, log: deps.log })
  appMetrics.start()
  const metrics = createPluginMetrics(registry)
  const stage = {
    deps,
    resolver,
    appMetrics,
    logs: new plugins.PluginLogBuffer(),
    budgetMs: config.PLUGIN_EVENT_TIMEOUT_MS,
    eventsDropped,
    pluginRuns: metrics.pluginRuns,
  }
  const destinations = new DestinationStage(deps, resolver, queued)
  return {
    resolver,
    appMetrics,
    metrics,
    transform: (frames) => transformFrames(stage, frames),
    afterStored: (frames) => destinations.afterStored(frames),
    stop: () => withinStopBudget(Promise.all([appMetrics.stop(), stage.logs.flush(deps)])).then(() => undefined),
  }
}

export function startPluginRuntime(config: Config, deps: CoreDeps, registry: Registry, eventsDropped: Counter<'reason'>): PluginRuntime {
  let poke = () => {}
  const stages = pluginStages(config, deps, registry, eventsDropped, () => poke())
  const { appMetrics, metrics } = stages
  // At 0 from the start, so that alerts on their increase have a series to read.
  for (const outcome of ['delivered', 'retry', 'undeliverable'] as const) metrics.webhookDeliveries.inc({ outcome }, 0)
  for (const outcome of ['done', 'failed', 'skipped'] as const) metrics.jobsRun.inc({ outcome }, 0)
  const sender = new plugins.WebhookSender(deps, appMetrics, new plugins.PluginLogBuffer(), {
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    allowPrivateAddresses: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
    disableAfterS: config.WEBHOOK_DISABLE_AFTER_S,
    onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
  })
  sender.start()
  poke = () => sender.poke()
  const jobs = new plugins.PluginJobRunner(deps, {
    pollMs: 1000,
    onOutcome: (outcome) => metrics.jobsRun.inc({ outcome }),
    onQueued: () => sender.poke(),
  })
  jobs.start()
  const stopOutboxGauge = registerOutboxGauge(registry, deps)
  const prune = setInterval(
    () =>
      void pluginWebhookOutbox
        .pruneDelivered(deps.sql, DELIVERED_KEPT_DAYS)
        .catch((err: unknown) => deps.log('could not prune the webhook outbox', err)),
    60 * 60 * 1000,
  )
  prune.unref()
  return {
    resolver: stages.resolver,
    transform: stages.transform,
    afterStored: stages.afterStored,
    async stop() {
      clearInterval(prune)
      stopOutboxGauge()
      // With PostgreSQL down these would wait for its connection timeout: a stop takes a bounded
      // time, and the metrics and log lines not written by then are given up (deliveries stay in the outbox).
      await withinStopBudget(Promise.all([jobs.stop(), sender.stop()]))
      await stages.stop()
    },
  }
}

/** Webhook deliveries waiting (pending) and given up (failed, kept for a replay), counted in the background. Answers its stop. */
function registerOutboxGauge(registry: Registry, deps: CoreDeps): () => void {
  const counts = refreshedInBackground(() => pluginWebhookOutbox.outboxCounts(deps.sql), {
    intervalMs: OUTBOX_COUNT_EVERY_MS,
    timeoutMs: 5_000,
  })
  new Gauge({
    name: 'burrow_plugin_webhook_outbox',
    help: 'Webhook deliveries in the outbox, by status (pending: to send or retry; failed: refused by the endpoint, kept for a replay)',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      const last = counts.value()
      if (!last) return
      this.set({ status: 'pending' }, last.pending)
      this.set({ status: 'failed' }, last.failed)
    },
  })
  return counts.stop
}

/** How often the outbox is counted: a scrape reads the last count (PostgreSQL down must not hold /_metrics). */
const OUTBOX_COUNT_EVERY_MS = 10_000

/** How long the plugins' stop may take. */
const STOP_STEP_MS = 300

/** Waits for `work` at most STOP_STEP_MS; a failure is not the stop's failure. */
function withinStopBudget(work: Promise<unknown>): Promise<unknown> {
  return Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, STOP_STEP_MS).unref())])
}
