import { execFile, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

export const SERVER_DIR = path.resolve(import.meta.dirname, '..')

export interface ServiceProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
}

/** The server built as `npm start` builds it, in a directory of its own inside the workspace (where its packages resolve). */
export interface BuiltServer {
  main: string
  cli: string
  remove: () => void
}

export async function buildServer(): Promise<BuiltServer> {
  const dir = mkdtempSync(path.join(SERVER_DIR, '.build-'))
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', dir], { cwd: SERVER_DIR })
  return { main: path.join(dir, 'main.mjs'), cli: path.join(dir, 'cli.mjs'), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * The environment of `npm start` on embedded defaults in `dataDir`: the suite's PostgreSQL,
 * Redis and ClickHouse server URLs are left out (add `clickHouseEnvFor(dataDir)` to the
 * overrides to keep the suite's ClickHouse in its server mode). The log's info lines are kept:
 * readiness is read from them.
 */
export function embeddedEnv(dataDir: string, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, CLICKHOUSE_URL: _ch, REDIS_URL: _redis, ...env } = process.env
  return { ...env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...overrides }
}

/**
 * The service in a child process with this environment, from its TypeScript sources or, given
 * `built`, as `npm start` runs it; resolves once it is ready.
 */
export function startServiceProcess(env: NodeJS.ProcessEnv, built?: BuiltServer): Promise<ServiceProcess> {
  const args = built ? [built.main] : ['--import', 'tsx', 'src/main.ts']
  return readyOrFailed(spawn(process.execPath, args, { cwd: SERVER_DIR, env }))
}

/** `npm start` itself, run at the repository's root as a user runs it: the child is npm's process. */
export function startWithNpmStart(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  return readyOrFailed(spawn('npm', ['start'], { cwd: path.resolve(SERVER_DIR, '..', '..'), env }))
}

function readyOrFailed(child: ChildProcessWithoutNullStreams): Promise<ServiceProcess> {
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not become ready:\n${output}`)), 90_000)
    let port: string | undefined
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      port ??= /listening on [^:]+:(\d+)/.exec(output)?.[1]
      if (port && output.includes('"msg":"ready"')) {
        clearTimeout(timer)
        resolve({ child, baseUrl: `http://127.0.0.1:${port}`, output: () => output })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`service exited with ${code}:\n${output}`))
    })
  })
}

export function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}
