import type { ClickHouse } from '../connect'
import { clickHouseDateTimeToIso } from '../datetime'

export const PLUGIN_LOG_TABLE = 'plugin_log_entries'

export interface PluginLogRow {
  id: string
  team_id: number
  plugin_id: number
  plugin_config_id: number
  /** DateTime64(6) text. */
  timestamp: string
  source: string
  type: string
  message: string
  instance_id: string
}

export async function insertPluginLogEntries(ch: ClickHouse, rows: PluginLogRow[]): Promise<void> {
  if (rows.length === 0) return
  await ch.insertEncoded(PLUGIN_LOG_TABLE, 'JSONEachRow', Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')))
}

export interface PluginLogQuery {
  teamId: number
  pluginConfigId: number
  types?: string[] | undefined
  search?: string | undefined
  after?: string | undefined
  before?: string | undefined
  limit: number
  offset: number
}

/** A page of a plugin config's log entries, newest first, and how many match in all. */
export async function queryPluginLogEntries(ch: ClickHouse, q: PluginLogQuery): Promise<{ count: number; rows: PluginLogRow[] }> {
  const clauses = ['team_id = {team_id:Int64}', 'plugin_config_id = {plugin_config_id:Int64}']
  const params: Record<string, unknown> = { team_id: q.teamId, plugin_config_id: q.pluginConfigId }
  if (q.types && q.types.length > 0) {
    clauses.push('type IN {types:Array(String)}')
    params.types = q.types
  }
  if (q.search) {
    clauses.push('positionCaseInsensitiveUTF8(message, {search:String}) > 0')
    params.search = q.search
  }
  if (q.after) {
    clauses.push(`timestamp > parseDateTime64BestEffort({after:String}, 6, 'UTC')`)
    params.after = q.after
  }
  if (q.before) {
    clauses.push(`timestamp < parseDateTime64BestEffort({before:String}, 6, 'UTC')`)
    params.before = q.before
  }
  const where = clauses.join(' AND ')
  const [rowsResult, countResult] = await Promise.all([
    ch.reader.query({
      query: `SELECT id, team_id, plugin_id, plugin_config_id, timestamp, source, type, message, instance_id
        FROM ${PLUGIN_LOG_TABLE} WHERE ${where}
        ORDER BY timestamp DESC, id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      query_params: { ...params, limit: q.limit, offset: q.offset },
      format: 'JSONEachRow',
    }),
    ch.reader.query({ query: `SELECT count() AS n FROM ${PLUGIN_LOG_TABLE} WHERE ${where}`, query_params: params, format: 'JSONEachRow' }),
  ])
  const rows = await rowsResult.json<PluginLogRow>()
  const [count] = await countResult.json<{ n: string | number }>()
  return {
    count: Number(count?.n ?? 0),
    rows: rows.map((r) => ({
      ...r,
      team_id: Number(r.team_id),
      plugin_id: Number(r.plugin_id),
      plugin_config_id: Number(r.plugin_config_id),
      timestamp: clickHouseDateTimeToIso(r.timestamp),
    })),
  }
}
