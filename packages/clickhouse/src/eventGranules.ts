import type { ClickHouse } from './connect'
import { clickHouseErrorCode } from './errors'
import { EVENTS_TABLE } from './tables/events'

// Migration 011: the events table with granules of at most 256 KiB.
//
// A granule is the unit ClickHouse reads: to hand out one row's properties it decompresses the
// granule's column up to that row. The events table was made with the default bound of 10 MiB,
// so at ~1 kB of properties a granule holds the full 8,192 rows, and the latest page (the newest
// 100 events of a day, spread over the day's granules by the sorting key) decompressed about a
// hundred of them: 62 ms against 27 ms with 256 KiB granules, which cost 7% more compressed bytes.
//
// `index_granularity_bytes` cannot be changed on an existing table, so the table is rebuilt:
// an empty table with the new setting (and everything else of the old one: columns, property
// columns, indexes, TTL, engine) takes the old one's name by an atomic exchange, the old one's
// parts move to it a partition at a time (a move relinks files; nothing is copied), and a
// background mutation rewrites the moved parts with the new granules while the service runs.
// Each step can be taken again after a crash part-way: the exchange is made only while the
// table still has the old setting, and moved partitions are no longer in the old table.
// Like the migrations before it, it runs before this server stores anything (the service
// inserts nothing while it migrates).

/** The bound on a granule's bytes (ClickHouse's default is 10 MiB). */
export const EVENT_GRANULE_BYTES = 262_144

const SETTING = 'index_granularity_bytes'

/** Migration 011 (see the top of this file). */
export async function rebuildEventsWithSmallGranules(ch: ClickHouse): Promise<void> {
  const layout = ch.layout
  const rows = layout.rowsTable(EVENTS_TABLE)
  // Named for what it holds once exchanged: the old table, with its large granules.
  const old = `${rows}_large_granules`
  const definitions = await engineDefinitions(ch, [rows, old])
  const current = definitions.get(rows)
  if (current === undefined) throw new Error(`migration 011: the table ${rows} is missing`)
  const command = (query: string) => ch.writer.command({ query })

  if (!hasSmallGranules(current)) {
    if (!definitions.has(old)) {
      await command(`CREATE TABLE IF NOT EXISTS ${layout.ddlTarget(old)} AS ${rows} ENGINE = ${withSmallGranules(current, rows, old)}`)
    }
    await command(`EXCHANGE TABLES ${rows} AND ${layout.ddlTarget(old)}`)
  } else if (!definitions.has(old)) {
    return
  }

  // Until none is left: a partition is moved whole, so a second run finds only what the first did not move.
  for (let ids = await partitionIds(ch, old); ids.length > 0; ids = await partitionIds(ch, old)) {
    for (const id of ids) {
      await ch.writer.command({
        query: `ALTER TABLE ${layout.alterTarget(old)} MOVE PARTITION ID {id:String} TO TABLE ${rows}`,
        query_params: { id },
      })
    }
  }
  await rewriteParts(ch)
  await command(`DROP TABLE IF EXISTS ${layout.ddlTarget(old)} SYNC`)
}

/** Parts keep the granules they were written with: a background mutation writes them again with the table's. */
async function rewriteParts(ch: ClickHouse): Promise<void> {
  try {
    await ch.writer.command({ query: `ALTER TABLE ${ch.layout.alterTarget(EVENTS_TABLE)} REWRITE PARTS` })
  } catch (err) {
    // A server without REWRITE PARTS (before 25.x): parts take the new granules as merges write
    // them, which the newest, the ones the latest events are read from, soon are.
    if (clickHouseErrorCode(err) !== SYNTAX_ERROR) throw err
  }
}

const SYNTAX_ERROR = 62

async function engineDefinitions(ch: ClickHouse, names: string[]): Promise<Map<string, string>> {
  const result = await ch.writer.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)}`,
    query_params: { names },
    format: 'JSONEachRow',
  })
  return new Map((await result.json<{ name: string; engine_full: string }>()).map((t) => [t.name, t.engine_full]))
}

/** The partitions that still hold rows of `table`, on every shard of a cluster (a move leaves an empty part behind). */
async function partitionIds(ch: ClickHouse, table: string): Promise<string[]> {
  const cluster = ch.layout.clusterOptions?.name
  const parts = cluster === undefined ? 'system.parts' : `clusterAllReplicas(${cluster}, system.parts)`
  const result = await ch.writer.query({
    query: `SELECT DISTINCT partition_id FROM ${parts} WHERE database = currentDatabase() AND table = {table:String} AND active AND rows > 0 ORDER BY partition_id`,
    query_params: { table },
    format: 'JSONEachRow',
  })
  return (await result.json<{ partition_id: string }>()).map((p) => p.partition_id)
}

function hasSmallGranules(engineFull: string): boolean {
  return new RegExp(`\\b${SETTING} = ${EVENT_GRANULE_BYTES}\\b`).test(engineFull)
}

/**
 * The old table's engine clause for the new one: the same, with the granule bound set and, for a
 * replicated table, a replication path of the new table's own (two tables cannot share one).
 */
export function withSmallGranules(engineFull: string, rows: string, spare: string): string {
  let engine = engineFull
  if (/^Replicated/.test(engine)) {
    const path = new RegExp(`^(Replicated\\w*\\('[^']*[./])${rows}'`)
    if (!path.test(engine)) throw new Error(`migration 011: the replication path of ${rows} does not end in its name: ${engineFull}`)
    engine = engine.replace(path, `$1${spare}'`)
  }
  const setting = `${SETTING} = ${EVENT_GRANULE_BYTES}`
  if (new RegExp(`\\b${SETTING} = \\d+`).test(engine)) return engine.replace(new RegExp(`\\b${SETTING} = \\d+`), setting)
  return /\bSETTINGS\b/.test(engine) ? `${engine}, ${setting}` : `${engine} SETTINGS ${setting}`
}
