import path from 'node:path'
import { createRestHandler, createTrpcHandler } from '@burrow/api'
import { createSharedCache } from '@burrow/cache'
import { migrateClickHouse } from '@burrow/clickhouse'
import type { Config } from '@burrow/config'
import {
  accounts,
  CohortCalculator,
  earlyAccessFeatures as earlyAccess,
  EventDefinitionTracker,
  findIngestionProject,
  FlagDefinitionsResolver,
  ProjectTokenResolver,
  type CoreDeps,
} from '@burrow/core'
import type { CaptureDeps, DecideDeps } from '@burrow/capture'
import {
  EventSink,
  EventSpool,
  framesOfExistingProjects,
  GroupStage,
  PersonStage,
  listDeadLetters,
  replayDeadLetters,
} from '@burrow/ingestion'
import { connectPostgres, migratePostgres, persons as personQueries } from '@burrow/postgres'
import { flagGroupsFrom } from './flagGroups'
import { SpoolBytes } from '@burrow/spool'
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client'
import { startAdminSocket } from './adminSocket'
import { startCaptureThreads, type CaptureServices, type CaptureThreads } from './captureThreads/pool'
import { clientBundles } from './clientBundles'
import { createDispatcher, type Lifecycle } from './dispatch'
import { monitorEventLoopBusy } from './eventLoopBusy'
import { startHttpServer, type HttpServer } from './http/uwsServer'
import { createServerMetrics } from './metrics'
import { openSpoolLanes } from './spoolLanes'
import type { Logger } from './logger'
import { connectClickHouseFrom } from './storage'

export interface RunningApp {
  port: number
  /** The storage the service uses, for tests and admin tasks. */
  deps: CoreDeps
  /** Stops accepting requests, stores every accepted event, closes connections. */
  stop(): Promise<void>
}

/**
 * Starts the service: listens first (answering 503 while starting), then connects to
 * PostgreSQL, ClickHouse and the cache, applies migrations, creates the first account on an
 * empty database, and becomes ready.
 */
