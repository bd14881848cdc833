// The sustained-load benchmark: `npm run bench:soak`. Starts the service on embedded defaults
// and drives it for SOAK_MINUTES (default 10) at a steady pace: SOAK_CAPTURE_RATE single-event
// /capture/ requests a second (default 5000) and SOAK_BATCH_RATE 100-event /batch/ requests a
// second (default 50), both evenly paced by h2load. Every 30 s it prints the service's resident
// memory, its main thread's heap, the spool's size and the events stored so far; at the end,
// whether every acknowledged event was stored, how the memory grew over the second half of the
// run, and the /capture/ latency minute by minute.
import { benchEvent } from './bench/events'
import { h2load, metricsAt, percentile, rssMb, sleep, storedEventCount, withService } from './bench/harness'

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const CAPTURE_RATE = Number(process.env.SOAK_CAPTURE_RATE ?? 5000)
const BATCH_RATE = Number(process.env.SOAK_BATCH_RATE ?? 50)
const BATCH_SIZE = 100
const SAMPLE_MS = 30_000

interface Sample {
  minute: number
  rssMb: number
  /** The main thread's JavaScript heap in use: what of the resident memory is ours rather than the embedded stores'. */
  heapMb: number
  spoolMb: number
  inserted: number
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxx === 0 ? 0 : sxy / sxx
}

await withService('burrow-soak-', async (service) => {
  const pid = service.child.process.pid!
  const captureBody = JSON.stringify({ api_key: service.token, ...benchEvent(1) })
  const batchBody = JSON.stringify({ api_key: service.token, batch: Array.from({ length: BATCH_SIZE }, (_, i) => benchEvent(i)) })
  const seconds = MINUTES * 60
  console.log(`soak: ${MINUTES} min, /capture/ ${CAPTURE_RATE} req/s, /batch/ ${BATCH_RATE} req/s (${BATCH_RATE * BATCH_SIZE} events/s)`)

  const started = performance.now()
  const capture = h2load(`${service.base}/capture/`, captureBody, { rate: CAPTURE_RATE, seconds })
  const batch = h2load(`${service.base}/batch/`, batchBody, { rate: BATCH_RATE, seconds })
  let done = false
  const loads = Promise.all([capture, batch]).finally(() => (done = true))

  const samples: Sample[] = []
  while (!done) {
    await Promise.race([sleep(SAMPLE_MS), loads.catch(() => undefined)])
    if (done) break
    const metric = await metricsAt(service.base)
    const sample = {
      minute: Math.round((performance.now() - started) / 600) / 100,
      rssMb: rssMb(pid),
      heapMb: Math.round(metric('nodejs_heap_size_used_bytes') / 1e6),
      spoolMb: Math.round(metric('burrow_spool_bytes') / 1e5) / 10,
      inserted: metric('burrow_events_inserted_total'),
    }
    samples.push(sample)
    console.log(
      `  ${sample.minute.toFixed(1)} min: RSS ${sample.rssMb} MB, main heap ${sample.heapMb} MB, spool ${sample.spoolMb} MB, ${sample.inserted} events inserted`,
    )
  }
  const [captured, batched] = await loads

  const acknowledged = captured.latenciesMs.length + batched.latenciesMs.length * BATCH_SIZE
  const deadline = performance.now() + 120_000
  let stored = await storedEventCount(service)
  while (stored < acknowledged && performance.now() < deadline) {
    await sleep(1000)
    stored = await storedEventCount(service)
  }

  const secondHalf = samples.filter((s) => s.minute >= MINUTES / 2)
  const firstHalfPeak = Math.max(...samples.filter((s) => s.minute < MINUTES / 2).map((s) => s.rssMb))
  const secondHalfPeak = Math.max(...secondHalf.map((s) => s.rssMb))
  console.log(`\nevents acknowledged ${acknowledged}, stored ${stored}${stored === acknowledged ? '' : '  (NOT ALL STORED)'}`)
  console.log(
    `resident memory: peak ${firstHalfPeak} MB in the first half, ${secondHalfPeak} MB in the second; over the second half ${slope(secondHalf.map((s) => [s.minute, s.rssMb])).toFixed(1)} MB/min`,
  )

  // /capture/ latency minute by minute: a service that degrades over time shows it here.
  const t0 = captured.sentAtMs.reduce((min, at) => Math.min(min, at), Number.POSITIVE_INFINITY)
  const byMinute = new Map<number, number[]>()
  captured.sentAtMs.forEach((at, i) => {
    const minute = Math.floor((at - t0) / 60_000)
    if (!byMinute.has(minute)) byMinute.set(minute, [])
    byMinute.get(minute)!.push(captured.latenciesMs[i]!)
  })
  console.log('/capture/ latency by minute (p50 / p99 ms):')
  console.log(
    `  ${[...byMinute.entries()].map(([minute, ms]) => `${minute}: ${percentile(ms, 50).toFixed(2)}/${percentile(ms, 99).toFixed(1)}`).join('  ')}`,
  )
  if (stored !== acknowledged) process.exitCode = 1
})
