import { randomUUID } from 'node:crypto'
import { pluginLogEntries, toClickHouseDateTimeUs, type PluginLogRow } from '@burrow/clickhouse'
import { PLUGIN_LOG_TYPES, problems, type Page, type PageQuery, type PluginLogEntry } from '@burrow/contracts'
import type { PluginConfigRow } from '@burrow/postgres'
import type { CoreDeps } from '@burrow/core'

/** This server process, as log entries name the instance that wrote them. */
export const INSTANCE_ID = randomUUID()

export type LogSource = 'SYSTEM' | 'PLUGIN' | 'CONSOLE'
export type LogType = 'DEBUG' | 'LOG' | 'INFO' | 'WARN' | 'ERROR'
type ConfigRef = Pick<PluginConfigRow, 'id' | 'project_id' | 'plugin_id'>

function logRow(config: ConfigRef, source: LogSource, type: LogType, message: string): PluginLogRow {
  return {
    id: randomUUID(),
    team_id: config.project_id,
    plugin_id: config.plugin_id,
    plugin_config_id: config.id,
    // Microseconds, so that entries written one after another keep their order.
    timestamp: toClickHouseDateTimeUs(Math.round((performance.timeOrigin + performance.now()) * 1000)),
    source,
    type,
    message,
    instance_id: INSTANCE_ID,
  }
}

/** Records what the system did with a plugin config, as an entry of its log (INFO unless said). */
export async function logSystemEvent(deps: CoreDeps, config: ConfigRef, message: string, type: LogType = 'INFO'): Promise<void> {
  await pluginLogEntries.insertPluginLogEntries(deps.ch, [logRow(config, 'SYSTEM', type, message)])
}

/** Log entries kept per config and minute; what is over is counted and said in one entry. */
export const LOG_ENTRIES_PER_MINUTE = 20
const MINUTE_MS = 60_000

/**
 * The entries plugins write while events run, gathered and written per batch. A plugin that
 * fails on every event would otherwise write a row per event: each config keeps at most
 * LOG_ENTRIES_PER_MINUTE a minute, and the next minute starts with a WARN saying how many were
 * left out.
 */
export class PluginLogBuffer {
  private rows: PluginLogRow[] = []
  private readonly windows = new Map<number, { startedMs: number; written: number; suppressed: number; config: ConfigRef }>()

  constructor(private readonly now: () => number = Date.now) {}

  add(config: ConfigRef, source: LogSource, type: LogType, message: string): void {
    const now = this.now()
    let window = this.windows.get(config.id)
    if (!window || now - window.startedMs >= MINUTE_MS) {
      if (window && window.suppressed > 0) this.rows.push(suppressedNote(window.config, window.suppressed))
      window = { startedMs: now, written: 0, suppressed: 0, config }
      this.windows.set(config.id, window)
    }
    if (window.written >= LOG_ENTRIES_PER_MINUTE) {
      window.suppressed++
      return
    }
    window.written++
    this.rows.push(logRow(config, source, type, message))
  }

  /** Writes what was gathered, with the notes of minutes that ended with entries left out. */
  async flush(deps: Pick<CoreDeps, 'ch'>): Promise<void> {
    const now = this.now()
    for (const [id, window] of this.windows) {
      if (now - window.startedMs < MINUTE_MS) continue
      if (window.suppressed > 0) this.rows.push(suppressedNote(window.config, window.suppressed))
      this.windows.delete(id)
    }
    if (this.rows.length === 0) return
    const rows = this.rows
    this.rows = []
    await pluginLogEntries.insertPluginLogEntries(deps.ch, rows)
  }
}

function suppressedNote(config: ConfigRef, count: number): PluginLogRow {
  return logRow(
    config,
    'SYSTEM',
    'WARN',
    `${count} more log ${count === 1 ? 'entry' : 'entries'} of this plugin left out: at most ${LOG_ENTRIES_PER_MINUTE} are kept a minute.`,
  )
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
