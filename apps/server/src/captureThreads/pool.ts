import { createServer } from 'node:net'
import { Worker } from 'node:worker_threads'
import type { DeadLetterRow, IngestionWarningRow } from '@burrow/clickhouse'
import type { GuessedKey, GuessVerdict, IngestionProject, PersonalKeyProject, ProjectFlags } from '@burrow/core'
import type { Scope } from '@burrow/contracts'
import type { FlagGroupsLoader, ProxyTrust } from '@burrow/capture'
import type { FlagPerson } from '@burrow/postgres'
import type { SegmentWriter, SpoolBytes, SpoolWriterOptions } from '@burrow/spool'
import type { MetricObjectWithValues, MetricValue } from 'prom-client'
import type { AnsweredRequest, Lifecycle } from '../http/dispatch'
import type { Dispatcher, IncomingRequest } from '../http/uwsServer'
import { asBuffer, connectPeer, type Peer } from './peer'
import { committedFrames } from './laneReports'
import type { CaptureThreadData, LaneEvent, LaneSpool } from './protocol'

/** One thread's metrics as prom-client's aggregation takes them. */
type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[]

/** What the capture threads ask of the main thread once it is ready. */
export interface CaptureServices {
  resolveProject(token: string): Promise<IngestionProject | null>
  resolveWithPersonalKey(key: string, projectId: string, scope: Scope): Promise<PersonalKeyProject>
  storeDeadLetters(letters: DeadLetterRow[]): Promise<void>
  storeIngestionWarnings(warnings: IngestionWarningRow[]): Promise<void>
  /** For /decide/, answered by the threads: a project's flags (kept in the thread), and a stored person. */
  projectFlags(projectId: number): Promise<ProjectFlags>
  flagPerson(projectId: number, distinctId: string, continuity?: { anonId: string; flagKeys: string[] }): Promise<FlagPerson | undefined>
  /** The shared salt of a day's cookieless hashes (base64). */
  cookielessSalt(day: string): Promise<string>
  /** The shared sessions and identifies of stateful cookieless mode. */
  cookielessStateGet(keys: string[]): Promise<Array<string | undefined>>
  cookielessStateSet(entries: Array<[string, string]>, ttlSeconds: number): Promise<void>
  /** The stored properties of groups, for group flags, and the early access features posthog-js lists. */
  flagGroups: FlagGroupsLoader
  earlyAccessFeatures(projectId: number, stages: string[]): Promise<unknown[]>
  /** Counts an invalid key from an address in the shared count, and says how to answer it. */
  judgeKeyGuess(kind: GuessedKey, address: string): Promise<GuessVerdict>
  /** Counts a request's events against its project's quota; how long to wait when over it. */
  admitEvents(projectId: number, events: number): Promise<number | undefined>
}

export interface CaptureThreadsOptions {
  count: number
  host: string
  port: number
  maxBodyBytes: number
  maxDecompressedBytes: number
  trustProxy: ProxyTrust
  /** Whether projects have a quota of events a second (CAPTURE_EVENTS_PER_SECOND). */
  eventQuota: boolean
  siteUrl: string | undefined
  eventLoopSampleMs: number
  spoolBytes: SpoolBytes
  spoolMaxBytes: number
  disk: CaptureThreadData['disk']
  /** Answers the requests that are not capture: the main thread's own routes. */
  dispatch: Dispatcher
  /** Undefined until the service is ready (capture answers 503 until then). */
  services: () => CaptureServices | undefined
  /** A warning, or a failure with its error. */
  log: (msg: string, err?: unknown) => void
  /** Told of each request a thread answers itself (the others reach `dispatch`); absent, the threads say nothing. */
  onAnswered?: ((entry: AnsweredRequest) => void) | undefined
}

