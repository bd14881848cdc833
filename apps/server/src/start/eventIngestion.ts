import path from 'node:path'
import { CookielessSalts, type DecideDeps } from '@burrow/capture'
import type { Config } from '@burrow/config'
import {
  cookielessSalt,
  cookielessState,
  earlyAccessFeatures as earlyAccess,
  EventDefinitionTracker,
  FlagDefinitionsResolver,
  ProjectTokenResolver,
  type CoreDeps,
} from '@burrow/core'
import { EventSink, EventSpool, registerSinkFailingGauge } from '@burrow/ingestion'
import { persons as personQueries } from '@burrow/postgres'
import type { SpoolBytes } from '@burrow/spool'
import type { Registry } from 'prom-client'
import type { createDiskReserve } from '../disk'
import { flagGroupsFrom } from '../flagGroups'
import { logFn, type Logger } from '../logger'
import type { ServerMetrics } from '../observability/metrics'
import type { PluginRuntime } from '../plugins'
import type { ReadinessCheck } from '../observability/probes'
import { openSpoolLanes } from '../spoolLanes'
import type { FrontHandlers } from './front'
import type { Guards } from './guards'
import type { Teardown } from './teardown'
import type { CaptureThreads } from '../captureThreads/pool'

/** Above this share of SPOOL_MAX_BYTES the spool counts as full for readiness: capture is about to answer 503. */
const SPOOL_FULL_SHARE = 0.95

/**
 * Capture, `/decide/` and the spool that stores what capture acknowledged: one spool lane per
 * capture thread (or one on this thread), consumed in batches into ClickHouse through the plugin
 * stages. Answers what the front serves: capture on this thread, or the services the capture
 * threads call.
 */
