// What each part of the events table costs on insert: `npm run bench:table-cost`. In process, one
// embedded ClickHouse data directory: the same bodies of encoded small events (as capture writes
// them) inserted, the way the service inserts them, into the events table as migrated and into
// copies of it with one part taken away (the daily-counts view, the two skip indexes, the five
// group columns, the property columns), the copy with all of them taken away, and a MergeTree of
// the row's eight columns. CPU of the whole process per row, the merges that follow included,
// so the engine's threads count too. Each round inserts into every table in turn; BENCH_RUNS
// (default 3) rounds, medians printed. What each part pays for on the read side is in
// docs/performance.md.
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { median, RUNS, sleep } from './bench/harness'
import { eventsEngine } from './bench/eventsEngine'
import { insertedBodies } from './bench/pluginStage'

const ROWS = 5_000
const BODIES = 10
/** Merges of what a round inserted run in the background; the round's CPU includes them. */
const MERGES_SETTLE_MS = 3_000

const { dataDir, ch } = await eventsEngine('burrow-bench-table-cost-')

const names = async (query: string) =>
  (await (await ch.writer.query({ query, format: 'JSONEachRow' })).json<{ name: string }>()).map((r) => r.name)
const materialized = await names(
  `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND default_kind = 'MATERIALIZED'`,
)
const groupColumns = materialized.filter((name) => /^\$group_\d$/.test(name))
const propertyColumns = materialized.filter((name) => !groupColumns.includes(name))
const indexes = await names(`SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'events'`)

const dropColumns = (columns: string[]) => columns.map((c) => `DROP COLUMN \`${c}\``)
const dropIndexes = indexes.map((i) => `DROP INDEX ${i}`)

/** A copy of the events table's structure (a view on events is not copied) with `changes` applied. */
async function copyOfEvents(table: string, changes: string[]): Promise<void> {
  await ch.writer.command({ query: `CREATE TABLE ${table} AS events` })
  if (changes.length > 0) await ch.writer.command({ query: `ALTER TABLE ${table} ${changes.join(', ')}` })
}

const TABLES: Array<{ table: string; what: string }> = [
  { table: 'events', what: 'the events table as migrated' },
  { table: 'events_no_view', what: 'without the daily-counts view' },
  { table: 'events_no_indexes', what: `without the ${indexes.length} skip indexes` },
  { table: 'events_no_groups', what: `without the ${groupColumns.length} group columns` },
  { table: 'events_no_properties', what: `without the ${propertyColumns.length} property columns` },
  { table: 'events_bare', what: 'without any of these' },
  { table: 'events_minimal', what: "a MergeTree of the row's eight columns" },
]
await copyOfEvents('events_no_view', [])
await copyOfEvents('events_no_indexes', dropIndexes)
await copyOfEvents('events_no_groups', dropColumns(groupColumns))
await copyOfEvents('events_no_properties', dropColumns(propertyColumns))
await copyOfEvents('events_bare', [...dropIndexes, ...dropColumns(materialized)])
await ch.writer.command({
  query: `CREATE TABLE events_minimal (
    uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64,
    distinct_id String, created_at DateTime64(6, 'UTC'), person_id UUID
  ) ENGINE = MergeTree ORDER BY (team_id, toDate(timestamp), event)`,
})

const { plain: bodies } = await insertedBodies(ROWS, BODIES)

/** CPU µs per row of inserting every body once into `table`, and of the merges that follow. */
async function cpuPerRowUs(table: string): Promise<number> {
  await ch.writer.command({ query: `TRUNCATE TABLE ${table}` })
  if (table === 'events') await ch.writer.command({ query: 'TRUNCATE TABLE event_daily_counts' })
  const started = process.cpuUsage()
  for (const body of bodies) {
    await ch.insertEncoded(table, 'JSONEachRow', body, {
      input_format_json_read_objects_as_strings: 1,
      input_format_skip_unknown_fields: 1,
      insert_deduplication_token: randomUUID(),
    })
  }
  await sleep(MERGES_SETTLE_MS)
  const used = process.cpuUsage(started)
  return (used.user + used.system) / (BODIES * ROWS)
}

const figures = new Map<string, number[]>(TABLES.map(({ table }) => [table, []]))
// A round that is not counted warms the engine up; each counted round starts at another table,
// so that no table is always the one inserted into after another's merges.
for (const { table } of TABLES) await cpuPerRowUs(table)
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < TABLES.length; i++) {
    const { table } = TABLES[(i + run) % TABLES.length]!
    figures.get(table)!.push(await cpuPerRowUs(table))
  }
}
await ch.close()
rmSync(dataDir, { recursive: true, force: true })

const bare = median(figures.get('events_bare')!)
const all = median(figures.get('events')!)
console.log(`CPU per row inserted, merges included: medians of ${RUNS} rounds of ${BODIES} inserts of ${ROWS} small events`)
for (const { table, what } of TABLES) {
  const xs = figures.get(table)!
  const m = median(xs)
  const runs = xs.map((x) => x.toFixed(1)).join(' / ')
  const part =
    table === 'events' || table === 'events_bare' || table === 'events_minimal'
      ? ''
      : `   the part costs ${(all - m).toFixed(1)} µs (${Math.round(((all - m) / all) * 100)}% of the table's)`
  console.log(`  ${what.padEnd(40)} ${m.toFixed(1)} µs (${runs})${part}`)
}
console.log(`  the table's own parts together: ${(all - bare).toFixed(1)} µs of ${all.toFixed(1)} µs per row`)
