import { parentPort, workerData } from 'node:worker_threads'
import {
  FlagDefinitionsResolver,
  keyGuessGuard,
  ProjectTokenResolver,
  type GuessVerdict,
  type IngestionProject,
  type ProjectFlags,
} from '@burrow/core'
import type { FlagPerson } from '@burrow/postgres'
import { CookielessSalts, type CaptureDeps, type DecideDeps, type StoredGroup } from '@burrow/capture'
import { DiskReserve, SpoolAppender, SpoolBytes, SpoolWriter } from '@burrow/spool'
import { Registry } from 'prom-client'
import { createDispatcher, isPublicSdkPath, type Lifecycle } from '../http/dispatch'
import { monitorEventLoopBusy } from '../observability/eventLoopBusy'
import { monitorEventLoopDelayMax } from '../observability/eventLoopDelay'
import { monitorThreadCpu } from '../observability/threadCpu'
import { startHttpServer, type HttpServer, type IncomingRequest, type OutgoingResponse } from '../http/uwsServer'
import { createServerMetrics } from '../observability/metrics'
import { asBuffer, connectPeer } from './peer'
import { LaneReports } from './laneReports'
import type { CaptureThreadData, LaneSpool } from './protocol'

/**
 * A capture thread: its own event loop serving HTTP on the shared port (the kernel spreads
 * connections over the threads). It answers capture requests itself, from decoding the body
 * to acknowledging it once its frame is durable in the thread's own spool lane, so that an
 * acknowledgement never waits on another thread. It answers /decide/ (and the other public
 * SDK endpoints) too, from the projects and flags it keeps in memory, so that a flag request
 * does not wait for the main thread's turn either. Every other request, and what these need of
 * storage (projects, flags, a stored person, dead letters), goes to the main thread.
 */
const data = workerData as CaptureThreadData
// An error crosses to the main thread as a structured clone (its name, message and stack), which logs it in `err`.
const log = (msg: string, err?: unknown) => main.notify('log', err === undefined ? [msg] : [msg, err])

// A thread that ends with uWS sockets open aborts the whole process: a bug in a request's
// handling is logged, and the thread goes on serving.
process.on('uncaughtException', (err) => log('uncaught exception', err))
process.on('unhandledRejection', (reason) => log('unhandled rejection', reason))

const registry = new Registry()
const metrics = createServerMetrics(registry)
monitorEventLoopDelayMax({
  registry,
  name: 'burrow_capture_eventloop_lag_max_seconds',
  help: 'The longest event-loop delay of the capture threads in the last minute',
  sampleMs: data.eventLoopSampleMs,
})
monitorEventLoopBusy({
  registry,
  name: 'burrow_capture_eventloop_busy_max_seconds',
  help: "The longest CPU time the capture threads' own work held their event loops in the last minute",
  sampleMs: data.eventLoopSampleMs,
})
monitorThreadCpu({
  registry,
  name: 'burrow_capture_threads_cpu_seconds_total',
  help: 'CPU time the capture threads have run, together (of process_cpu_seconds_total, which adds every thread)',
})

const disk = new DiskReserve(data.disk)
let lifecycle: Lifecycle = 'starting'
let server: HttpServer | undefined
let lane: { writer: SpoolWriter; appender: SpoolAppender } | undefined
const invalidations: Array<(token: string) => void> = []
const flagInvalidations: Array<(projectId: number) => void> = []
const reports = new LaneReports((events, frames) => main.notify('lane', [events, frames], [frames]))

const main = connectPeer(
  parentPort!,
  {
    listen: async (port: number) => {
      server = await startHttpServer({ host: data.host, port, maxBodyBytes: data.maxBodyBytes, dispatch, log })
      return server.port
    },
    stopListening: () => server?.close(),
    closeConnections: () => server?.closeConnections(),
    lifecycle: (next: Lifecycle) => {
      lifecycle = next
    },
    openSpool: (spool: LaneSpool) => {
      const writer = new SpoolWriter({
        ...spool,
        metrics,
        log,
        onCommit: (seq, end, frames) => reports.commit(seq, end, frames),
        onRotate: (seq, size) => reports.rotate(seq, size),
      })
      writer.prepare()
      lane = { writer, appender: new SpoolAppender(writer, new SpoolBytes(data.spoolBytes), data.spoolMaxBytes, disk) }
    },
    /** Refuses appends from now on; once every one acknowledged so far is on disk, reports them and resolves. */
    closeSpool: async () => {
      lane?.appender.stop()
      await lane?.writer.close()
      reports.flush()
    },
    invalidate: (token: string) => {
      for (const listener of invalidations) listener(token)
    },
    invalidateFlags: (projectId: number) => {
      for (const listener of flagInvalidations) listener(projectId)
    },
    metrics: () => registry.getMetricsAsJSON(),
  },
  (msg) => log(msg),
)

