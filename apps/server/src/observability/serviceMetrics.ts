import { readFileSync } from 'node:fs'
import { deadLetterQueue, type ClickHouse } from '@burrow/clickhouse'
import { Counter, Gauge, type Registry } from 'prom-client'

/**
 * The release, from the server's package.json: beside the built dist/ (one folder up from its
 * files), or two folders up from this source file (src/observability/).
 */
export const SERVICE_VERSION: string = (() => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === '@burrow/server') return pkg.version ?? 'unknown'
    } catch {
      // Not there: the next candidate.
    }
  }
  return 'unknown'
})()

// Set by the build (scripts/build.mjs) to the commit it built; absent when the sources run directly (tests, tsx).
declare const __BURROW_COMMIT__: string | undefined

/** The git commit the running build was made from: "unknown" for sources run directly, or a build without git and BURROW_COMMIT. */
export const SERVICE_COMMIT: string = typeof __BURROW_COMMIT__ === 'string' && __BURROW_COMMIT__ !== '' ? __BURROW_COMMIT__ : 'unknown'

/** Which release, commit and runtime an instance runs, as a gauge of 1 with labels (Prometheus' convention for build info). */
export function registerBuildInfo(registry: Registry): void {
  new Gauge({
    name: 'burrow_build_info',
    help: 'The release, commit and Node.js version this instance runs (always 1)',
    labelNames: ['version', 'commit', 'node_version'] as const,
    registers: [registry],
  }).set({ version: SERVICE_VERSION, commit: SERVICE_COMMIT, node_version: process.version }, 1)
}

/**
 * A figure read from a store in the background, every `intervalMs` and each read within
 * `timeoutMs`, so that a scrape reads the last value at once: a store that hangs must not hold
 * /_metrics past Prometheus' scrape timeout. Undefined until a read succeeds; a read that
 * fails leaves the last value (burrow_dependency_up says why it is not fresh).
 */
export function refreshedInBackground<T>(read: (signal: AbortSignal) => Promise<T>, options: { intervalMs: number; timeoutMs: number }) {
  let value: T | undefined
  let running = false
  const refresh = async () => {
    if (running) return
    running = true
    const abort = new AbortController()
    let timer: NodeJS.Timeout | undefined
    try {
      value = await Promise.race([
        read(abort.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), options.timeoutMs)
        }),
      ])
    } catch {
      // The last value stands.
    } finally {
      clearTimeout(timer)
      abort.abort()
      running = false
    }
  }
  void refresh()
  const interval = setInterval(() => void refresh(), options.intervalMs)
  interval.unref()
  return { value: () => value, stop: () => clearInterval(interval) }
}

/** How often the dead letter queue is counted: scrapes every few seconds need not each ask ClickHouse. */
const DEAD_LETTERS_EVERY_MS = 15_000

/** Rows in the dead letter queue: events ClickHouse refused, waiting to be repaired and replayed (`cli dlq`). Answers its stop. */
export function registerDeadLetterGauge(registry: Registry, ch: ClickHouse, timeoutMs: number): () => void {
  const rows = refreshedInBackground(
    async (signal) => {
      const result = await ch.reader.query({
        query: `SELECT count() AS n FROM ${deadLetterQueue.DEAD_LETTER_TABLE}`,
        format: 'JSONEachRow',
        abort_signal: signal,
      })
      const [row] = await result.json<{ n: string }>()
      return Number(row?.n ?? 0)
    },
    { intervalMs: DEAD_LETTERS_EVERY_MS, timeoutMs },
  )
  new Gauge({
    name: 'burrow_dead_letter_queue_rows',
    help: 'Rows in the dead letter queue (refused events waiting to be replayed), counted in the background every 15 s',
    registers: [registry],
    collect() {
      const value = rows.value()
      if (value !== undefined) this.set(value)
    },
  })
  return rows.stop
}

/** What an operator watches of the instance's own room: DATA_DIR's file system and the spool's bound. */
export function registerRoomGauges(
  registry: Registry,
  options: {
    disk: { room(): { freeBytes: number; totalBytes: number; reserveBytes: number } }
    /** The watch of the reserve's crossings (disk.ts): whether free space is below it, and how often it crossed it. */
    reserve: () => { below: boolean; wentBelow: number; cameBack: number }
    spoolMaxBytes: number
  },
): void {
  const registers = [registry]
  new Gauge({
    name: 'burrow_disk_below_reserve',
    help: "1 while free space on DATA_DIR's file system is below the reserve and capture refuses new events (503), else 0",
    registers,
    collect() {
      this.set(options.reserve().below ? 1 : 0)
    },
  })
  new Counter({
    name: 'burrow_disk_reserve_crossings_total',
    help: 'Times free space on DATA_DIR crossed the reserve since the start: going below it (capture refuses) or back above it',
    labelNames: ['direction'] as const,
    registers,
    collect() {
      const state = options.reserve()
      this.reset()
      this.inc({ direction: 'below' }, state.wentBelow)
      this.inc({ direction: 'above' }, state.cameBack)
    },
  })
  new Gauge({
    name: 'burrow_disk_free_bytes',
    help: "Bytes free for the service on DATA_DIR's file system; capture refuses events below burrow_disk_reserve_bytes",
    registers,
    collect() {
      this.set(options.disk.room().freeBytes)
    },
  })
  new Gauge({
    name: 'burrow_disk_total_bytes',
    help: "Size of DATA_DIR's file system",
    registers,
    collect() {
      this.set(options.disk.room().totalBytes)
    },
  })
  new Gauge({
    name: 'burrow_disk_reserve_bytes',
    help: 'Free bytes kept on DATA_DIR (DISK_RESERVE_BYTES and one spool segment): below it capture answers 503',
    registers,
    collect() {
      this.set(options.disk.room().reserveBytes)
    },
  })
  new Gauge({
    name: 'burrow_spool_max_bytes',
    help: 'SPOOL_MAX_BYTES: the spool of acknowledged events past which capture answers 503',
    registers,
  }).set(options.spoolMaxBytes)
}

/** Readiness as the probe answers it, for alerts: 1 ready, 0 not; and each check's state. */
export function registerReadinessGauges(
  registry: Registry,
  report: () => { status: 'ok' | 'degraded' | 'unavailable'; checks: Record<string, { status: 'ok' | 'failing' }> },
): void {
  new Gauge({
    name: 'burrow_ready',
    help: 'Whether /_readyz answers 200 (1: ok or degraded) or 503 (0: starting, stopping, or a critical check failing)',
    registers: [registry],
    collect() {
      this.set(report().status === 'unavailable' ? 0 : 1)
    },
  })
  new Gauge({
    name: 'burrow_readiness_check_ok',
    help: "Whether each of readiness's checks passes (1) or fails (0): disk, spool, postgres, clickhouse, redis",
    labelNames: ['check'] as const,
    registers: [registry],
    collect() {
      for (const [check, outcome] of Object.entries(report().checks)) this.set({ check }, outcome.status === 'ok' ? 1 : 0)
    },
  })
}
