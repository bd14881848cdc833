// Baselines of the ingestion benchmark: the same rows inserted straight into the same kind of
// ClickHouse the plain way, `client.insert` of JS objects (JSONEachRow), 10k rows a batch.
// (a) into the events table as the service creates it; (a') with `minimal`, into a MergeTree of
// the row's eight columns only, so that what the events table itself costs on insert shows.
// Usage: plainInsert.ts <dataDir> <rows> [minimal]; prints {"rowsPerSecond": N}.
import { connectClickHouse } from '@burrow/clickhouse'
import { asTheServiceStarts } from './eventsEngine'
import { benchRow } from './events'

const [dataDir, total, minimal] = [process.argv[2]!, Number(process.argv[3]), process.argv[4] === 'minimal']
const ch = await connectClickHouse({ dataDir })
let table = 'events'
if (minimal) {
  table = 'events_minimal'
  await ch.writer.command({
    query: `CREATE TABLE IF NOT EXISTS ${table} (
      uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64,
      distinct_id String, created_at DateTime64(6, 'UTC'), person_id UUID
    ) ENGINE = MergeTree ORDER BY (team_id, toDate(timestamp), event)`,
  })
} else {
  await asTheServiceStarts(ch)
}
const BATCH = 10_000
const started = performance.now()
for (let done = 0; done < total; done += BATCH) {
  const values = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
    const row = benchRow(done + i)
    if (!minimal) return row
    const { elements_chain: _unused, ...eight } = row
    return eight
  })
  await ch.writer.insert({ table, values, format: 'JSONEachRow' })
}
const seconds = (performance.now() - started) / 1000
await ch.close()
console.log(JSON.stringify({ rowsPerSecond: Math.round(total / seconds) }))
