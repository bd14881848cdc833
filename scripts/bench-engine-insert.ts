// How the embedded engine takes a body of encoded rows: `npm run bench:engine-insert`. In
// process, one chDB data directory: the same bodies inserted through chDB's raw insert (the rows
// handed over with the statement, as one query text) and from a file (`FROM INFILE`, what the
// service does), in turns; CPU of the whole process per row, merges included. Into a table that
// stores nothing (ENGINE = Null: reading the rows and computing the property columns) and into
// the events table as migrated.
// Small events as capture writes them (about 1 kB), and the same after GeoIP, Property Filter
// and Taxonomy Plugin (about 2.4 kB). BENCH_RUNS (default 3) rounds.
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { createChdbConnection } from 'chdb/connection'
import { median, RUNS, sleep } from './bench/harness'
import { eventsEngine } from './bench/eventsEngine'
import { insertedBodies } from './bench/pluginStage'

const ROWS = 5_000
const BODIES = 10
/** Merges of what a round inserted run in the background; the round's CPU includes them. */
const MERGES_SETTLE_MS = 3_000

const { dataDir, ch } = await eventsEngine('burrow-bench-engine-insert-')
const raw = createChdbConnection({ path: path.join(dataDir, 'clickhouse') })
await ch.writer.command({ query: 'CREATE TABLE reads_only AS events ENGINE = Null' })

const bodies = await insertedBodies(ROWS, BODIES)
const bytesPerRow = (kind: keyof typeof bodies) => Math.round(bodies[kind].reduce((n, b) => n + b.length, 0) / (BODIES * ROWS))

type Transport = 'query text' | 'file'
const settings = () => ({ input_format_json_read_objects_as_strings: 1, insert_deduplication_token: randomUUID() })

async function insert(transport: Transport, table: string, body: Buffer): Promise<void> {
  if (transport === 'file') await ch.insertEncoded(table, 'JSONEachRow', body, settings())
  else await raw.chdb.rawInsert({ table, format: 'JSONEachRow', values: body, settings: settings() })
}

/** CPU µs per row of inserting every body once, and of the merges that follow. */
async function cpuPerRowUs(transport: Transport, table: string, kind: keyof typeof bodies): Promise<number> {
  if (table === 'events') await ch.writer.command({ query: 'TRUNCATE TABLE events' })
  const started = process.cpuUsage()
  for (const body of bodies[kind]) await insert(transport, table, body)
  if (table === 'events') await sleep(MERGES_SETTLE_MS)
  const used = process.cpuUsage(started)
  return (used.user + used.system) / (BODIES * ROWS)
}

const figures = new Map<string, number[]>()
for (let run = 0; run < RUNS; run++) {
  for (const table of ['reads_only', 'events'])
    for (const kind of ['plain', 'transformed'] as const)
      for (const transport of ['query text', 'file'] as const) {
        const key = `${table}\t${kind}\t${transport}`
        figures.set(key, [...(figures.get(key) ?? []), await cpuPerRowUs(transport, table, kind)])
      }
}
await raw.close()
await ch.close()
rmSync(dataDir, { recursive: true, force: true })

const us = (xs: number[]) => `${median(xs).toFixed(1)} µs (${xs.map((x) => x.toFixed(1)).join(' / ')})`
console.log(`CPU per row, medians of ${RUNS} rounds of ${BODIES} inserts of ${ROWS} rows`)
for (const table of ['reads_only', 'events']) {
  console.log(
    table === 'events' ? 'into the events table, merges included' : 'into a Null table (reading the rows, computing the property columns)',
  )
  for (const kind of ['plain', 'transformed'] as const) {
    const text = figures.get(`${table}\t${kind}\tquery text`)!
    const file = figures.get(`${table}\t${kind}\tfile`)!
    const label = kind === 'plain' ? `small events, ${bytesPerRow(kind)} B` : `after three plugins, ${bytesPerRow(kind)} B`
    console.log(`  ${label.padEnd(32)} query text ${us(text)}   file ${us(file)}   ratio ${(median(file) / median(text)).toFixed(2)}`)
  }
}
