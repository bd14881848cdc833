import type { Config } from '@burrow/config'
import type { CoreDeps } from '@burrow/core'
import type { EventSpool } from '@burrow/ingestion'
import { SpoolBytes } from '@burrow/spool'
import { beforeStoringWith } from './eventStages'
import { logFn, rateLimitedLog, type Logger } from './logger'
import { createServerMetrics } from './observability/metrics'
import { createStageMeter } from './observability/stageMetrics'
import { pluginStages, startPluginRuntime } from './plugins'
import type { ReadinessCheck } from './observability/probes'
import { startAdmin } from './start/admin'
import { startDiskReserve } from './start/disk'
import { startEventIngestion } from './start/eventIngestion'
import { bootstrapFirstAccount } from './start/firstAccount'
import { startFront } from './start/front'
import { createGuards } from './start/guards'
import { startObservability } from './start/observability'
import { startPrivateApi } from './start/privateApi'
import { connectStorage, watchStorage } from './start/storage'
import { Teardown } from './start/teardown'

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
 * empty database, starts ingestion and the private API as ROLE asks, and becomes ready. Each
 * step is in `start/`; each registers how it closes, and the stop closes them in reverse.
 */
export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const runsIngestion = config.ROLE !== 'api'
  const runsApi = config.ROLE !== 'ingestion'
  // What fails per request (a lookup while PostgreSQL is down) is written once per 30 s with a count.
  const perRequest = rateLimitedLog(logFn(logger))
  const teardown = new Teardown(logger)
  const registry = startObservability(config, teardown)
  const spoolBytes = new SpoolBytes()
  let spools: EventSpool[] = []
  const metrics = createServerMetrics(registry, { spools: () => spools, spoolBytes: () => spoolBytes.value })
  // Readiness looks at these; each part adds its own once it exists.
  const readinessChecks: ReadinessCheck[] = []
  const disk = startDiskReserve(config, logger, registry, readinessChecks, teardown)
  const front = await startFront({ config, logger, perRequest, registry, metrics, spoolBytes, readinessChecks, teardown }).catch(
    async (err: unknown) => {
      await teardown.abandon()
      throw err
    },
  )
  try {
    const storage = await connectStorage(config, logger, registry, teardown)
    readinessChecks.push(...(await watchStorage(config, logger, registry, storage, teardown)))
    const guards = createGuards(config, logger, metrics, teardown)
    const deps: CoreDeps = {
      sql: storage.pg.sql,
      ch: storage.ch,
      cache: storage.cache,
      log: perRequest,
      queryLimits: {
        maxExecutionSeconds: config.QUERY_MAX_EXECUTION_SECONDS,
        concurrencyPerProject: config.QUERY_CONCURRENCY_PER_PROJECT,
        concurrencyWaitMs: config.QUERY_CONCURRENCY_WAIT_MS,
        cacheFreshSeconds: config.QUERY_CACHE_FRESH_SECONDS,
      },
      querySlots: guards.querySlots,
    }
    await bootstrapFirstAccount(config, deps.sql, logger)

    // What happens to events before and after they are stored, for the spool consumer's batches
    // and replayed dead letters alike. A server that stores no events (ROLE=api) replays with the
    // stages alone: the ingestion servers' webhook senders send what they queue.
    const plugins = runsIngestion
      ? startPluginRuntime(config, deps, registry, metrics.eventsDropped)
      : pluginStages(config, deps, registry, metrics.eventsDropped)
    teardown.onStop(() => plugins.stop())
    const beforeStoring = beforeStoringWith(deps, plugins, createStageMeter(registry))
    if (runsIngestion) {
      const ingestion = await startEventIngestion({
        ...{ config, logger, registry, metrics, deps, guards, disk, spoolBytes, plugins, beforeStoring, readinessChecks, teardown },
        threads: front.threads,
      })
      spools = ingestion.spools
      front.serve(ingestion.handlers)
    }
    await startAdmin({ config, logger, deps, plugins, beforeStoring, spools: () => spools, teardown })
    if (runsApi) front.serve(startPrivateApi(config, deps, guards.api, teardown))
    front.setLifecycle('ready')
    logger.info('ready')

    return {
      port: front.port,
      deps,
      async stop() {
        if (front.lifecycle() === 'draining') return
        front.setLifecycle('draining')
        front.close()
        await teardown.stop(config.SHUTDOWN_TIMEOUT_MS)
        logger.info('stopped')
      },
    }
  } catch (err) {
    front.close()
    await teardown.abandon()
    throw err
  }
}