// Invalid keys are counted where every thread and instance sees them: the main thread's count.
const keyGuesses = keyGuessGuard((kind, address) => main.call<GuessVerdict>('judgeKeyGuess', kind, address))

const capture: CaptureDeps = {
  projects: new ProjectTokenResolver({
    load: (token) => main.call<IngestionProject | null>('loadProject', token),
    resolveWithPersonalKey: (key, projectId, scope) => main.call('resolveWithPersonalKey', key, projectId, scope),
    onInvalidation: (listener) => invalidations.push(listener),
  }),
  spool: {
    hasRoom: (bytes) => lane?.appender.hasRoom(bytes) ?? false,
    append: (frame) => (lane ? lane.appender.append(frame) : Promise.reject(new Error('the spool is not open yet'))),
  },
  sink: {
    storeDeadLetters: (letters) => main.call('storeDeadLetters', letters),
    storeIngestionWarnings: (warnings) => main.call('storeIngestionWarnings', warnings),
  },
  metrics,
  disk,
  maxDecompressedBytes: data.maxDecompressedBytes,
  log,
  cookielessSalts: new CookielessSalts((day) => main.call<string>('cookielessSalt', day)),
  cookielessState: {
    get: (keys) => main.call<Array<string | undefined>>('cookielessStateGet', keys),
    set: (entries, ttlSeconds) => main.call<void>('cookielessStateSet', entries, ttlSeconds),
  },
  keyGuesses,
  ...(data.eventQuota
    ? { eventQuota: (projectId: number, events: number) => main.call<number | undefined>('admitEvents', projectId, events) }
    : {}),
}

const decide: DecideDeps = {
  projects: capture.projects,
  flags: new FlagDefinitionsResolver({
    load: (projectId) => main.call<ProjectFlags>('projectFlags', projectId),
    onInvalidation: (listener) => flagInvalidations.push(listener),
  }),
  flagPerson: (projectId, distinctId, continuity) => main.call<FlagPerson | undefined>('flagPerson', projectId, distinctId, continuity),
  flagGroups: (projectId, groups) => main.call<StoredGroup[]>('flagGroups', projectId, groups),
  earlyAccessFeatures: (projectId, stages) => main.call<unknown[]>('earlyAccessFeatures', projectId, stages),
  cookielessSalts: capture.cookielessSalts,
  cookielessState: capture.cookielessState,
  maxDecompressedBytes: data.maxDecompressedBytes,
  log,
  keyGuesses,
}

const answerHere = createDispatcher({
  lifecycle: () => lifecycle,
  siteUrl: data.siteUrl,
  trustProxy: data.trustProxy,
  metricsText: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  metrics,
  capture,
  decide,
  rest: undefined,
  trpc: undefined,
  onAnswered: data.reportRequests ? (entry) => main.notify('answered', [entry]) : undefined,
})

let forwarded = 0

/**
 * Answers the SDK's routes here and passes the others to the main thread. A signal cannot cross
 * threads: the forwarded request carries a number instead, and the main thread hears of it when
 * the client goes away, so that its work for the answer stops there too.
 */
function dispatch(req: IncomingRequest): OutgoingResponse | Promise<OutgoingResponse> {
  if (isPublicSdkPath(req.path)) return answerHere(req)
  const { signal, ...plain } = req
  const id = ++forwarded
  const gone = () => main.notify('aborted', [id])
  signal?.addEventListener('abort', gone, { once: true })
  return main
    .call<OutgoingResponse>('dispatch', plain, id)
    .then((response) => (typeof response.body === 'string' ? response : { ...response, body: asBuffer(response.body) }))
    .finally(() => signal?.removeEventListener('abort', gone))
}