export interface CaptureThreads {
  port: number
  /** The writer for the spool of thread `lane`: a stand-in that hears of the commits the thread makes. */
  writerFor(lane: number): (options: SpoolWriterOptions) => SegmentWriter
  setLifecycle(lifecycle: Lifecycle): void
  /** Tells the threads to forget a project token (its project changed). */
  invalidate(token: string): void
  /** Tells the threads to forget a project's flags (a flag or cohort changed). */
  invalidateFlags(projectId: number): void
  /** Each thread's metrics, for aggregation with the main thread's. */
  metrics(): Promise<ThreadMetrics[]>
  stopListening(): void
  /** Ends the threads; call after their spools are closed. */
  terminate(): Promise<void>
}

/** A thread's spool lane as this thread sees it. */
interface Lane {
  /** The spool the thread's commits go to, once it is open. */
  spool: SpoolWriterOptions | undefined
  /** The segment the thread writes to. */
  activeSeq: number
}

interface Thread {
  worker: Worker
  peer: Peer
  lane: Lane
}

/**
 * What a thread runs. The built server (dist/) has the thread as a module of its own beside this
 * one; from the TypeScript sources (tests, development) a bootstrap first registers the loader,
 * which a worker does not inherit from the main thread, then imports the thread's module.
 */
const THREAD = import.meta.url.endsWith('.ts')
  ? { script: new URL('./bootstrap.mjs', import.meta.url), entry: new URL('./thread.ts', import.meta.url).href }
  : { script: new URL('./captureThread.mjs', import.meta.url), entry: undefined }

/**
 * Of node's own options, the threads take only those that profile (`--cpu-prof`, `--heap-prof`
 * and their settings), so that a profile of the service has one file per capture thread too.
 */
const PROFILING = process.execArgv.filter((arg) => /^--(cpu|heap)-prof/.test(arg))

function notReady(): never {
  throw new Error('the service is not ready')
}

/** A port free on `host` now: threads can share a port they name, not one each is given for port 0. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** Ends the threads, their connections closed first (see HttpServer.closeConnections). */
async function endThreads(threads: Thread[]): Promise<void> {
  await Promise.all(threads.map((thread) => thread.peer.call('closeConnections').catch(() => undefined)))
  await Promise.all(threads.map((thread) => thread.worker.terminate()))
}

/**
 * Starts `count` capture threads listening on one port (SO_REUSEPORT: the kernel spreads
 * connections over them), each with its own spool lane whose consumer runs here.
 */
