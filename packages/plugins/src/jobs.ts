import { events as eventsTable } from '@burrow/clickhouse'
import { pluginConfigs, pluginWebhookOutbox, type PluginConfigRow, type PluginJobRow } from '@burrow/postgres'
import type { CoreDeps } from '@burrow/core'
import { catalogEntry, WEBHOOK_EXPORT } from './catalog'
import { logSystemEvent } from './logs'
import { eventFilter } from './webhook/request'

const LEASE_SECONDS = 120
/** Events read and queued per step of a historical export. */
const EXPORT_PAGE = 1000

type JobHandler = (deps: CoreDeps, config: PluginConfigRow, job: PluginJobRow, progress: () => Promise<void>) => Promise<string>

const HANDLERS: Record<number, Record<string, JobHandler>> = {
  [WEBHOOK_EXPORT]: { 'Export historical events': exportHistoricalEvents },
}

/**
 * Runs queued plugin jobs, each once: a server leases the oldest queued job in PostgreSQL (FOR
 * UPDATE SKIP LOCKED), keeps its lease while it runs, and records how it ended; a job whose
 * server died is taken again when its lease runs out. What happens is in the config's log.
 */
export class PluginJobRunner {
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined

  constructor(
    private readonly deps: CoreDeps,
    private readonly options: { pollMs: number; onOutcome?: (outcome: 'done' | 'failed' | 'skipped') => void; onQueued?: () => void },
  ) {}

  start(): void {
    this.running = true
    this.loop = this.run()
  }

  async stop(): Promise<void> {
    this.running = false
    this.wake?.()
    await this.loop
  }

  private async run(): Promise<void> {
    while (this.running) {
      let ran = false
      try {
        ran = await this.runNext()
      } catch (err) {
        this.deps.log('plugin job runner failed; trying again', err)
      }
      if (!ran && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs)
          this.wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.wake = undefined
      }
    }
  }

  /** Runs the next queued job, if any; answers whether there was one. */
  async runNext(): Promise<boolean> {
    const job = await pluginConfigs.leaseNextPluginJob(this.deps.sql, LEASE_SECONDS)
    if (!job) return false
    const config = await pluginConfigs.pluginConfigById(this.deps.sql, job.plugin_config_id)
    if (!config) {
      await pluginConfigs.finishPluginJob(this.deps.sql, job.id, { status: 'skipped', error: 'The config no longer exists' })
      return true
    }
    const finish = async (status: 'done' | 'failed' | 'skipped', message: string, type: 'INFO' | 'WARN' | 'ERROR') => {
      await pluginConfigs.finishPluginJob(this.deps.sql, job.id, { status, error: status === 'done' ? undefined : message })
      await logSystemEvent(this.deps, config, message, type)
      this.options.onOutcome?.(status)
    }
    if (!config.enabled || config.deleted) {
      await finish('skipped', `Job "${job.type}" skipped: the plugin is disabled.`, 'WARN')
      return true
    }
    if (job.operation !== 'start') {
      await finish('skipped', `Job "${job.type}": operation "${job.operation}" has nothing to act on.`, 'WARN')
      return true
    }
    const handler = HANDLERS[config.plugin_id]?.[job.type]
    if (!handler) {
      await finish(
        'failed',
        `Task "${job.type}" not found for plugin "${catalogEntry(config.plugin_id)?.name ?? config.plugin_id}"`,
        'ERROR',
      )
      return true
    }
    await logSystemEvent(this.deps, config, `Job "${job.type}" started.`)
    try {
      const summary = await handler(this.deps, config, job, () => pluginConfigs.extendPluginJobLease(this.deps.sql, job.id, LEASE_SECONDS))
      await finish('done', `Job "${job.type}" finished: ${summary}`, 'INFO')
      this.options.onQueued?.()
    } catch (err) {
      await finish('failed', `Job "${job.type}" failed: ${err instanceof Error ? err.message : String(err)}`, 'ERROR')
    }
    return true
  }
}

function dateOf(payload: Record<string, unknown>, key: string): string {
  const value = payload[key]
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new Error(`"${key}" is not a date`)
  return new Date(Date.parse(value)).toISOString()
}

/**
 * Webhook Export's job: every stored event of the project in [dateFrom, dateTo) through the same
 * outbox, in pages. As PostHog's, it sends the events the config delivered or queued before too:
 * the job exists to fill a destination that lost data or was added late. Each is sent once per run.
 */
async function exportHistoricalEvents(
  deps: CoreDeps,
  config: PluginConfigRow,
  job: PluginJobRow,
  progress: () => Promise<void>,
): Promise<string> {
  const from = dateOf(job.payload, 'dateFrom')
  const to = dateOf(job.payload, 'dateTo')
  if (from >= to) throw new Error(`dateFrom (${from}) must be before dateTo (${to})`)
  const only = eventFilter(config.config)
  let after: { timestamp: string; uuid: string } | undefined
  let read = 0
  let sent = 0
  let unwanted = 0
  for (;;) {
    const rows = await eventsTable.eventsInRange(deps.ch, { teamId: config.project_id, from, to, after, limit: EXPORT_PAGE })
    if (rows.length === 0) break
    const last = rows[rows.length - 1]!
    after = { timestamp: last.timestamp_raw, uuid: last.uuid }
    read += rows.length
    const wanted = rows.filter((r) => !only || only.has(r.event))
    unwanted += rows.length - wanted.length
    sent += await pluginWebhookOutbox.enqueueExport(
      deps.sql,
      job.id,
      wanted.map((r) => ({
        plugin_config_id: config.id,
        event_uuid: r.uuid,
        project_id: config.project_id,
        event: {
          uuid: r.uuid,
          event: r.event,
          distinct_id: r.distinct_id,
          properties: JSON.parse(r.properties) as Record<string, unknown>,
          timestamp: r.timestamp,
          team_id: config.project_id,
          person_id: r.person_id,
          elements_chain: r.elements_chain,
        },
      })),
    )
    await progress()
    await logSystemEvent(deps, config, `Export historical events: ${read} events read, ${sent} sent for delivery, up to ${last.timestamp}.`)
    if (rows.length < EXPORT_PAGE) break
  }
  return `${sent} events from ${from} to ${to} sent for delivery${unwanted > 0 ? ` (${unwanted} left out by the config's event filter)` : ''}.`
}
