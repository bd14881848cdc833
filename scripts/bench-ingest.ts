// The ingestion benchmark: `npm run bench:ingest`. Starts the service on embedded defaults,
// drives /batch/ and /capture/ with autocannon (and /capture/ with h2load too), waits until
// the events are queryable, and prints throughput, latency, ingestion lag, peak RSS and
// event-loop stalls, with ratios to two baselines measured in the same run (and to a third
// reference: the bare handler answering only once the body is durable). BENCH_RUNS
// (default 3) and BENCH_SECONDS (default 10) set how many runs and how long each load lasts;
// medians are printed last.
import path from 'node:path'
import { benchEvent } from './bench/events'
import {
  CONNECTIONS,
  cpuPerRequest,
  h2load,
  load,
  medianOfRuns,
  peakRssMb,
  percentile,
  ratio,
  ROOT,
  RUNS,
  SECONDS,
  sleep,
  start,
  storedEventCount,
  metricsAt,
  stop,
  withService,
  withBareUws,
  withDurableUws,
  type Service,
} from './bench/harness'

const BATCH_SIZE = 100
const round2 = (x: number) => Math.round(x * 100) / 100

/** Acknowledged-to-queryable time of single probe events sent every 500 ms while `during` runs. */
async function probeLag(service: Service, during: Promise<unknown>): Promise<number[]> {
  const lags: number[] = []
  let done = false
  void during.finally(() => (done = true))
  for (let i = 0; !done; i++) {
    const distinctId = `probe-${Date.now()}-${i}`
    const res = await fetch(`${service.base}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: service.token, event: 'probe', distinct_id: distinctId }),
    })
    if (res.status !== 200) continue
    const acked = performance.now()
    while ((await service.api(`/api/projects/@current/events/?distinct_id=${distinctId}&limit=1`)).count < 1) await sleep(50)
    lags.push(performance.now() - acked)
    await sleep(500)
  }
  return lags
}

/** A reference handler under the loads /capture/ got: closed-loop with each generator, then paced at `rate`. */
async function underCaptureLoads(url: string, pid: number, body: string, rate: number) {
  const { result, cpu } = await cpuPerRequest(
    pid,
    () => load(url, body),
    (r) => r.requests.total,
  )
  return {
    autocannon: Math.round(result.requests.average),
    cpu,
    h2load: Math.round((await h2load(url, body)).requestsPerSec),
    pacedMs: (await h2load(url, body, { rate })).latenciesMs,
  }
}

interface RunFigures {
  batchEventsAcceptedPerSec: number
  batchEventsLandedPerSec: number
  batchP50Ms: number
  batchP99Ms: number
  /** The most /capture/ requests per second, closed-loop, with autocannon and with h2load. */
  captureMaxReqPerSec: number
  captureMaxReqPerSecH2load: number
  /** Latency at half the autocannon maximum, paced evenly (h2load). */
  captureP50AtHalfRateMs: number
  captureP99AtHalfRateMs: number
  bareP99AtHalfRateMs: number
  /** Ingestion lag under saturating /batch/ load (a backlog builds up)... */
  lagP50Ms: number
  lagP99Ms: number
  /** ...and at half the maximum /capture/ rate. */
  halfRateLagP50Ms: number
  halfRateLagP99Ms: number
  peakRssMb: number
  /** Longest event-loop delay of any of the service's loops while saturated (requests queue behind each other), and the longest its own work held one... */
  loopMaxSaturatedMs: number
  loopBusySaturatedMs: number
  /** ...and at half the maximum /capture/ rate, of any loop, then of each: wall time, and the thread's own CPU time. */
  loopMaxHalfRateMs: number
  loopDelayMainHalfRateMs: number
  loopDelayCaptureHalfRateMs: number
  loopBusyMainHalfRateMs: number
  loopBusyCaptureHalfRateMs: number
  bareUwsReqPerSec: number
  bareUwsReqPerSecH2load: number
  /** Reference (c): the bare handler answering once the body is durable in a spool, nothing else. */
  durableUwsReqPerSec: number
  durableUwsReqPerSecH2load: number
  durableP99AtHalfRateMs: number
  durableMainUs: number
  /** CPU per /capture/ request under autocannon, in µs: the service's event-loop thread, its other threads, autocannon; the bare handler's thread. */
  captureMainUs: number
  captureOtherThreadsUs: number
  /** Of captureOtherThreadsUs, what the capture threads' own event loops ran (the rest: the engine's threads and the pools'). */
  captureThreadsUs: number
  captureLoadGeneratorUs: number
  bareMainUs: number
  bareLoadGeneratorUs: number
  plainInsertRowsPerSec: number
  projectsStageUs: number
  projectsStageBusyUs: number
  transformStageUs: number
  transformStageBusyUs: number
  groupsStageUs: number
  groupsStageBusyUs: number
  personsStageUs: number
  personsStageBusyUs: number
  minimalInsertRowsPerSec: number
  landedToMinimalRatio: number
  /** Ratios to the baselines within the run: the machine's speed drifts between runs. */
  landedRatio: number
  captureRatio: number
  captureRatioH2load: number
  /** What durability alone leaves of the bare handler's rate, and /capture/ against that. */
  durableRatio: number
  durableRatioH2load: number
  captureToDurableRatio: number
  captureToDurableRatioH2load: number
}

const STORING_STAGES = ['projects', 'transform', 'groups', 'persons'] as const
type StoringStage = (typeof STORING_STAGES)[number]

/** The storing side's stage counters (see docs/operations.md): events, wall seconds and the event loop's busy seconds. */
async function storingStages(service: Service) {
  const read = await metricsAt(service.base)
  const of = (stage: StoringStage) => ({
    events: read(`burrow_storing_stage_events_total{stage="${stage}"}`) || 0,
    seconds: read(`burrow_storing_stage_seconds_total{stage="${stage}"}`) || 0,
    busy: read(`burrow_storing_stage_loop_busy_seconds_total{stage="${stage}"}`) || 0,
  })
  return Object.fromEntries(STORING_STAGES.map((stage) => [stage, of(stage)])) as Record<StoringStage, ReturnType<typeof of>>
}

/**
 * Waits out the service's window of longest stalls (a minute: the `*_max_seconds` gauges are
 * maxima over it, which a scrape does not reset), so that the next phase's reading holds its
 * own stalls and an idle minute's, not the phase before's.
 */
const untilStallsForgotten = () => sleep(61_000)

function run(): Promise<RunFigures> {
  return withService('burrow-bench-', async (service, dataDir) => {
    const batchBody = JSON.stringify({ api_key: service.token, batch: Array.from({ length: BATCH_SIZE }, (_, i) => benchEvent(i)) })
    const captureBody = JSON.stringify({ api_key: service.token, ...benchEvent(1) })

    // /batch/: 100-event batches as fast as the service takes them, probing the lag meanwhile.
    await untilStallsForgotten()
    const before = await storedEventCount(service)
    const stagesBefore = await storingStages(service)
    const started = performance.now()
    const batchLoad = load(`${service.base}/batch/`, batchBody)
    const lags = await probeLag(service, batchLoad)
    const batch = await batchLoad
    const accepted = batch['2xx'] * BATCH_SIZE
    while ((await storedEventCount(service)) < before + accepted + lags.length) await sleep(200)
    const landedSeconds = (performance.now() - started) / 1000
    const stagesAfter = await storingStages(service)
    const stageUs = (stage: StoringStage, what: 'seconds' | 'busy') =>
      round2(
        ((stagesAfter[stage][what] - stagesBefore[stage][what]) * 1e6) /
          Math.max(1, stagesAfter[stage].events - stagesBefore[stage].events),
      )
    const batchLoop = await service.loopStalls()

    // /capture/: single events at full speed, with each load generator...
    await untilStallsForgotten()
    const threadsBefore = await metricsAt(service.base)
    const { result: capture, cpu: captureCpu } = await cpuPerRequest(
      service.child.process.pid!,
      () => load(`${service.base}/capture/`, captureBody),
      (r) => r.requests.total,
    )
    const threadsAfter = await metricsAt(service.base)
    const captureThreadsSeconds =
      threadsAfter('burrow_capture_threads_cpu_seconds_total') - threadsBefore('burrow_capture_threads_cpu_seconds_total')
    const captureH2load = await h2load(`${service.base}/capture/`, captureBody)
    const saturatedLoop = await service.loopStalls()
    // ...then at half the autocannon maximum, evenly paced: latency and the event loop, then the
    // ingestion lag in a second run (its probes query ClickHouse, which competes for the CPU).
    const halfRate = Math.round(capture.requests.average / 2)
    await untilStallsForgotten()
    const paced = await h2load(`${service.base}/capture/`, captureBody, { rate: halfRate })
    const halfRateLoop = await service.loopStalls()
    const halfRateLags = await probeLag(service, h2load(`${service.base}/capture/`, captureBody, { rate: halfRate }))
    const rss = peakRssMb(service.child.process.pid!)
    await stop(service.child)

    // Baseline (b): the bare uWebSockets.js handler, same body, same loads; and reference (c),
    // the same handler answering only once the body is durable, as capture does.
    const bare = await withBareUws('/capture/', (url, pid) => underCaptureLoads(url, pid, captureBody, halfRate))
    const durable = await withDurableUws(path.join(dataDir, 'durable'), '/capture/', (url, pid) =>
      underCaptureLoads(url, pid, captureBody, halfRate),
    )

    // Baseline (a): as many rows as landed, inserted the plain way into a fresh embedded ClickHouse.
    const plain = await start(
      ['--import', 'tsx', 'scripts/bench/plainInsert.ts', path.join(dataDir, 'plain'), String(Math.max(accepted, 100_000))],
      {
        cwd: ROOT,
        ready: /"rowsPerSecond":(\d+)/,
      },
    )
    const plainRowsPerSec = Number(plain.match[1])
    // Baseline (a'): the same rows into a MergeTree of their eight columns and nothing else.
    const minimal = await start(
      ['--import', 'tsx', 'scripts/bench/plainInsert.ts', path.join(dataDir, 'minimal'), String(Math.max(accepted, 100_000)), 'minimal'],
      { cwd: ROOT, ready: /"rowsPerSecond":(\d+)/ },
    )
    const minimalRowsPerSec = Number(minimal.match[1])

    const figures: RunFigures = {
      batchEventsAcceptedPerSec: Math.round(accepted / SECONDS),
      batchEventsLandedPerSec: Math.round(accepted / landedSeconds),
      batchP50Ms: batch.latency.p50,
      batchP99Ms: batch.latency.p99,
      captureMaxReqPerSec: Math.round(capture.requests.average),
      captureMaxReqPerSecH2load: Math.round(captureH2load.requestsPerSec),
      captureP50AtHalfRateMs: round2(percentile(paced.latenciesMs, 50)),
      captureP99AtHalfRateMs: round2(percentile(paced.latenciesMs, 99)),
      bareP99AtHalfRateMs: round2(percentile(bare.pacedMs, 99)),
      lagP50Ms: Math.round(percentile(lags, 50)),
      lagP99Ms: Math.round(percentile(lags, 99)),
      halfRateLagP50Ms: Math.round(percentile(halfRateLags, 50)),
      halfRateLagP99Ms: Math.round(percentile(halfRateLags, 99)),
      peakRssMb: rss,
      loopMaxSaturatedMs: Math.max(
        batchLoop.mainDelayMs,
        batchLoop.captureDelayMs,
        saturatedLoop.mainDelayMs,
        saturatedLoop.captureDelayMs,
      ),
      loopBusySaturatedMs: Math.max(batchLoop.mainBusyMs, batchLoop.captureBusyMs, saturatedLoop.mainBusyMs, saturatedLoop.captureBusyMs),
      loopMaxHalfRateMs: Math.max(halfRateLoop.mainDelayMs, halfRateLoop.captureDelayMs),
      loopDelayMainHalfRateMs: halfRateLoop.mainDelayMs,
      loopDelayCaptureHalfRateMs: halfRateLoop.captureDelayMs,
      loopBusyMainHalfRateMs: halfRateLoop.mainBusyMs,
      loopBusyCaptureHalfRateMs: halfRateLoop.captureBusyMs,
      bareUwsReqPerSec: bare.autocannon,
      bareUwsReqPerSecH2load: bare.h2load,
      durableUwsReqPerSec: durable.autocannon,
      durableUwsReqPerSecH2load: durable.h2load,
      durableP99AtHalfRateMs: round2(percentile(durable.pacedMs, 99)),
      durableMainUs: durable.cpu.mainUs,
      captureMainUs: captureCpu.mainUs,
      captureOtherThreadsUs: captureCpu.otherThreadsUs,
      captureThreadsUs: round2((captureThreadsSeconds * 1e6) / Math.max(1, capture.requests.total)),
      captureLoadGeneratorUs: captureCpu.loadGeneratorUs,
      bareMainUs: bare.cpu.mainUs,
      bareLoadGeneratorUs: bare.cpu.loadGeneratorUs,
      projectsStageUs: stageUs('projects', 'seconds'),
      projectsStageBusyUs: stageUs('projects', 'busy'),
      transformStageUs: stageUs('transform', 'seconds'),
      transformStageBusyUs: stageUs('transform', 'busy'),
      groupsStageUs: stageUs('groups', 'seconds'),
      groupsStageBusyUs: stageUs('groups', 'busy'),
      personsStageUs: stageUs('persons', 'seconds'),
      personsStageBusyUs: stageUs('persons', 'busy'),
      plainInsertRowsPerSec: plainRowsPerSec,
      minimalInsertRowsPerSec: minimalRowsPerSec,
      landedToMinimalRatio: ratio(accepted / landedSeconds, minimalRowsPerSec),
      landedRatio: ratio(accepted / landedSeconds, plainRowsPerSec),
      captureRatio: ratio(capture.requests.average, bare.autocannon),
      captureRatioH2load: ratio(captureH2load.requestsPerSec, bare.h2load),
      durableRatio: ratio(durable.autocannon, bare.autocannon),
      durableRatioH2load: ratio(durable.h2load, bare.h2load),
      captureToDurableRatio: ratio(capture.requests.average, durable.autocannon),
      captureToDurableRatioH2load: ratio(captureH2load.requestsPerSec, durable.h2load),
    }
    return figures
  })
}

const m = await medianOfRuns(run)

console.log(
  `\nmedians of ${RUNS} runs (each ratio is the median of the runs' own ratios), ${SECONDS} s of load each, ${CONNECTIONS} connections:`,
)
console.log(`/batch/ (100 events of ~300 B per request)`)
console.log(`  events accepted        ${m('batchEventsAcceptedPerSec')} /s`)
console.log(
  `  events landed          ${m('batchEventsLandedPerSec')} /s   ratio to plain client.insert ${m('landedRatio')} (target >= 1.0), to a minimal 8-column table ${m('landedToMinimalRatio')} (target >= 0.6)`,
)
console.log(`  request latency        p50 ${m('batchP50Ms')} ms, p99 ${m('batchP99Ms')} ms`)
console.log(
  `  storing stages         µs per event (wall / the loop busy): projects ${m('projectsStageUs')} / ${m('projectsStageBusyUs')}, plugins ${m('transformStageUs')} / ${m('transformStageBusyUs')}, groups ${m('groupsStageUs')} / ${m('groupsStageBusyUs')}, persons ${m('personsStageUs')} / ${m('personsStageBusyUs')}`,
)
console.log(`/capture/ (single events)`)
console.log(`  requests (autocannon)  ${m('captureMaxReqPerSec')} /s   ratio to bare uWebSockets.js ${m('captureRatio')} (target >= 0.5)`)
console.log(`  requests (h2load)      ${m('captureMaxReqPerSecH2load')} /s   ratio to bare uWebSockets.js ${m('captureRatioH2load')}`)
console.log(
  `  CPU per request        service ${m('captureMainUs')} µs on its event loop + ${m('captureOtherThreadsUs')} µs on other threads (capture threads ${m('captureThreadsUs')} µs, the rest the engine's and the pools'), autocannon ${m('captureLoadGeneratorUs')} µs; bare handler ${m('bareMainUs')} µs, autocannon ${m('bareLoadGeneratorUs')} µs`,
)
console.log(
  `  at half the autocannon rate, paced: p50 ${m('captureP50AtHalfRateMs')} ms, p99 ${m('captureP99AtHalfRateMs')} ms (target < 5); bare handler p99 ${m('bareP99AtHalfRateMs')} ms`,
)
console.log(
  `ingestion lag            p50 ${m('halfRateLagP50Ms')} ms, p99 ${m('halfRateLagP99Ms')} ms at half the /capture/ rate (target p99 < 2000)`,
)
console.log(`                         p50 ${m('lagP50Ms')} ms, p99 ${m('lagP99Ms')} ms under saturating /batch/ load`)
console.log(`peak RSS                 ${m('peakRssMb')} MB`)
console.log(`longest event-loop delay ${m('loopMaxHalfRateMs')} ms at half rate (target <= 20), ${m('loopMaxSaturatedMs')} ms saturated`)
console.log(
  `                         at half rate: main thread ${m('loopDelayMainHalfRateMs')} ms, capture thread ${m('loopDelayCaptureHalfRateMs')} ms of wall time;`,
)
console.log(
  `                         held by the thread's own work (its CPU time): main ${m('loopBusyMainHalfRateMs')} ms, capture ${m('loopBusyCaptureHalfRateMs')} ms; saturated ${m('loopBusySaturatedMs')} ms`,
)
console.log(
  `baselines                plain client.insert ${m('plainInsertRowsPerSec')} rows/s (into a minimal 8-column table ${m('minimalInsertRowsPerSec')} rows/s), bare uWebSockets.js ${m('bareUwsReqPerSec')} req/s (autocannon), ${m('bareUwsReqPerSecH2load')} req/s (h2load)`,
)
console.log(
  `durable reference        the bare handler answering once the body is in the spool: ${m('durableUwsReqPerSec')} req/s (autocannon), ratio to bare ${m('durableRatio')}; ${m('durableUwsReqPerSecH2load')} req/s (h2load), ratio ${m('durableRatioH2load')}`,
)
console.log(
  `                         its CPU ${m('durableMainUs')} µs per request; p99 at the half rate above ${m('durableP99AtHalfRateMs')} ms`,
)
console.log(
  `                         /capture/ against it: ${m('captureToDurableRatio')} (autocannon), ${m('captureToDurableRatioH2load')} (h2load)`,
)
