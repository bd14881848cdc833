// Shared parts of the benchmark scripts: child processes, the service on embedded defaults,
// the load generator, and statistics.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import autocannon from 'autocannon'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const RUNS = Number(process.env.BENCH_RUNS ?? 3)
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
export const CONNECTIONS = 32
export const KEY = 'phx_benchmarkbenchmarkbenchmarkbenchmark00'

export interface Child {
  process: ChildProcess
  output: () => string
}

/** Starts node with `args` and resolves once its output matches `ready`. */
export function start(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; ready: RegExp },
): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env })
  let output = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = options.ready.exec(output)
      if (match) resolve({ process: child, output: () => output, match })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)))
  })
}

export async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null) return
  const exited = new Promise((resolve) => child.process.once('exit', resolve))
  child.process.kill('SIGTERM')
  await exited
}

/**
 * Load from autocannon: CONNECTIONS connections, closed-loop, for SECONDS. Fails if any answer
 * was not a 2xx (or a request failed): a rate of error answers is not the rate measured.
 */
export function load(url: string, body: string, options: { overallRate?: number } = {}): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: CONNECTIONS,
        duration: SECONDS,
        ...options,
      },
      (err, result) => {
        if (err) reject(err instanceof Error ? err : new Error(String(err)))
        else if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
          reject(new Error(`${url}: ${result.non2xx} answers were not 2xx, ${result.errors} errors, ${result.timeouts} timeouts`))
        } else resolve(result)
      },
    )
  })
}

/** Connections of the paced load: each sends only every 10–50 ms at the rates measured. */
const PACED_CONNECTIONS = 128

/**
 * Load from h2load (Debian's nghttp2-client), a load generator written in C. Without `rate`
 * it runs closed-loop on CONNECTIONS connections for SECONDS, like `load`; it costs less CPU
 * than autocannon, so the server, not the generator, sets the pace. With `rate` it paces:
 * each of PACED_CONNECTIONS connections sends at an even interval and the connections start
 * staggered, so requests arrive evenly spread (autocannon's `overallRate` instead sends each
 * second's quota at full speed at the start of the second). `seconds` replaces SECONDS. Answers
 * the requests per second and, when paced, every request's latency in ms and the time it was
 * sent (ms since the epoch); fails if any answer was not a 2xx.
 */
export async function h2load(
  url: string,
  body: string,
  options: { rate?: number; seconds?: number } = {},
): Promise<{ requestsPerSec: number; latenciesMs: number[]; sentAtMs: number[] }> {
  const seconds = options.seconds ?? SECONDS
  const dir = mkdtempSync(path.join(tmpdir(), 'burrow-h2load-'))
  try {
    const bodyFile = path.join(dir, 'body.json')
    const logFile = path.join(dir, 'requests.log')
    writeFileSync(bodyFile, body)
    // Connections start rate/1000 per millisecond, which spreads their start over one interval
    // of a connection's sending: requests then arrive about evenly, millisecond by millisecond.
    const load = options.rate
      ? [
          '-c',
          String(PACED_CONNECTIONS),
          '-r',
          String(Math.max(1, Math.round(options.rate / 1000))),
          '--rate-period',
          '1ms',
          '-n',
          String(Math.round(options.rate * seconds)),
          '--rps',
          (options.rate / PACED_CONNECTIONS).toFixed(3),
          '--log-file',
          logFile,
        ]
      : ['-c', String(CONNECTIONS), '-D', String(seconds)]
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'h2load',
        ['--h1', ...load, '-d', bodyFile, '-H', 'content-type: application/json', url],
        { maxBuffer: 1 << 20 },
        (err, stdout) => {
          if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT')
            reject(new Error("h2load is missing: install Debian's nghttp2-client (apt-get install nghttp2-client)"))
          else if (err) reject(new Error(err.message, { cause: err }))
          else resolve(stdout)
        },
      )
    })
    const done = Number(/requests: \d+ total, \d+ started, (\d+) done/.exec(output)?.[1])
    const ok = Number(/status codes: (\d+) 2xx/.exec(output)?.[1])
    if (!(done > 0) || ok !== done) throw new Error(`${url}: ${ok} of ${done} answers were 2xx:\n${output}`)
    const requestsPerSec = Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(output)?.[1] ?? Number.NaN)
    // The log's lines: the time a request was sent (µs since the epoch), its status, its latency (µs).
    const logged = options.rate
      ? readFileSync(logFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split('\t'))
      : []
    const latenciesMs = logged.map((fields) => Number(fields[2]) / 1000)
    const sentAtMs = logged.map((fields) => Number(fields[0]) / 1000)
    return { requestsPerSec, latenciesMs, sentAtMs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Linux's clock tick for the CPU times in /proc (USER_HZ, 100 on the platforms Node runs on). */
const TICK_US = 10_000

/** CPU time (user and system) one thread has used so far, in µs; 0 if it has ended meanwhile. */
function taskCpuUs(pid: number, tid: number | string): number {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
  } catch {
    return 0
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_US
}

/** CPU time a process has used so far, in µs: its main thread's, and its other threads' together. */
function threadCpuUs(pid: number): { main: number; others: number } {
  const cpu = { main: 0, others: 0 }
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) cpu.main += taskCpuUs(pid, tid)
    else cpu.others += taskCpuUs(pid, tid)
  }
  return cpu
}

