// The capture code's benchmark: `npm run bench:capture`. Single-event /capture/ requests go
// through the service's own dispatcher, in process and without HTTP, into the real spool and
// an embedded ClickHouse, 32 at a time as the load generators send them; the main thread's CPU
// per request is measured, and what a request allocates. Person processing (PostgreSQL) is
// left out and the project token is known, as it is for nearly every request. The baseline,
// measured in the same run, is the least any capture does with the event: parse the body and
// encode the row. Its runs differ by a microsecond or two, where bench:ingest's differ by tens
// of percent: it is the tool for changes to the capture code; bench:ingest says what they are
// worth to a client.
import { mkdtempSync, rmSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, events, migrateClickHouse } from '@burrow/clickhouse'
import { EventSink, EventSpool } from '@burrow/ingestion'
import { createDispatcher, createServerMetrics, type IncomingRequest } from '@burrow/server'
import { Registry } from 'prom-client'
import { benchEvent, benchRowToEncode } from './bench/events'
import { CONNECTIONS, mainThreadCpuUs, median, ratio, RUNS } from './bench/harness'

const REQUESTS = 100_000
const WARM_UP = 50_000

const root = mkdtempSync(path.join(tmpdir(), 'burrow-bench-capture-'))
const ch = await connectClickHouse({ dataDir: path.join(root, 'clickhouse') })
await migrateClickHouse(ch)
const registry = new Registry()
const metrics = createServerMetrics(registry)
const sink = new EventSink({ ch, metrics, log: console.error })
const spool = await EventSpool.open({
  dir: path.join(root, 'spool'),
  sink,
  metrics,
  maxRows: 10_000,
  maxAgeMs: 500,
  maxBytes: 1 << 30,
  segmentBytes: 16 << 20,
  log: console.error,
})
const project = { id: 1, anonymizeIps: false }
const token = 'phc_benchmark'
const projects = {
  peek: (t: string) => (t === token ? project : null),
  resolve: async (t: string) => (t === token ? project : null),
  resolveWithPersonalKey: async () => 'invalid_key' as const,
}
const dispatch = createDispatcher({
  lifecycle: () => 'ready',
  siteUrl: undefined,
  trustProxy: [],
  metricsText: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  metrics,
  capture: { projects: projects as never, spool, sink, metrics, maxDecompressedBytes: 1 << 24, log: console.error },
  decide: undefined,
  rest: undefined,
  trpc: undefined,
})

const body = Buffer.from(JSON.stringify({ api_key: token, ...benchEvent(1) }))
const request = (): IncomingRequest => ({
  method: 'POST',
  path: '/capture/',
  query: '',
  headers: { host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(body.length) },
  body,
  remoteAddress: '127.0.0.1',
})

/** `n` requests, CONNECTIONS of them in flight at any time, as closed-loop load generators send them. */
function send(n: number): Promise<void> {
  let started = 0
  let answered = 0
  return new Promise((resolve, reject) => {
    const next = (): void => {
      if (started === n) return
      started++
      Promise.resolve(dispatch(request())).then((response) => {
        if (response.status !== 200) reject(new Error(`capture answered ${response.status}: ${String(response.body)}`))
        else if (++answered === n) resolve()
        else next()
      }, reject)
    }
    for (let i = 0; i < CONNECTIONS; i++) next()
  })
}

async function captureUs(): Promise<number> {
  const started = mainThreadCpuUs()
  await send(REQUESTS)
  return (mainThreadCpuUs() - started) / REQUESTS
}

/** The baseline: parse the body and encode the row, nothing else (the row's other fields made once). */
function floorUs(): number {
  const fixed = benchRowToEncode(0)
  const started = mainThreadCpuUs()
  let bytes = 0
  for (let i = 0; i < REQUESTS; i++) {
    const event = JSON.parse(body.toString()) as { event: string; distinct_id: string; properties: Record<string, unknown> }
    bytes += Buffer.byteLength(
      events.encodeEventRow({ ...fixed, event: event.event, distinct_id: event.distinct_id, properties: event.properties }),
    )
  }
  if (bytes === 0) throw new Error('nothing encoded')
  return (mainThreadCpuUs() - started) / REQUESTS
}

/** Bytes allocated per request, what the garbage collector frees included (a sampling heap profile). */
async function allocatedPerRequest(): Promise<number> {
  const session = new Session()
  session.connect()
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  await send(REQUESTS / 2)
  const { profile } = await session.post('HeapProfiler.stopSampling')
  session.disconnect()
  let total = 0
  const walk = (node: typeof profile.head): void => {
    total += node.selfSize
    for (const child of node.children) walk(child)
  }
  walk(profile.head)
  return total / (REQUESTS / 2)
}

await send(WARM_UP)
const capture: number[] = []
const floor: number[] = []
for (let i = 0; i < Math.max(RUNS, 5); i++) {
  capture.push(await captureUs())
  floor.push(floorUs())
  console.log(`run ${i + 1}: capture ${capture.at(-1)!.toFixed(2)} µs/request, parse and encode only ${floor.at(-1)!.toFixed(2)} µs`)
}
const allocated = await allocatedPerRequest()
await spool.close(60_000)
await ch.close()
rmSync(root, { recursive: true, force: true })

console.log(
  `\nmedians of ${capture.length} runs of ${REQUESTS} single-event requests, ${CONNECTIONS} in flight, main-thread CPU per request:`,
)
console.log(`  capture, dispatcher to acknowledged spool write, consumer included   ${median(capture).toFixed(2)} µs`)
console.log(
  `  parse the body and encode the row, nothing else                      ${median(floor).toFixed(2)} µs   capture's ratio to it ${ratio(median(capture), median(floor))}`,
)
console.log(`  allocated per capture request                                        ${(allocated / 1024).toFixed(1)} KB`)
