import { clickHouseDateTimeToIso } from '@burrow/clickhouse'
import type { CoreDeps } from '@burrow/core'
import { plugins } from '@burrow/plugins'
import { pluginWebhookOutbox, type OutboxEntry } from '@burrow/postgres'
import type { FrameContent } from '@burrow/spool'

interface StoredRow {
  uuid: string
  event: string
  distinct_id: string
  properties: Record<string, unknown> | string
  timestamp: string
  elements_chain: string
  person_id: string
}

/**
 * Queues the stored events of projects with an enabled destination in the webhook outbox, after
 * they are in ClickHouse and before the spool moves past them. Frames of other projects are not
 * read. While PostgreSQL refuses the deliveries this fails, and the batch stays in the spool to
 * be stored and queued again (ClickHouse drops the second copy, the outbox keeps one delivery per
 * config and event): a crash or an outage never loses a delivery.
 */
export class DestinationStage {
  constructor(
    private readonly deps: Pick<CoreDeps, 'sql'>,
    private readonly resolver: plugins.PluginConfigsResolver,
    private readonly onQueued: () => void,
  ) {}

  async afterStored(frames: FrameContent[]): Promise<void> {
    const all = await this.resolver.all()
    if (all.size === 0) return
    const entries: OutboxEntry[] = []
    for (const frame of frames) {
      const destinations = all.get(frame.teamId)?.destinations
      if (!destinations || destinations.length === 0) continue
      const configs = destinations.map((config) => ({ id: config.id, only: plugins.webhookEventFilter(config.config) }))
      for (const row of rowsOf(frame)) {
        for (const config of configs) {
          if (config.only && !config.only.has(row.event)) continue
          entries.push({
            plugin_config_id: config.id,
            event_uuid: row.uuid,
            project_id: frame.teamId,
            event: {
              uuid: row.uuid,
              event: row.event,
              distinct_id: row.distinct_id,
              properties: typeof row.properties === 'string' ? (JSON.parse(row.properties) as Record<string, unknown>) : row.properties,
              timestamp: clickHouseDateTimeToIso(row.timestamp),
              team_id: frame.teamId,
              person_id: row.person_id,
              elements_chain: row.elements_chain,
            },
          })
        }
      }
    }
    if (entries.length === 0) return
    for (let i = 0; i < entries.length; i += 1000) await pluginWebhookOutbox.enqueueDeliveries(this.deps.sql, entries.slice(i, i + 1000))
    this.onQueued()
  }
}

function* rowsOf(frame: FrameContent): Generator<StoredRow> {
  const text = frame.body.toString('utf8')
  let start = 0
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end < 0 ? text.length : end)
    start = end < 0 ? text.length : end + 1
    if (line === '') continue
    try {
      yield JSON.parse(line) as StoredRow
    } catch {
      // Not a row this service wrote: nothing to send.
    }
  }
}
