import { randomUUID } from 'node:crypto'
import { pluginLogEntries, toClickHouseDateTimeUs } from '@burrow/clickhouse'
import { PLUGIN_LOG_TYPES, problems, type Page, type PageQuery, type PluginLogEntry } from '@burrow/contracts'
import type { PluginConfigRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'

/** This server process, as log entries name the instance that wrote them. */
export const INSTANCE_ID = randomUUID()

/** Records what the system did with a plugin config, as an INFO entry of its log. */
export async function logSystemEvent(deps: CoreDeps, config: PluginConfigRow, message: string): Promise<void> {
  await pluginLogEntries.insertPluginLogEntries(deps.ch, [
    {
      id: randomUUID(),
      team_id: config.project_id,
      plugin_id: config.plugin_id,
      plugin_config_id: config.id,
      // Microseconds, so that entries written one after another keep their order.
      timestamp: toClickHouseDateTimeUs(Math.round((performance.timeOrigin + performance.now()) * 1000)),
      source: 'SYSTEM',
      type: 'INFO',
      message,
      instance_id: INSTANCE_ID,
    },
  ])
}

export interface LogQuery extends PageQuery {
  types?: string[] | undefined
  search?: string | undefined
  after?: string | undefined
  before?: string | undefined
}

const TYPES = new Set<string>(PLUGIN_LOG_TYPES)

export async function listLogEntries(deps: CoreDeps, config: PluginConfigRow, query: LogQuery): Promise<Page<PluginLogEntry>> {
  const types = query.types?.map((t) => t.toUpperCase())
  const unknown = types?.find((t) => !TYPES.has(t))
  if (unknown) throw problems.validation('type_filter', `"${unknown}" is not a valid choice.`, 'invalid_choice')
  for (const attr of ['after', 'before'] as const) {
    const value = query[attr]
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      throw problems.validation(attr, `${JSON.stringify(value)} is not a date and time.`)
    }
  }
  const { count, rows } = await pluginLogEntries.queryPluginLogEntries(deps.ch, {
    teamId: config.project_id,
    pluginConfigId: config.id,
    types,
    search: query.search,
    after: query.after,
    before: query.before,
    limit: query.limit,
    offset: query.offset,
  })
  return { count, limit: query.limit, offset: query.offset, results: rows as PluginLogEntry[] }
}