export async function startEventIngestion(options: {
  config: Config
  logger: Logger
  registry: Registry
  metrics: ServerMetrics
  deps: CoreDeps
  guards: Guards
  disk: ReturnType<typeof createDiskReserve>
  spoolBytes: SpoolBytes
  threads: CaptureThreads | undefined
  plugins: PluginRuntime
  beforeStoring: Parameters<typeof EventSpool.open>[0]['beforeInsert']
  readinessChecks: ReadinessCheck[]
  teardown: Teardown
}): Promise<{ spools: EventSpool[]; handlers: FrontHandlers }> {
  const { config, logger, registry, metrics, deps, guards, disk, spoolBytes, threads, plugins, readinessChecks, teardown } = options
  const warn = logFn(logger)
  // The per-request log (a failure written once per interval with a count), which the whole service shares.
  const perRequest = deps.log
  const { eventQuota, keyGuessCounter } = guards
  const { keyGuesses } = guards.api
  const definitions = new EventDefinitionTracker(deps)
  const sink = new EventSink({ ch: deps.ch, metrics, log: warn })
  // A batch that keeps failing holds every event behind it: readiness says so (the instance still takes events).
  readinessChecks.push({ name: 'ingestion', critical: false, check: () => sink.readiness() })
  registerSinkFailingGauge(registry, sink)
  const spools = await openSpoolLanes(
    path.join(config.DATA_DIR, 'spool'),
    threads ? Array.from({ length: config.CAPTURE_THREADS }, (_, lane) => threads.writerFor(lane)) : [undefined],
    (dir, createWriter) =>
      EventSpool.open({
        dir,
        createWriter,
        bytes: spoolBytes,
        sink,
        metrics,
        maxRows: config.BATCH_MAX_ROWS,
        maxAgeMs: config.BATCH_MAX_AGE_MS,
        maxBytes: config.SPOOL_MAX_BYTES,
        segmentBytes: config.SPOOL_SEGMENT_BYTES,
        disk,
        writesInFlight: config.SPOOL_WRITES_IN_FLIGHT,
        log: warn,
        beforeInsert: options.beforeStoring,
        // Destinations' deliveries are queued before the position moves on: none is lost to a crash.
        afterInsert: (storedFrames) => plugins.afterStored(storedFrames),
        onStored: async (sightings) => {
          for (const [teamId, event, timestampMs] of sightings) definitions.record(teamId, event, timestampMs)
          await definitions.flush()
        },
      }),
  )
  readinessChecks.push(spoolRoomCheck(spoolBytes, config.SPOOL_MAX_BYTES))
  // What ClickHouse does not take in time stays in the spool for the next start. The spool
  // gets most of SHUTDOWN_TIMEOUT_MS; the rest is for closing connections before the process's deadline.
  const spoolBudgetMs = Math.max(Math.floor(config.SHUTDOWN_TIMEOUT_MS * 0.8), config.SHUTDOWN_TIMEOUT_MS - 5_000)
  teardown.onStop(async () => {
    const left = await Promise.all(spools.map((spool) => spool.close(spoolBudgetMs)))
    const rows = left.reduce((sum, l) => sum + l.rows, 0)
    const segments = left.reduce((sum, l) => sum + l.segments, 0)
    if (segments === 0) return
    logger.warn(
      { rows_left: rows, segments_left: segments, bytes_left: left.reduce((sum, l) => sum + l.bytes, 0) },
      `stopped before storing everything: ${rows} acknowledged row(s) stay in the spool (${segments} segment(s)) and are stored at the next start`,
    )
  })

  const projectTokens = ProjectTokenResolver.fromStorage(deps)
  const projectFlags = FlagDefinitionsResolver.fromStorage(deps)
  const flagPerson: DecideDeps['flagPerson'] = (projectId, distinctId, continuity) =>
    personQueries.flagPersonOf(deps.sql, projectId, distinctId, continuity)
  const flagGroups = flagGroupsFrom(deps)
  const earlyAccessFeatures: DecideDeps['earlyAccessFeatures'] = (projectId, stages) =>
    earlyAccess.publicEarlyAccessFeatures(deps, projectId, stages)
  const decide: DecideDeps = {
    projects: projectTokens,
    flags: projectFlags,
    flagPerson,
    flagGroups,
    earlyAccessFeatures,
    cookielessSalts: new CookielessSalts((day) => cookielessSalt(deps, day)),
    cookielessState: cookielessState(deps),
    maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
    log: perRequest,
    keyGuesses,
  }
  if (threads) {
    projectTokens.onInvalidation((token) => threads.invalidate(token))
    projectFlags.onInvalidation((projectId) => threads.invalidateFlags(projectId))
    return {
      spools,
      handlers: {
        decide,
        captureServices: {
          resolveProject: (token) => projectTokens.resolve(token),
          resolveWithPersonalKey: (key, projectId, scope) => projectTokens.resolveWithPersonalKey(key, projectId, scope),
          storeDeadLetters: (letters) => sink.storeDeadLetters(letters),
          storeIngestionWarnings: (warnings) => sink.storeIngestionWarnings(warnings),
          projectFlags: (projectId) => projectFlags.forProject(projectId),
          flagPerson,
          cookielessSalt: (day) => cookielessSalt(deps, day),
          cookielessStateGet: (keys) => cookielessState(deps).get(keys),
          cookielessStateSet: (entries, ttlSeconds) => cookielessState(deps).set(entries, ttlSeconds),
          flagGroups,
          earlyAccessFeatures,
          judgeKeyGuess: (kind, address) => keyGuessCounter.judge(kind, address),
          admitEvents: (projectId, events) => (eventQuota ? eventQuota(projectId, events) : Promise.resolve(undefined)),
        },
      },
    }
  }
  return {
    spools,
    handlers: {
      decide,
      capture: {
        projects: projectTokens,
        spool: spools[0]!,
        sink,
        metrics,
        disk,
        maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
        log: perRequest,
        cookielessSalts: decide.cookielessSalts,
        cookielessState: decide.cookielessState,
        keyGuesses,
        ...(eventQuota ? { eventQuota } : {}),
      },
    },
  }
}

function spoolRoomCheck(bytes: SpoolBytes, maxBytes: number): ReadinessCheck {
  return {
    name: 'spool',
    critical: true,
    check: () => {
      const used = bytes.value
      const detail = { used_bytes: used, max_bytes: maxBytes }
      return used < maxBytes * SPOOL_FULL_SHARE
        ? { ok: true, detail }
        : { ok: false, error: 'the spool of acknowledged events is full: ClickHouse is not taking them in', detail }
    },
  }
}