/**
 * Waits until the process has been nearly idle (under a tenth of a core) for two seconds, at
 * most `maxMs`: the merges and background work a phase of load leaves behind are then done
 * before the next phase is measured, rather than charged to it.
 */
export async function untilIdle(pid: number, maxMs = 90_000): Promise<void> {
  const started = performance.now()
  let quietWindows = 0
  let before = threadCpuUs(pid)
  while (quietWindows < 2 && performance.now() - started < maxMs) {
    await sleep(1000)
    const now = threadCpuUs(pid)
    const used = now.main + now.others - before.main - before.others
    quietWindows = used < 100_000 ? quietWindows + 1 : 0
    before = now
  }
}

/** CPU time of this process's main thread so far, in µs. */
export function mainThreadCpuUs(): number {
  return taskCpuUs(process.pid, process.pid)
}

export interface CpuPerRequest {
  /** The server's event-loop thread. */
  mainUs: number
  /** The server's other threads: V8's garbage collector helpers, the thread pool, the embedded ClickHouse's. */
  otherThreadsUs: number
  /** This process: autocannon runs in it. */
  loadGeneratorUs: number
}

/** Runs a load against the server `pid` and tells the CPU each request cost, where. */
export async function cpuPerRequest<T>(
  pid: number,
  body: () => Promise<T>,
  requests: (result: T) => number,
): Promise<{ result: T; cpu: CpuPerRequest }> {
  const before = threadCpuUs(pid)
  const ownBefore = process.cpuUsage()
  const result = await body()
  const own = process.cpuUsage(ownBefore)
  const after = threadCpuUs(pid)
  const n = Math.max(1, requests(result))
  const perRequest = (us: number) => Math.round((us / n) * 10) / 10
  return {
    result,
    cpu: {
      mainUs: perRequest(after.main - before.main),
      otherThreadsUs: perRequest(after.others - before.others),
      loadGeneratorUs: perRequest(own.user + own.system),
    },
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? Number.NaN

/** A memory figure of a process from /proc, in MB. */
function memoryMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Math.round(Number(kb) / 1024)
}

/** The peak resident set size of a process, in MB. */
export const peakRssMb = (pid: number) => memoryMb(pid, 'VmHWM')

/** The resident set size of a process now, in MB. */
export const rssMb = (pid: number) => memoryMb(pid, 'VmRSS')

export interface Service {
  child: Child
  base: string
  token: string
  api: (p: string, init?: { method?: string; body?: unknown }) => Promise<any>
  /** The longest event-loop stalls in the last minute (see LoopStalls). */
  loopStalls: () => Promise<LoopStalls>
}

/**
 * The longest event-loop stalls of the service's main thread and its capture threads, in ms,
 * to within the 1 ms sampling interval: as wall time (the delay metrics, which include waiting
 * for a core) and as the thread's own CPU time (what its work held the loop).
 */
export interface LoopStalls {
  mainDelayMs: number
  captureDelayMs: number
  mainBusyMs: number
  captureBusyMs: number
}

/** The service is measured as production runs it: the built JavaScript (`npm start` builds it the same way). */
let serverBuilt: Promise<unknown> | undefined

/** Starts the built service on `dataDir`; a directory it ran on before has its project already, whose key is `token`. */
export async function startService(dataDir: string, token?: string, extraEnv: Record<string, string> = {}): Promise<Service> {
  const { DATABASE_URL: _d, CLICKHOUSE_URL: _c, REDIS_URL: _r, ...env } = process.env
  await (serverBuilt ??= promisify(execFile)(process.execPath, [path.join(ROOT, 'apps/server/scripts/build.mjs')]))
  // BENCH_NODE_ARGS: node's own options for the service, such as `--cpu-prof --cpu-prof-dir=DIR`
  // for a CPU profile of each of its threads (node refuses them in NODE_OPTIONS).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = await start([...nodeArgs, path.join(ROOT, 'apps/server/dist/main.mjs')], {
    cwd: ROOT,
    // The loop is sampled every millisecond, so that the longest delay reported is the longest
    // stall to within 1 ms (at the default 10 ms, an idle loop already reads 10 ms).
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BOOTSTRAP_PERSONAL_API_KEY: KEY,
      EVENT_LOOP_SAMPLE_MS: '1',
      ...extraEnv,
    },
    ready: /"msg":"ready"/,
  })
  const port = /listening on [^:]+:(\d+)/.exec(child.output())![1]
  const printed = /"project_api_key":"(phc_\w+)"/.exec(child.output())?.[1]
  if (!printed && !token) throw new Error('the service did not create a project, and no project key was given')
  token = printed ?? token!
  const base = `http://127.0.0.1:${port}`
  while (
    !(await fetch(`${base}/_health`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await sleep(50)
  const api = async (p: string, init: { method?: string; body?: unknown } = {}) =>
    (
      await fetch(`${base}${p}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      })
    ).json()
  const loopStalls = async (): Promise<LoopStalls> => {
    const metric = await metricsAt(base)
    // The capture threads' figures are 0 when capture runs on the main thread.
    const ms = (name: string) => Math.round((metric(name) || 0) * 1000)
    return {
      mainDelayMs: ms('nodejs_eventloop_lag_max_seconds'),
      captureDelayMs: ms('burrow_capture_eventloop_lag_max_seconds'),
      mainBusyMs: ms('burrow_eventloop_busy_max_seconds'),
      captureBusyMs: ms('burrow_capture_eventloop_busy_max_seconds'),
    }
  }
  return { child, base, token: token, api, loopStalls }
}

/**
 * How many events the service has stored since it started (the events list's count stops at
 * 1,000 past the page, so the insert counter is read instead).
 */
export async function storedEventCount(service: Service): Promise<number> {
  return (await metricsAt(service.base))('burrow_events_inserted_total') || 0
}

/**
 * One scrape of the service's /_metrics at `base`, answered as a reader of its metrics, a
 * labelled one named with its labels as the service writes them (NaN for one that is not there).
 */
export async function metricsAt(base: string): Promise<(name: string) => number> {
  const text = await (await fetch(`${base}/_metrics`)).text()
  // Labels in a name (`x{stage="persons"}`) are matched as written.
  const escaped = (name: string) => name.replace(/[{}"\\]/g, (c) => `\\${c}`)
  return (name) => Number(new RegExp(`^${escaped(name)} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
}

/** A fresh data directory the embedded PostgreSQL (running as its own user) can enter. */
export function benchDataDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}

/** Runs `body` with the service started on a fresh data directory, then stops it and removes the directory. */
export async function withService<T>(
  prefix: string,
  body: (service: Service, dataDir: string) => Promise<T>,
  extraEnv: Record<string, string> = {},
): Promise<T> {
  const dataDir = benchDataDir(prefix)
  const service = await startService(dataDir, undefined, extraEnv)
  try {
    return await body(service, dataDir)
  } finally {
    await stop(service.child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Runs `body` with a reference handler (a script that prints its port) listening at the URL it is given. */
async function withHandler<T>(args: string[], path: string, body: (url: string, pid: number) => Promise<T>): Promise<T> {
  const handler = await start(['--import', 'tsx', ...args], { cwd: ROOT, ready: /port (\d+)/ })
  try {
    return await body(`http://127.0.0.1:${handler.match[1]}${path}`, handler.process.pid!)
  } finally {
    await stop(handler)
  }
}

/** Runs `body` with the bare uWebSockets.js handler (baseline b) listening at the URL it is given. */
export function withBareUws<T>(path: string, body: (url: string, pid: number) => Promise<T>): Promise<T> {
  return withHandler(['scripts/bench/bareUws.ts'], path, body)
}

/** Runs `body` with the durable handler (reference c: baseline b answering after the spool's write), its spool in `dataDir`. */
export function withDurableUws<T>(dataDir: string, path: string, body: (url: string, pid: number) => Promise<T>): Promise<T> {
  return withHandler(['scripts/bench/durableUws.ts', dataDir], path, body)
}

/** Baseline: the bare uWebSockets.js handler under the same load (autocannon) and body, in requests per second. */
export async function bareUwsRequestsPerSec(path: string, body: string): Promise<number> {
  return withBareUws(path, async (url) => Math.round((await load(url, body)).requests.average))
}

/** Runs the benchmark RUNS times, printing each run's figures; answers the median of a figure. */
export async function medianOfRuns<T extends object>(run: () => Promise<T>): Promise<(key: keyof T) => number> {
  const runs: T[] = []
  for (let i = 0; i < RUNS; i++) {
    runs.push(await run())
    console.log(`run ${i + 1}: ${JSON.stringify(runs.at(-1))}`)
  }
  return (key) => median(runs.map((r) => Number(r[key])))
}

export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100