export async function startCaptureThreads(options: CaptureThreadsOptions): Promise<CaptureThreads> {
  const data: Omit<CaptureThreadData, 'entry'> = {
    host: options.host,
    maxBodyBytes: options.maxBodyBytes,
    maxDecompressedBytes: options.maxDecompressedBytes,
    trustProxy: options.trustProxy,
    eventQuota: options.eventQuota,
    siteUrl: options.siteUrl,
    eventLoopSampleMs: options.eventLoopSampleMs,
    spoolBytes: options.spoolBytes.shared,
    reportRequests: options.onAnswered !== undefined,
    spoolMaxBytes: options.spoolMaxBytes,
    disk: options.disk,
  }
  let stopping = false
  const threads: Thread[] = []
  for (let i = 0; i < options.count; i++) {
    const worker = new Worker(THREAD.script, {
      workerData: { ...data, entry: THREAD.entry } satisfies CaptureThreadData,
      execArgv: PROFILING,
    })
    const lane: Lane = { spool: undefined, activeSeq: 0 }
    /** The requests this thread passed on that are being answered, by the thread's number for each. */
    const forwarded = new Map<number, AbortController>()
    const peer = connectPeer(
      worker,
      {
        log: (msg: string, err?: unknown) => options.log(`capture thread ${i}: ${msg}`, err),
        answered: (entry: AnsweredRequest) => options.onAnswered?.(entry),
        dispatch: async (req: IncomingRequest, id: number) => {
          const gone = new AbortController()
          forwarded.set(id, gone)
          try {
            return await options.dispatch({ ...req, body: asBuffer(req.body), signal: gone.signal })
          } finally {
            forwarded.delete(id)
          }
        },
        aborted: (id: number) => forwarded.get(id)?.abort(),
        loadProject: (token: string) => (options.services() ?? notReady()).resolveProject(token),
        resolveWithPersonalKey: (key: string, projectId: string, scope: Scope) =>
          (options.services() ?? notReady()).resolveWithPersonalKey(key, projectId, scope),
        storeDeadLetters: (letters: DeadLetterRow[]) => (options.services() ?? notReady()).storeDeadLetters(letters),
        storeIngestionWarnings: (warnings: IngestionWarningRow[]) => (options.services() ?? notReady()).storeIngestionWarnings(warnings),
        projectFlags: (projectId: number) => (options.services() ?? notReady()).projectFlags(projectId),
        flagPerson: (projectId: number, distinctId: string, continuity?: { anonId: string; flagKeys: string[] }) =>
          (options.services() ?? notReady()).flagPerson(projectId, distinctId, continuity),
        cookielessSalt: (day: string) => (options.services() ?? notReady()).cookielessSalt(day),
        cookielessStateGet: (keys: string[]) => (options.services() ?? notReady()).cookielessStateGet(keys),
        cookielessStateSet: (entries: Array<[string, string]>, ttlSeconds: number) =>
          (options.services() ?? notReady()).cookielessStateSet(entries, ttlSeconds),
        flagGroups: (projectId: number, groups: Array<{ groupTypeIndex: number; groupKey: string }>) =>
          (options.services() ?? notReady()).flagGroups(projectId, groups),
        earlyAccessFeatures: (projectId: number, stages: string[]) =>
          (options.services() ?? notReady()).earlyAccessFeatures(projectId, stages),
        judgeKeyGuess: (kind: GuessedKey, address: string) => (options.services() ?? notReady()).judgeKeyGuess(kind, address),
        admitEvents: (projectId: number, events: number) => (options.services() ?? notReady()).admitEvents(projectId, events),
        lane: (events: LaneEvent[], written: ArrayBuffer) => {
          for (const event of events) {
            if (event.kind === 'rotate') {
              lane.activeSeq = event.seq + 1
              lane.spool?.onRotate(event.seq, event.size)
              continue
            }
            lane.spool?.onCommit(event.seq, event.end, committedFrames(event.frames, written))
          }
        },
      },
      options.log,
    )
    worker.on('error', (err) => options.log(`capture thread ${i} failed`, err))
    worker.on('exit', (code) => {
      peer.fail(`capture thread ${i} exited`)
      if (!stopping) options.log(`capture thread ${i} exited with code ${code}`)
    })
    threads.push({ worker, peer, lane })
  }

  try {
    const port = options.port === 0 ? await freePort(options.host) : options.port
    await Promise.all(threads.map((thread) => thread.peer.call('listen', port)))
    return {
      port,
      writerFor: (index) => (spool) => {
        const { peer, lane } = threads[index]!
        lane.spool = spool
        lane.activeSeq = spool.firstSeq
        return {
          get activeSeq() {
            return lane.activeSeq
          },
          prepare: () =>
            peer.notify('openSpool', [
              {
                dir: spool.dir,
                firstSeq: spool.firstSeq,
                segmentBytes: spool.segmentBytes,
                writesInFlight: spool.writesInFlight,
              } satisfies LaneSpool,
            ]),
          append: () => Promise.reject(new Error('capture threads append to their own spool lanes')),
          close: () => peer.call('closeSpool'),
        }
      },
      setLifecycle: (lifecycle) => threads.forEach((thread) => thread.peer.notify('lifecycle', [lifecycle])),
      invalidate: (token) => threads.forEach((thread) => thread.peer.notify('invalidate', [token])),
      invalidateFlags: (projectId) => threads.forEach((thread) => thread.peer.notify('invalidateFlags', [projectId])),
      metrics: () => Promise.all(threads.map((thread) => thread.peer.call<ThreadMetrics>('metrics'))),
      stopListening: () => threads.forEach((thread) => thread.peer.notify('stopListening', [])),
      async terminate() {
        stopping = true
        await endThreads(threads)
      },
    }
  } catch (err) {
    stopping = true
    await endThreads(threads)
    throw err
  }
}
