import path from 'node:path'
import { createApiThrottle, createRestHandler, createTrpcHandler, type ApiGuards } from '@burrow/api'
import { createRateLimitStore, createSharedCache, createSlotStore, type RateLimit } from '@burrow/cache'
import { applyRetention, DEFAULT_MATERIALIZED_PROPERTIES, ensureMaterializedProperties, migrateClickHouse } from '@burrow/clickhouse'
import type { Config } from '@burrow/config'
import {
  accounts,
  consoleAuth,
  signInGuard,
  CohortCalculator,
  earlyAccessFeatures as earlyAccess,
  EventDefinitionTracker,
  findIngestionProject,
  FlagDefinitionsResolver,
  ProjectTokenResolver,
  type CoreDeps,
  cookielessSalt,
  cookielessState,
  KeyGuessCounter,
  keyGuessGuard,
} from '@burrow/core'
import { CookielessSalts, type CaptureDeps, type DecideDeps, type ProxyTrust } from '@burrow/capture'
import {
  EventSink,
  EventSpool,
  listDeadLetters,
  purgeDeadLetters,
  registerSinkFailingGauge,
  replayDeadLetters,
  whileAllPaused,
} from '@burrow/ingestion'
import { connectPostgres, migratePostgres, persons as personQueries, whileClickHouseMigrationLocked } from '@burrow/postgres'
import { flagGroupsFrom } from './flagGroups'
import { SpoolBytes } from '@burrow/spool'
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { startAdminSocket } from './adminSocket'
import { backupService } from './backup'
import { startCaptureThreads, type CaptureServices, type CaptureThreads } from './captureThreads/pool'
import { clientBundles } from './clientBundles'
import { consoleAssets } from './consoleAssets'
import { watchDetachedParts } from './detachedParts'
import { watchDependencies, waitForDependency } from './dependencies'
import { createDiskReserve, diskReserveOptions, watchDiskReserve } from './disk'
import { createDispatcher, type DispatchDeps, type Lifecycle } from './dispatch'
import { monitorEventLoopBusy } from './eventLoopBusy'
import { monitorEventLoopDelayMax } from './eventLoopDelay'
import { startHttpServer, type HttpServer } from './http/uwsServer'
import { logFn, rateLimitedLog, type Logger } from './logger'
import { createServerMetrics } from './metrics'
import { beforeStoringWith } from './eventStages'
import { pluginStages, startPluginRuntime } from './plugins'
import { readinessReport, type ReadinessCheck, type ReadinessReport } from './probes'
import {
  registerBuildInfo,
  registerDeadLetterGauge,
  registerReadinessGauges,
  registerRoomGauges,
  SERVICE_COMMIT,
  SERVICE_VERSION,
} from './serviceMetrics'
import { openSpoolLanes } from './spoolLanes'
import { connectClickHouseFrom, redactedTarget } from './storage'

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
/** Whose `X-Forwarded-For` capture and flags believe. */
function proxyTrust(config: Config): ProxyTrust {
  return config.TRUST_PROXY ? 'any' : config.TRUSTED_PROXIES
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  let lifecycle: Lifecycle = 'starting'
  const log = (msg: string) => logger.info(msg)
  const warn = logFn(logger)
  // What fails per request (a lookup while PostgreSQL is down) is written once per 30 s with a count.
  const perRequest = rateLimitedLog(warn)
  const registry = new Registry()
  // Under their standard names (process_start_time_seconds, nodejs_heap_size_used_bytes, ...), which the usual Node.js dashboards read.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: config.EVENT_LOOP_SAMPLE_MS })
  // prom-client leaves its start time out of an aggregate (the capture threads' and this thread's): the process has one.
  registry.removeSingleMetric('process_start_time_seconds')
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    aggregator: 'first',
    registers: [registry],
  }).set(Math.round(Date.now() / 1000 - process.uptime()))
  // prom-client's maximum is reset at each scrape: replaced by one over a window, which reading does not change.
  registry.removeSingleMetric('nodejs_eventloop_lag_max_seconds')
  const loopDelay = monitorEventLoopDelayMax({
    registry,
    name: 'nodejs_eventloop_lag_max_seconds',
    help: "The longest delay of the main thread's event loop in the last minute",
    sampleMs: config.EVENT_LOOP_SAMPLE_MS,
  })
  const loopBusy = monitorEventLoopBusy({
    registry,
    name: 'burrow_eventloop_busy_max_seconds',
    help: "The longest CPU time the main thread's own work held its event loop in the last minute",
    sampleMs: config.EVENT_LOOP_SAMPLE_MS,
  })
  registerBuildInfo(registry)
  const spoolBytes = new SpoolBytes()
  let spools: EventSpool[] = []
  const metrics = createServerMetrics(registry, { spools: () => spools, spoolBytes: () => spoolBytes.value })
  // Readiness looks at these; each part adds its own once it exists (a check of disk room is one line here).
  const readinessChecks: ReadinessCheck[] = []
  const runsIngestion = config.ROLE !== 'api'
  const runsApi = config.ROLE !== 'ingestion'

  let capture: CaptureDeps | undefined
  let decide: DecideDeps | undefined
  let rest: ReturnType<typeof createRestHandler> | undefined
  let trpc: ReturnType<typeof createTrpcHandler> | undefined
  let captureServices: CaptureServices | undefined
  let threads: CaptureThreads | undefined
  const disk = createDiskReserve(config)
  // A line each way when the free space crosses the reserve; its state and counts are there for the metrics.
  const diskWatch = watchDiskReserve(disk, logger)
  readinessChecks.push({
    name: 'disk',
    critical: true,
    check: () => {
      const { ok, freeBytes, totalBytes, reserveBytes, error } = disk.room()
      return {
        ok,
        error: ok ? error : `free space ${freeBytes} bytes is below the reserve of ${reserveBytes} bytes`,
        detail: { free_bytes: freeBytes, total_bytes: totalBytes, reserve_bytes: reserveBytes },
      }
    },
  })
  const metricsText = async () => {
    if (!threads) return { contentType: registry.contentType, body: await registry.metrics() }
    const all = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...(await threads.metrics())])
    return { contentType: all.contentType, body: await all.metrics() }
  }
  registerRoomGauges(registry, { disk, reserve: () => diskWatch.state(), spoolMaxBytes: config.SPOOL_MAX_BYTES })
  // Read from state kept up to date in the background: answered at once, whatever the dependencies do.
  const readiness = (): ReadinessReport => ({ version: SERVICE_VERSION, commit: SERVICE_COMMIT, ...readinessReport(readinessChecks) })
  registerReadinessGauges(registry, () => (lifecycle === 'ready' ? readiness() : { status: 'unavailable', checks: {} }))
  const serviceEndpoints: Pick<DispatchDeps, 'lifecycle' | 'metricsToken' | 'readiness' | 'onAnswered'> = {
    lifecycle: () => lifecycle,
    metricsToken: config.METRICS_TOKEN,
    readiness: async () => readiness(),
    // Request logs at debug level; nothing is built for them otherwise.
    onAnswered: logger.isLevelEnabled('debug')
      ? ({ method, route, path, status, durationMs }) =>
          logger.debug({ method, route, path, status, duration_ms: Math.round(durationMs * 100) / 100 }, 'request')
      : undefined,
  }
  const separateMetricsPort = config.METRICS_PORT !== undefined
  const consoleFiles = runsApi ? consoleAssets() : undefined
  if (runsApi) log(consoleFiles ? 'console: served at /' : 'console: not built (npm run build), / answers 404 until it is')
  const dispatch = createDispatcher({
    ...serviceEndpoints,
    siteUrl: config.SITE_URL,
    trustProxy: proxyTrust(config),
    metricsText: separateMetricsPort ? undefined : metricsText,
    metrics,
    bundles: clientBundles(),
    console: consoleFiles,
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
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
      trustProxy: proxyTrust(config),
      eventQuota: config.CAPTURE_EVENTS_PER_SECOND > 0,
      siteUrl: config.SITE_URL,
      eventLoopSampleMs: config.EVENT_LOOP_SAMPLE_MS,
      spoolBytes,
      spoolMaxBytes: config.SPOOL_MAX_BYTES,
      disk: diskReserveOptions(config),
      dispatch,
      services: () => captureServices,
      log: perRequest,
      onAnswered: serviceEndpoints.onAnswered,
    })
  }
  const captureThreads = threads
  const server: Pick<HttpServer, 'port' | 'close'> = captureThreads
    ? { port: captureThreads.port, close: () => captureThreads.stopListening() }
    : await startHttpServer({ host: config.HOST, port: config.PORT, maxBodyBytes: config.MAX_BODY_BYTES, log: perRequest, dispatch })
  log(`listening on ${config.HOST}:${server.port}${captureThreads ? ` (${config.CAPTURE_THREADS} capture threads)` : ''}`)
  // Metrics (and the probes) on a port of their own, which only the monitoring network need reach.
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await startHttpServer({
          host: config.HOST,
          port: config.METRICS_PORT,
          maxBodyBytes: 64 * 1024,
          log: warn,
          dispatch: createDispatcher({
            ...serviceEndpoints,
            onAnswered: undefined,
            siteUrl: config.SITE_URL,
            trustProxy: proxyTrust(config),
            metricsText,
            metrics,
            capture: undefined,
            decide: undefined,
            rest: undefined,
            trpc: undefined,
          }),
        }).catch((err: unknown) => {
          server.close()
          throw err
        })
  if (metricsServer) log(`metrics on ${config.HOST}:${metricsServer.port}`)

  const cleanups: (() => Promise<void>)[] = []
  /** When the process's own deadline (SHUTDOWN_TIMEOUT_MS from the stop) comes: what is closed last must fit before it. */
  let stopDeadline = Infinity
  cleanups.push(async () => loopDelay.stop())
  cleanups.push(async () => diskWatch.stop())
  if (loopBusy) cleanups.push(async () => loopBusy.stop())
  if (metricsServer) cleanups.push(async () => metricsServer.close())
  // The threads end last: their spools are closed (everything acknowledged on disk) before.
  if (captureThreads) cleanups.unshift(() => captureThreads.terminate())
  try {
    // A server given by URL may not answer yet (started alongside): waited for, up to DEPENDENCY_WAIT_MS.
    const waitMs = (url: string | undefined) => ({ waitMs: url ? config.DEPENDENCY_WAIT_MS : 0, logger })
    const pg = await waitForDependency(
      'postgres',
      redactedTarget(config.DATABASE_URL, 'embedded'),
      async () => {
        const handle = await connectPostgres({
          databaseUrl: config.DATABASE_URL,
          dataDir: config.DATA_DIR,
          log,
          deadlines: {
            statementMs: config.POSTGRES_STATEMENT_TIMEOUT_MS,
            livenessIntervalMs: config.DEPENDENCY_CHECK_INTERVAL_MS,
            livenessTimeoutMs: config.DEPENDENCY_CHECK_TIMEOUT_MS,
          },
        })
        return answering(handle, () => handle.sql`select 1`)
      },
      waitMs(config.DATABASE_URL),
    )
    // A query stuck on a PostgreSQL that is down gets what is left of the stop's time, not 5 s more.
    cleanups.unshift(() => pg.close(Math.max(100, Math.min(5_000, stopDeadline - Date.now() - 1_000))))
    const appliedPg = await migratePostgres(pg.sql)
    log(`postgres: ${pg.description}${appliedPg.length ? `, applied ${appliedPg.join(', ')}` : ''}`)

    const ch = await waitForDependency(
      'clickhouse',
      redactedTarget(config.CLICKHOUSE_URL, 'embedded'),
      async () => {
        const handle = await connectClickHouseFrom(config)
        return answering(handle, () => handle.writer.command({ query: 'SELECT 1' }))
      },
      waitMs(config.CLICKHOUSE_URL),
    )
    cleanups.unshift(() => ch.close())
    const appliedCh = await migrateClickHouse(ch, { exclusively: (migrate) => whileClickHouseMigrationLocked(pg.sql, migrate) })
    log(`clickhouse: ${ch.description}${appliedCh.length ? `, applied ${appliedCh.join(', ')}` : ''}`)
    const detached = await watchDetachedParts(ch, logger, registry, { dataDir: config.DATA_DIR })
    cleanups.unshift(async () => detached.stop())
    const retention = await applyRetention(ch, {
      events: config.EVENT_RETENTION_DAYS,
      deadLetters: config.DEAD_LETTER_RETENTION_DAYS,
      pluginLogs: config.PLUGIN_LOG_RETENTION_DAYS,
    })
    if (retention.length > 0) log(`clickhouse retention: ${retention.join(', ')}`)
    const materialized = await ensureMaterializedProperties(ch, [...DEFAULT_MATERIALIZED_PROPERTIES, ...config.MATERIALIZED_PROPERTIES])
    if (materialized.length > 0) log(`clickhouse: properties in columns of their own: ${materialized.join(', ')}`)

    // Not waited for: the cache misses until Redis answers, then connects by itself. Its
    // connection is given the time of a dependency check, so that the log says whether it answers.
    const cache = await createSharedCache(config.REDIS_URL, warn)
    // A frozen Redis would hold the stop for its whole QUIT wait: what is left before the deadline bounds it.
    cleanups.unshift(() => cache.close(Math.max(50, Math.min(1_000, stopDeadline - Date.now() - 500))))
    const redisAnswers = await connectedWithin(cache, config.REDIS_URL ? config.DEPENDENCY_CHECK_TIMEOUT_MS : 0)
    log(
      `cache: ${cache.kind}${config.REDIS_URL ? ` ${redactedTarget(config.REDIS_URL, '')}${redisAnswers ? '' : ' (not answering yet)'}` : ''}`,
    )

    const dependencies = watchDependencies(
      [
        {
          // PostgreSQL's connection checks itself (and fails calls at once while it does not answer): its state is read here.
          name: 'postgres',
          probe: () => {
            const liveness = pg.liveness()
            if (!liveness.ok) throw new Error(liveness.error ?? 'not answering')
            return liveness.latencyMs === undefined ? undefined : { latency_ms: liveness.latencyMs }
          },
        },
        // Asked out of turn: the readers' statements may all be long, and a probe must not wait behind them.
        { name: 'clickhouse', probe: (signal) => ch.reader.probe(signal) },
        ...(config.REDIS_URL
          ? [
              {
                name: 'redis' as const,
                // A round trip: a Redis that is frozen keeps its connection open, and only a command tells.
                probe: () => (cache.connected() ? cache.ping() : Promise.reject(new Error('not connected'))),
              },
            ]
          : []),
      ],
      {
        registry,
        intervalMs: config.DEPENDENCY_CHECK_INTERVAL_MS,
        timeoutMs: config.DEPENDENCY_CHECK_TIMEOUT_MS,
        onChange: (dependency, outcome) =>
          outcome.ok
            ? logger.warn({ dependency }, `${dependency} answers again`)
            : logger.warn({ dependency, err: outcome.error }, `${dependency} is not answering: ${outcome.error ?? ''}`),
      },
    )
    await dependencies.start()
    cleanups.unshift(async () => dependencies.stop())
    readinessChecks.push(...dependencies.checks)
    const stopDeadLetterGauge = registerDeadLetterGauge(registry, ch, config.DEPENDENCY_CHECK_TIMEOUT_MS)
    cleanups.unshift(async () => stopDeadLetterGauge())

    // Rate limits and the count of invalid keys: in Redis when configured, so that every instance counts alike.
    const rateLimits = createRateLimitStore(config.REDIS_URL, warn)
    cleanups.unshift(() => rateLimits.close())
    // The analytics queries each project runs at once, counted across servers.
    const querySlots = createSlotStore(config.REDIS_URL, warn)
    cleanups.unshift(() => querySlots.close())
    const keyGuessCounter = new KeyGuessCounter(
      rateLimits.limit('key-guesses', { points: config.KEY_GUESS_REFUSE_AFTER, durationS: config.KEY_GUESS_WINDOW_S }),
      {
        slowAfter: config.KEY_GUESS_SLOW_AFTER,
        maxDelayMs: 2_000,
        onGuess: (kind, outcome) => metrics.keyGuesses.labels(kind, outcome).inc(),
      },
    )
    const keyGuesses = keyGuessGuard((kind, address) => keyGuessCounter.judge(kind, address))
    const apiGuards: ApiGuards = {
      keyGuesses,
      // Failed sign-ins: per account across every instance, and per address with the invalid keys.
      signIn: signInGuard(rateLimits.limit('sign-in-failures', { points: SIGN_IN_FAILURES, durationS: SIGN_IN_WINDOW_S }), {
        limit: SIGN_IN_FAILURES,
        windowS: SIGN_IN_WINDOW_S,
        addresses: keyGuesses,
      }),
      sessionOrigins: config.CORS_ALLOWED_ORIGINS,
      throttle: createApiThrottle(
        rateLimits,
        {
          api: { burstPerMinute: config.API_RATE_LIMIT_PER_MINUTE, sustainedPerHour: config.API_RATE_LIMIT_PER_HOUR },
          query: { burstPerMinute: config.QUERY_RATE_LIMIT_PER_MINUTE, sustainedPerHour: config.QUERY_RATE_LIMIT_PER_HOUR },
        },
        (throttle) => metrics.apiThrottled.labels(throttle).inc(),
      ),
    }

    const quota = config.CAPTURE_EVENTS_PER_SECOND
    const eventQuota = quota > 0 ? projectEventQuota(rateLimits.limit('capture-events', { points: quota, durationS: 1 }), quota) : undefined

    const deps: CoreDeps = {
      sql: pg.sql,
      ch,
      cache,
      log: perRequest,
      queryLimits: {
        maxExecutionSeconds: config.QUERY_MAX_EXECUTION_SECONDS,
        concurrencyPerProject: config.QUERY_CONCURRENCY_PER_PROJECT,
        concurrencyWaitMs: config.QUERY_CONCURRENCY_WAIT_MS,
        cacheFreshSeconds: config.QUERY_CACHE_FRESH_SECONDS,
      },
      querySlots,
    }
    const first = await accounts.bootstrapFirstAccount(pg.sql, {
      email: config.BOOTSTRAP_EMAIL,
      organizationName: config.BOOTSTRAP_ORGANIZATION,
      personalApiKey: config.BOOTSTRAP_PERSONAL_API_KEY,
    })
    if (first) {
      logger.info(
        { email: first.user.email, project_id: first.project.id, project_api_key: first.project.api_token },
        config.BOOTSTRAP_PERSONAL_API_KEY
          ? 'created the first account, with BOOTSTRAP_PERSONAL_API_KEY as its personal API key'
          : 'created the first account: its personal API key is printed on stderr, once',
      )
      // A secret stays out of the JSON log stream, which log shippers keep: plain text on stderr, for the operator's eyes only.
      if (!config.BOOTSTRAP_PERSONAL_API_KEY) {
        process.stderr.write(
          `\nThe first account (${first.user.email}) has this personal API key. Keep it: it is not shown again.\n\n    ${first.personalApiKey}\n\n`,
        )
      }
    }
    // The console's first password, on a new database or the first start of a release with the console.
    const firstPassword = await consoleAuth.ensureFirstPassword(pg.sql, config.BOOTSTRAP_EMAIL, config.BOOTSTRAP_PASSWORD)
    if (firstPassword) {
      logger.info(
        { email: firstPassword.email },
        firstPassword.generated
          ? 'set the console password of the first user: it is printed on stderr, once'
          : 'set the console password of the first user to BOOTSTRAP_PASSWORD',
      )
      if (firstPassword.generated)
        process.stderr.write(
          `\nSign in to the console at / as ${firstPassword.email} with this password (change it with npm run cli -- set-password). It is not shown again.\n\n    ${firstPassword.password}\n\n`,
        )
    }

    // What happens to events before and after they are stored, for the spool consumer's batches
    // and replayed dead letters alike. A server that stores no events (ROLE=api) replays with the
    // stages alone: the ingestion servers' webhook senders send what they queue.
    const pluginRuntime = runsIngestion
      ? startPluginRuntime(config, deps, registry, metrics.eventsDropped)
      : pluginStages(config, deps, registry, metrics.eventsDropped)
    cleanups.unshift(() => pluginRuntime.stop())
    const beforeStoring = beforeStoringWith(deps, pluginRuntime)
    if (runsIngestion) {
      const definitions = new EventDefinitionTracker(deps)
      const sink = new EventSink({ ch, metrics, log: warn })
      // A batch that keeps failing holds every event behind it: readiness says so (the instance still takes events).
      readinessChecks.push({ name: 'ingestion', critical: false, check: () => sink.readiness() })
      registerSinkFailingGauge(registry, sink)
      spools = await openSpoolLanes(
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
            disk,
            writesInFlight: config.SPOOL_WRITES_IN_FLIGHT,
            log: warn,
            beforeInsert: beforeStoring,
            // Destinations' deliveries are queued before the position moves on: none is lost to a crash.
            afterInsert: (storedFrames) => pluginRuntime.afterStored(storedFrames),
            onStored: async (sightings) => {
              for (const [teamId, event, timestampMs] of sightings) definitions.record(teamId, event, timestampMs)
              await definitions.flush()
            },
          }),
      )
      const lanes = spools
      readinessChecks.push(spoolRoomCheck(spoolBytes, config.SPOOL_MAX_BYTES))
      // What ClickHouse does not take in time stays in the spool for the next start. The spool
      // gets most of SHUTDOWN_TIMEOUT_MS; the rest is for closing connections before the process's deadline.
      const spoolBudgetMs = Math.max(Math.floor(config.SHUTDOWN_TIMEOUT_MS * 0.8), config.SHUTDOWN_TIMEOUT_MS - 5_000)
      cleanups.unshift(async () => {
        const left = await Promise.all(lanes.map((spool) => spool.close(spoolBudgetMs)))
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
        cookielessSalts: new CookielessSalts((day) => cookielessSalt(deps, day)),
        cookielessState: cookielessState(deps),
        maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
        log: perRequest,
        keyGuesses,
      }
      if (captureThreads) {
        projectTokens.onInvalidation((token) => captureThreads.invalidate(token))
        projectFlags.onInvalidation((projectId) => captureThreads.invalidateFlags(projectId))
        captureServices = {
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
        }
      } else {
        capture = {
          projects: projectTokens,
          spool: lanes[0]!,
          sink,
          metrics,
          disk,
          maxDecompressedBytes: config.MAX_DECOMPRESSED_BYTES,
          log: perRequest,
          cookielessSalts: decide.cookielessSalts,
          cookielessState: decide.cookielessState,
          keyGuesses,
          ...(eventQuota ? { eventQuota } : {}),
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
              process: beforeStoring,
              afterStored: (frames) => pluginRuntime.afterStored(frames),
            },
            filter,
          ),
        dlqPurge: (filter) => purgeDeadLetters(ch, filter),
        backup: (to) =>
          backupService(
            {
              config,
              sql: pg.sql,
              ch,
              whileNotStoring: (work) => whileAllPaused(spools, work, BACKUP_PAUSE_WAIT_MS),
            },
            to,
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
      rest = createRestHandler(deps, apiGuards)
      trpc = createTrpcHandler(deps, apiGuards)
    }
    setLifecycle('ready')
    log('ready')

    return {
      port: server.port,
      deps,
      async stop() {
        if (lifecycle === 'draining') return
        stopDeadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS
        setLifecycle('draining')
        server.close()
        // Each part is closed even if one before it fails: the spool's count of what is left must be said.
        let failure: Error | undefined
        for (const cleanup of cleanups) {
          await cleanup().catch((err: unknown) => {
            warn('a part of the service failed to close', err)
            failure ??= err instanceof Error ? err : new Error(String(err))
          })
        }
        if (failure) throw failure
        log('stopped')
      },
    }
  } catch (err) {
    server.close()
    for (const cleanup of cleanups) await cleanup().catch(() => {})
    throw err
  }
}

