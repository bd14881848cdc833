// Baseline (a) of the ingestion benchmark: the same rows inserted straight into the same kind
// of ClickHouse the plain way, `client.insert` of JS objects (JSONEachRow), 10k rows a batch.
// Usage: plainInsert.ts <dataDir> <rows>; prints {"rowsPerSecond": N}.
import { connectClickHouse, migrateClickHouse } from '@burrow/clickhouse'
import { benchRow } from './events'

const [dataDir, total] = [process.argv[2]!, Number(process.argv[3])]
const ch = await connectClickHouse({ dataDir })
await migrateClickHouse(ch)
const BATCH = 10_000
const started = performance.now()
for (let done = 0; done < total; done += BATCH) {
  const values = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => benchRow(done + i))
  await ch.writer.insert({ table: 'events', values, format: 'JSONEachRow' })
}
const seconds = (performance.now() - started) / 1000
await ch.close()
console.log(JSON.stringify({ rowsPerSecond: Math.round(total / seconds) }))
