import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StandinCommand, StandinReply } from './control'
import type { FaultRule } from './faults'

const HERE = path.dirname(fileURLToPath(import.meta.url))

export interface StandinProcessOptions {
  /** The engine's data directory; a fresh temporary one (removed at stop) when absent. */
  path?: string
  user?: string
  password?: string
  configFile?: string
  /** Bound on a request's line and headers: a longer URL is answered 431, as a proxy in front (nginx: 8 KB) answers it. */
  maxHeaderBytes?: number
}

/** A ClickHouse stand-in running as a separate process, driven by the test that started it. */
export interface StandinProcess {
  readonly url: string
  readonly pid: number
  /** The next matching requests meet this fault. */
  inject(rule: FaultRule): Promise<void>
  clearFaults(): Promise<void>
  /** Stops accepting connections and drops the open ones, as a server going down does. */
  refuse(): Promise<void>
  accept(): Promise<void>
  stop(): Promise<void>
}

type CommandWithoutId = StandinCommand extends infer C ? (C extends StandinCommand ? Omit<C, 'id'> : never) : never

/** Starts `clickhouse:standin` as a child process and resolves once it listens. */
export async function startStandinProcess(options: StandinProcessOptions = {}): Promise<StandinProcess> {
  const ownDir = options.path ? undefined : mkdtempSync(path.join(tmpdir(), 'burrow-standin-'))
  const dataDir = options.path ?? ownDir!
  const args = ['--import', 'tsx', path.join(HERE, 'main.ts'), '--port', '0', '--path', dataDir]
  if (options.user !== undefined) args.push('--user', options.user)
  if (options.password !== undefined) args.push('--password', options.password)
  if (options.configFile !== undefined) args.push('--config-file', options.configFile)
  if (options.maxHeaderBytes !== undefined) args.push('--max-header-bytes', String(options.maxHeaderBytes))
  const child = spawn(process.execPath, args, { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  const url = await listeningUrl(child)

  let nextId = 1
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>()
  child.on('message', (reply: StandinReply) => {
    const entry = waiting.get(reply.id)
    waiting.delete(reply.id)
    if (reply.ok) entry?.resolve()
    else entry?.reject(new Error(reply.error))
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const send = (command: CommandWithoutId) =>
    new Promise<void>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      child.send({ ...command, id }, (err) => {
        if (err) {
          waiting.delete(id)
          reject(err)
        }
      })
    })

  return {
    url,
    pid: child.pid!,
    inject: (rule) => send({ op: 'fault', rule }),
    clearFaults: () => send({ op: 'clear-faults' }),
    refuse: () => send({ op: 'refuse' }),
    accept: () => send({ op: 'accept' }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const late = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exited
        clearTimeout(late)
      }
      if (ownDir) rmSync(ownDir, { recursive: true, force: true })
    },
  }
}

/** The URL the child prints once it listens; its output so far when it exits first. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the ClickHouse stand-in did not start within 60 s: ${out}${err}`))
    }, 60_000)
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (\S+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the ClickHouse stand-in exited (${code ?? signal}) before listening: ${out}${err}`))
    })
  })
}