/**
 * A quota of events a second per project: a request's events count at once (at most the whole
 * quota, so that one large batch can pass in a second of its own); how long to wait when over.
 */
function projectEventQuota(limit: RateLimit, perSecond: number) {
  return async (projectId: number, events: number): Promise<number | undefined> => {
    const verdict = await limit.hit(String(projectId), Math.min(events, perSecond))
    return verdict.allowed ? undefined : verdict.retryAfterMs
  }
}

/** Failed sign-ins an account may have in SIGN_IN_WINDOW_S before it is refused until the window ends. */
const SIGN_IN_FAILURES = 10
const SIGN_IN_WINDOW_S = 15 * 60

/** Whether the cache answers within `ms` (it connects in the background). */
async function connectedWithin(cache: { connected(): boolean }, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; !cache.connected() && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 20))
  return cache.connected()
}

/** `handle` once `probe` succeeds through it; closed (and the error thrown) when it does not, so that a retry starts afresh. */
async function answering<T extends { close(): Promise<void> }>(handle: T, probe: () => Promise<unknown>): Promise<T> {
  try {
    await probe()
    return handle
  } catch (err) {
    await handle.close().catch(() => {})
    throw err
  }
}

/** Above this share of SPOOL_MAX_BYTES the spool counts as full for readiness: capture is about to answer 503. */
/** How long a backup waits for the spool's batches under way to be stored before it gives up (ClickHouse or PostgreSQL not answering). */
const BACKUP_PAUSE_WAIT_MS = 60_000

const SPOOL_FULL_SHARE = 0.95

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
