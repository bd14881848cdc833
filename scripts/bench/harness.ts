// Shared parts of the benchmark scripts: child processes, the service on embedded defaults,
// the load generator, and statistics.
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const RUNS = Number(process.env.BENCH_RUNS ?? 3)
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
export const CONNECTIONS = 32
const KEY = 'phx_benchmarkbenchmarkbenchmarkbenchmark00'

export interface Child {
  process: ChildProcess
  output: () => string
}

/** Starts a process and resolves once its output matches `ready`. */
export function start(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; ready: RegExp }): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: options.cwd, env: options.env ?? process.env })
  let output = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = options.ready.exec(output)
      if (match) resolve({ process: child, output: () => output, match })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)))
  })
}

export async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null) return
  const exited = new Promise((resolve) => child.process.once('exit', resolve))
  child.process.kill('SIGTERM')
  await exited
}

export function load(url: string, body: string, options: { overallRate?: number } = {}): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: CONNECTIONS, duration: SECONDS, ...options },
      (err, result) => (err ? reject(err) : resolve(result)),
    )
  })
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? Number.NaN

/** The peak resident set size of a process, in MB (VmHWM). */
export function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Math.round(Number(kb) / 1024)
}

export interface Service {
  child: Child
  base: string
  token: string
  api: (p: string, init?: { method?: string; body?: unknown }) => Promise<any>
  /** The longest event-loop stall since the last call, in ms. */
  loopMaxMs: () => Promise<number>
}

export async function startService(dataDir: string): Promise<Service> {
  const { DATABASE_URL: _d, CLICKHOUSE_URL: _c, REDIS_URL: _r, ...env } = process.env
  const child = await start(['src/main.ts'], {
    cwd: path.join(ROOT, 'apps/server'),
    env: { ...env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', BOOTSTRAP_PERSONAL_API_KEY: KEY },
    ready: /"msg":"ready"/,
  })
  const port = /listening on [^:]+:(\d+)/.exec(child.output())![1]
  const token = /"project_api_key":"(phc_\w+)"/.exec(child.output())![1]!
  const base = `http://127.0.0.1:${port}`
  while (!(await fetch(`${base}/_health`).then((r) => r.ok, () => false))) await sleep(50)
  const api = async (p: string, init: { method?: string; body?: unknown } = {}) =>
    (
      await fetch(`${base}${p}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      })
    ).json()
  const loopMaxMs = async () => {
    const metrics = await (await fetch(`${base}/_metrics`)).text()
    return Math.round(Number(/^burrow_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN) * 1000)
  }
  return { child, base, token, api, loopMaxMs }
}

/** A fresh data directory the embedded PostgreSQL (running as its own user) can enter. */
export function benchDataDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}

/** Runs `body` with the service started on a fresh data directory, then stops it and removes the directory. */
export async function withService<T>(prefix: string, body: (service: Service, dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = benchDataDir(prefix)
  const service = await startService(dataDir)
  try {
    return await body(service, dataDir)
  } finally {
    await stop(service.child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Baseline: a bare uWebSockets.js handler under the same load and body, in requests per second. */
export async function bareUwsRequestsPerSec(path: string, body: string): Promise<number> {
  const bare = await start(['scripts/bench/bareUws.ts'], { cwd: ROOT, ready: /port (\d+)/ })
  try {
    return Math.round((await load(`http://127.0.0.1:${bare.match[1]}${path}`, body)).requests.average)
  } finally {
    await stop(bare)
  }
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

export const ratio = (a: number, b: number) => (a / b).toFixed(2)