export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  let lifecycle: Lifecycle = 'starting'
  const log = (msg: string) => logger.info(msg)
  const warn = (msg: string) => logger.warn(msg)
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'burrow_', eventLoopMonitoringPrecision: config.EVENT_LOOP_SAMPLE_MS })
  const loopBusy = monitorEventLoopBusy({
    registry,
    name: 'burrow_eventloop_busy_max_seconds',
    help: "The longest CPU time the main thread's own work held its event loop since the last scrape",
    sampleMs: config.EVENT_LOOP_SAMPLE_MS,
  })
  const metrics = createServerMetrics(registry)
  const runsIngestion = config.ROLE !== 'api'
  const runsApi = config.ROLE !== 'ingestion'

  let capture: CaptureDeps | undefined
  let decide: DecideDeps | undefined
  let rest: ReturnType<typeof createRestHandler> | undefined
  let trpc: ReturnType<typeof createTrpcHandler> | undefined
  let captureServices: CaptureServices | undefined
  let threads: CaptureThreads | undefined
  const spoolBytes = new SpoolBytes()
  const dispatch = createDispatcher({
    lifecycle: () => lifecycle,
    siteUrl: config.SITE_URL,
    trustProxy: config.TRUST_PROXY,
    async metricsText() {
      if (!threads) return { contentType: registry.contentType, body: await registry.metrics() }
      const all = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...(await threads.metrics())])
      return { contentType: all.contentType, body: await all.metrics() }
    },
    metrics,
    bundles: clientBundles(),
    get capture() {
      return capture
    },
    get decide() {
      return decide
    },
    get rest() {
      return rest
    },
    get trpc() {
      return trpc
    },
  })
  const setLifecycle = (next: Lifecycle) => {
    lifecycle = next
    threads?.setLifecycle(next)
  }
  // With capture threads, they listen (and pass this thread what is not capture); else this thread does.
  if (runsIngestion && config.CAPTURE_THREADS > 0) {
    threads = await startCaptureThreads({
      count: config.CAPTURE_THREADS,
      host: config.HOST,
      port: config.PORT,
      maxBodyBytes: config.MAX_BODY_BYTES,
      maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
      trustProxy: config.TRUST_PROXY,
      siteUrl: config.SITE_URL,
      eventLoopSampleMs: config.EVENT_LOOP_SAMPLE_MS,
      spoolBytes,
      spoolMaxBytes: config.SPOOL_MAX_BYTES,
      dispatch,
      services: () => captureServices,
      log: warn,
    })
  }
  const captureThreads = threads
  const server: Pick<HttpServer, 'port' | 'close'> = captureThreads
    ? { port: captureThreads.port, close: () => captureThreads.stopListening() }
    : await startHttpServer({ host: config.HOST, port: config.PORT, maxBodyBytes: config.MAX_BODY_BYTES, log: warn, dispatch })
  log(`listening on ${config.HOST}:${server.port}${captureThreads ? ` (${config.CAPTURE_THREADS} capture threads)` : ''}`)

  const cleanups: (() => Promise<void>)[] = []
  if (loopBusy) cleanups.push(async () => loopBusy.stop())
  // The threads end last: their spools are closed (everything acknowledged on disk) before.
  if (captureThreads) cleanups.unshift(() => captureThreads.terminate())
  try {
    const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log })
    cleanups.unshift(() => pg.close())
    const appliedPg = await migratePostgres(pg.sql)
    log(`postgres: ${pg.description}${appliedPg.length ? `, applied ${appliedPg.join(', ')}` : ''}`)

    const ch = await connectClickHouseFrom(config)
    cleanups.unshift(() => ch.close())
    const appliedCh = await migrateClickHouse(ch.writer)
    log(`clickhouse: ${ch.description}${appliedCh.length ? `, applied ${appliedCh.join(', ')}` : ''}`)

    const cache = await createSharedCache(config.REDIS_URL, warn)
    cleanups.unshift(() => cache.close())
    log(`cache: ${cache.kind}`)

    const deps: CoreDeps = { sql: pg.sql, ch, cache, log: warn }
    const first = await accounts.bootstrapFirstAccount(pg.sql, {
      email: config.BOOTSTRAP_EMAIL,
      organizationName: config.BOOTSTRAP_ORGANIZATION,
      personalApiKey: config.BOOTSTRAP_PERSONAL_API_KEY,
    })
    if (first) {
      const key = config.BOOTSTRAP_PERSONAL_API_KEY ? '(BOOTSTRAP_PERSONAL_API_KEY)' : first.personalApiKey
      logger.info(
        { email: first.user.email, personal_api_key: key, project_id: first.project.id, project_api_key: first.project.api_token },
        'created the first account: keep this personal API key, it is not shown again',
      )
    }

    // Gives events their persons: the spool consumer's batches and replayed dead letters.
    const persons = new PersonStage(deps)
    const groups = new GroupStage(deps)
    if (runsIngestion) {
      const definitions = new EventDefinitionTracker(deps)
      const sink = new EventSink({ ch, metrics, log: warn })
      const spools = await openSpoolLanes(
        path.join(config.DATA_DIR, 'spool'),
        captureThreads ? Array.from({ length: config.CAPTURE_THREADS }, (_, lane) => captureThreads.writerFor(lane)) : [undefined],
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
            writesInFlight: config.SPOOL_WRITES_IN_FLIGHT,
            log: warn,
            beforeInsert: async (frames) => {
              const stored = await groups.assign(await framesOfExistingProjects(pg.sql, frames))
              await persons.assign(stored)
              return stored
            },
            onStored: async (sightings) => {
              for (const [teamId, event, timestampMs] of sightings) definitions.record(teamId, event, timestampMs)
              await definitions.flush()
            },
          }),
      )
      // What ClickHouse does not take in time stays in the spool for the next start.
      cleanups.unshift(() => Promise.all(spools.map((spool) => spool.close(config.SHUTDOWN_TIMEOUT_MS))).then(() => undefined))
      const projectTokens = ProjectTokenResolver.fromStorage(deps)
      const projectFlags = FlagDefinitionsResolver.fromStorage(deps)
      const flagPerson: DecideDeps['flagPerson'] = (projectId, distinctId, continuity) =>
        personQueries.flagPersonOf(pg.sql, projectId, distinctId, continuity)
      const flagGroups = flagGroupsFrom(deps)
      const earlyAccessFeatures: DecideDeps['earlyAccessFeatures'] = (projectId, stages) =>
        earlyAccess.publicEarlyAccessFeatures(deps, projectId, stages)
      decide = {
        projects: projectTokens,
        flags: projectFlags,
        flagPerson,
        flagGroups,
        earlyAccessFeatures,
        maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
        log: warn,
      }
      if (captureThreads) {
        projectTokens.onInvalidation((token) => captureThreads.invalidate(token))
        projectFlags.onInvalidation((projectId) => captureThreads.invalidateFlags(projectId))
        captureServices = {
          resolveProject: (token) => projectTokens.resolve(token),
          resolveWithPersonalKey: (key, projectId) => projectTokens.resolveWithPersonalKey(key, projectId),
          storeDeadLetters: (letters) => sink.storeDeadLetters(letters),
          projectFlags: (projectId) => projectFlags.forProject(projectId),
          flagPerson,
          flagGroups,
          earlyAccessFeatures,
        }
      } else {
        capture = {
          projects: projectTokens,
          spool: spools[0]!,
          sink,
          metrics,
          maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
          log: warn,
        }
      }
    }
    const admin = await startAdminSocket(
      config.DATA_DIR,
      {
        dlqList: (filter) => listDeadLetters(ch, filter),
        dlqReplay: (filter) =>
          replayDeadLetters(
            {
              ch,
              projectById: (id) => findIngestionProject(deps, id),
              assignPersons: async (frames) => {
                const grouped = await groups.assign(frames)
                await persons.assign(grouped)
                return grouped
              },
            },
            filter,
          ),
      },
      warn,
    )
    cleanups.unshift(() => admin.close())
    if (runsApi) {
      const calculator = new CohortCalculator(deps, {
        recalculateAfterS: config.COHORT_RECALCULATE_AFTER_S,
        checkIntervalMs: config.COHORT_CHECK_INTERVAL_MS,
      })
      deps.cohortCalculations = calculator
      calculator.start()
      cleanups.unshift(() => calculator.stop())
      rest = createRestHandler(deps)
      trpc = createTrpcHandler(deps)
    }
    setLifecycle('ready')
    log('ready')

    return {
      port: server.port,
      deps,
      async stop() {
        if (lifecycle === 'draining') return
        setLifecycle('draining')
        server.close()
        for (const cleanup of cleanups) await cleanup()
        log('stopped')
      },
    }
  } catch (err) {
    server.close()
    for (const cleanup of cleanups) await cleanup().catch(() => {})
    throw err
  }
}
