import type { createRestHandler, createTrpcHandler } from '@burrow/api'
import type { CaptureDeps, DecideDeps, ProxyTrust } from '@burrow/capture'
import type { Config } from '@burrow/config'
import type { SpoolBytes } from '@burrow/spool'
import { AggregatorRegistry, type Registry } from 'prom-client'
import { startCaptureThreads, type CaptureServices, type CaptureThreads } from '../captureThreads/pool'
import { clientBundles } from '../http/clientBundles'
import { consoleAssets } from '../http/consoleAssets'
import { diskReserveOptions } from '../disk'
import { createDispatcher, type DispatchDeps, type Lifecycle } from '../http/dispatch'
import { startHttpServer, type HttpServer } from '../http/uwsServer'
import { logFn, type Logger } from '../logger'
import type { ServerMetrics } from '../observability/metrics'
import { readinessReport, type ReadinessCheck, type ReadinessReport } from '../observability/probes'
import { registerReadinessGauges, SERVICE_COMMIT, SERVICE_VERSION } from '../observability/serviceMetrics'
import type { Teardown } from './teardown'

/** Whose `X-Forwarded-For` capture and flags believe. */
function proxyTrust(config: Config): ProxyTrust {
  return config.TRUST_PROXY ? 'any' : config.TRUSTED_PROXIES
}

/** What the front serves once the parts behind it exist: until then, each answers 503 (starting). */
export interface FrontHandlers {
  capture?: CaptureDeps
  decide?: DecideDeps
  /** What the capture threads call on the main thread, when they run. */
  captureServices?: CaptureServices
  rest?: ReturnType<typeof createRestHandler>
  trpc?: ReturnType<typeof createTrpcHandler>
}

export interface Front {
  port: number
  /** The capture threads, when capture runs on threads of its own (CAPTURE_THREADS > 0 and ingestion in ROLE). */
  threads: CaptureThreads | undefined
  lifecycle(): Lifecycle
  setLifecycle(next: Lifecycle): void
  serve(handlers: FrontHandlers): void
  /** Stops accepting connections on the service's port. */
  close(): void
}

/**
 * The service's HTTP front, listening before anything else starts (answering 503 while it
 * starts): the dispatcher of every route, the capture threads that listen in its place when they
 * run, and the metrics port when it has one of its own.
 */
export async function startFront(options: {
  config: Config
  logger: Logger
  /** What fails per request, written once per interval with a count. */
  perRequest: (msg: string, err?: unknown) => void
  registry: Registry
  metrics: ServerMetrics
  spoolBytes: SpoolBytes
  /** Readiness looks at these; each part adds its own once it exists. */
  readinessChecks: readonly ReadinessCheck[]
  teardown: Teardown
}): Promise<Front> {
  const { config, logger, perRequest, registry, metrics, spoolBytes, readinessChecks, teardown } = options
  const log = (msg: string) => logger.info(msg)
  const warn = logFn(logger)
  const runsIngestion = config.ROLE !== 'api'
  const runsApi = config.ROLE !== 'ingestion'
  let lifecycle: Lifecycle = 'starting'
  const handlers: FrontHandlers = {}
  let threads: CaptureThreads | undefined

  const metricsText = async () => {
    if (!threads) return { contentType: registry.contentType, body: await registry.metrics() }
    const all = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...(await threads.metrics())])
    return { contentType: all.contentType, body: await all.metrics() }
  }
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
      return handlers.capture
    },
    get decide() {
      return handlers.decide
    },
    get rest() {
      return handlers.rest
    },
    get trpc() {
      return handlers.trpc
    },
  })
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
      services: () => handlers.captureServices,
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
  if (metricsServer) {
    log(`metrics on ${config.HOST}:${metricsServer.port}`)
    teardown.atTheEnd(async () => metricsServer.close())
  }
  // The threads end last: their spools are closed (everything acknowledged on disk) before.
  if (captureThreads) teardown.onStop(() => captureThreads.terminate())

  return {
    port: server.port,
    threads: captureThreads,
    lifecycle: () => lifecycle,
    setLifecycle(next) {
      lifecycle = next
      captureThreads?.setLifecycle(next)
    },
    serve: (served) => void Object.assign(handlers, served),
    close: () => server.close(),
  }
}
