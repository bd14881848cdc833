import type { ClickHouse } from './connect'

/** How long rows are kept, in days; undefined keeps them for ever. */
export interface Retention {
  events: number | undefined
  deadLetters: number
  pluginLogs: number
}

/** Each table's TTL, as ClickHouse writes it back in system.tables (so that an unchanged one is not set again). */
function ttlOf(retention: Retention): Array<{ table: string; ttl: string | undefined }> {
  return [
    { table: 'events', ttl: retention.events === undefined ? undefined : `toDateTime(timestamp) + toIntervalDay(${retention.events})` },
    { table: 'events_dead_letter_queue', ttl: `toDate(_timestamp) + toIntervalDay(${retention.deadLetters})` },
    { table: 'plugin_log_entries', ttl: `toDateTime(timestamp) + toIntervalDay(${retention.pluginLogs})` },
  ]
}

/** The TTL expression of a table's engine description, or undefined when it has none. */
export function tableTtl(engineFull: string): string | undefined {
  return / TTL (.+?)(?: SETTINGS |$)/.exec(engineFull)?.[1]?.trim()
}

/**
 * Applies the configured retention as TTLs, which ClickHouse enforces on its merges: set where
 * a table's TTL differs, removed from events when no retention is configured. Answers what
 * changed. A changed TTL is applied to the existing parts in the background.
 */
export async function applyRetention(ch: ClickHouse, retention: Retention): Promise<string[]> {
  const tables = ttlOf(retention)
  // The TTL is on the table that holds the rows (on a cluster, each shard's).
  const result = await ch.reader.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)}`,
    query_params: { names: tables.map(({ table }) => ch.layout.rowsTable(table)) },
    format: 'JSONEachRow',
  })
  const current = new Map((await result.json<{ name: string; engine_full: string }>()).map((t) => [t.name, tableTtl(t.engine_full)]))
  const changed: string[] = []
  for (const { table, ttl } of tables) {
    const rowsTable = ch.layout.rowsTable(table)
    if (!current.has(rowsTable) || current.get(rowsTable) === ttl) continue
    // Values are integers from the validated configuration, not client input.
    const target = ch.layout.alterTarget(table)
    await ch.writer.command({ query: ttl === undefined ? `ALTER TABLE ${target} REMOVE TTL` : `ALTER TABLE ${target} MODIFY TTL ${ttl}` })
    changed.push(ttl === undefined ? `${table}: no TTL` : `${table}: TTL ${ttl}`)
  }
  return changed
}
