// The spool's benchmark: `npm run bench:spool`. Events go through the spool as capture sends
// them (group-committed appends of single-event frames) into an embedded ClickHouse, and the
// main thread's CPU per event is measured, appends and consumer together. The consumer takes
// the frames this process wrote from memory; the baseline, measured alternately in the same
// run, reads them back from disk and parses them, as it does after a restart.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, events, migrateClickHouse } from '@burrow/clickhouse'
import { createIngestionMetrics, EventSink, EventSpool } from '@burrow/ingestion'
import { createSpoolMetrics, encodeFrame } from '@burrow/spool'
import { Registry } from 'prom-client'
import { benchRowToEncode } from './bench/events'
import { mainThreadCpuUs, median, ratio, RUNS } from './bench/harness'

const EVENTS = 60_000
/** Appends per event-loop turn, about what a commit covers under full /capture/ load. */
const PER_COMMIT = 20

const root = mkdtempSync(path.join(tmpdir(), 'burrow-bench-spool-'))
const ch = await connectClickHouse({ dataDir: path.join(root, 'clickhouse') })
await migrateClickHouse(ch)
const lines = Array.from({ length: EVENTS }, (_, i) => events.encodeEventRow(benchRowToEncode(i)))

/** Main-thread µs per event from the first append until every row is stored. */
async function run(dir: string, keptBytes: number | undefined): Promise<number> {
  const registry = new Registry()
  const metrics = { ...createIngestionMetrics(registry), ...createSpoolMetrics(registry) }
  const spool = await EventSpool.open({
    dir,
    sink: new EventSink({ ch, metrics, log: console.error }),
    metrics,
    maxRows: 10_000,
    maxAgeMs: 500,
    maxBytes: 1 << 30,
    segmentBytes: 16 << 20,
    keptBytes,
    log: console.error,
  })
  const frames = lines.map((line) => encodeFrame([line], [[1, '$pageview', 0]], 1, ['user-1']))
  const started = mainThreadCpuUs()
  for (let i = 0; i < EVENTS; i += PER_COMMIT) await Promise.all(frames.slice(i, i + PER_COMMIT).map((frame) => spool.append(frame)))
  await spool.close(60_000)
  return (mainThreadCpuUs() - started) / EVENTS
}

const memory: number[] = []
const disk: number[] = []
for (let i = 0; i < RUNS; i++) {
  disk.push(await run(path.join(root, `disk-${i}`), 0))
  memory.push(await run(path.join(root, `memory-${i}`), undefined))
  console.log(
    `run ${i + 1}: frames from memory ${memory.at(-1)!.toFixed(1)} µs/event, read back from disk ${disk.at(-1)!.toFixed(1)} µs/event`,
  )
}
await ch.close()
rmSync(root, { recursive: true, force: true })
console.log(
  `\nmedians of ${RUNS} runs, ${EVENTS} single-event frames, ${PER_COMMIT} appends per commit, main-thread CPU per event (appends and consumer):`,
)
console.log(`  frames kept in memory   ${median(memory).toFixed(1)} µs`)
console.log(`  read back from disk     ${median(disk).toFixed(1)} µs   ratio ${ratio(median(memory), median(disk))}`)
