import { createSharedCache, type SharedCache } from '@burrow/cache'
import {
  applyRetention,
  DEFAULT_MATERIALIZED_PROPERTIES,
  ensureMaterializedProperties,
  migrateClickHouse,
  type ClickHouse,
} from '@burrow/clickhouse'
import type { Config } from '@burrow/config'
import { connectPostgres, migratePostgres, whileClickHouseMigrationLocked, type PostgresHandle } from '@burrow/postgres'
import type { Registry } from 'prom-client'
import { watchDependencies, waitForDependency } from '../dependencies'
import { watchDetachedParts } from '../detachedParts'
import { logFn, type Logger } from '../logger'
import type { ReadinessCheck } from '../observability/probes'
import { registerDeadLetterGauge } from '../observability/serviceMetrics'
import { connectClickHouseFrom, redactedTarget } from '../storage'
import type { Teardown } from './teardown'

export interface Storage {
  pg: PostgresHandle
  ch: ClickHouse
  cache: SharedCache
}

/**
 * PostgreSQL and ClickHouse, waited for when given by URL (started alongside), migrated, and
 * ClickHouse's retention and property columns applied; then the shared cache, which is not
 * waited for (it misses until Redis answers, then connects by itself).
 */
export async function connectStorage(config: Config, logger: Logger, registry: Registry, teardown: Teardown): Promise<Storage> {
  const log = (msg: string) => logger.info(msg)
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
  teardown.onStop(() => pg.close(teardown.timeLeft(100, 5_000, 1_000)))
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
  teardown.onStop(() => ch.close())
  const appliedCh = await migrateClickHouse(ch, { exclusively: (migrate) => whileClickHouseMigrationLocked(pg.sql, migrate) })
  log(`clickhouse: ${ch.description}${appliedCh.length ? `, applied ${appliedCh.join(', ')}` : ''}`)
  const detached = await watchDetachedParts(ch, logger, registry, { dataDir: config.DATA_DIR })
  teardown.onStop(async () => detached.stop())
  const retention = await applyRetention(ch, {
    events: config.EVENT_RETENTION_DAYS,
    deadLetters: config.DEAD_LETTER_RETENTION_DAYS,
    pluginLogs: config.PLUGIN_LOG_RETENTION_DAYS,
  })
  if (retention.length > 0) log(`clickhouse retention: ${retention.join(', ')}`)
  const materialized = await ensureMaterializedProperties(ch, [...DEFAULT_MATERIALIZED_PROPERTIES, ...config.MATERIALIZED_PROPERTIES])
  if (materialized.length > 0) log(`clickhouse: properties in columns of their own: ${materialized.join(', ')}`)

  // Its connection is given the time of a dependency check, so that the log says whether it answers.
  const cache = await createSharedCache(config.REDIS_URL, logFn(logger))
  // A frozen Redis would hold the stop for its whole QUIT wait: what is left before the deadline bounds it.
  teardown.onStop(() => cache.close(teardown.timeLeft(50, 1_000, 500)))
  const redisAnswers = await connectedWithin(cache, config.REDIS_URL ? config.DEPENDENCY_CHECK_TIMEOUT_MS : 0)
  log(
    `cache: ${cache.kind}${config.REDIS_URL ? ` ${redactedTarget(config.REDIS_URL, '')}${redisAnswers ? '' : ' (not answering yet)'}` : ''}`,
  )
  return { pg, ch, cache }
}

/**
 * The storage's background checks, whose state readiness and the metrics read: PostgreSQL,
 * ClickHouse and Redis (when configured), and the dead letters' count.
 */
export async function watchStorage(
  config: Config,
  logger: Logger,
  registry: Registry,
  { pg, ch, cache }: Storage,
  teardown: Teardown,
): Promise<ReadinessCheck[]> {
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
  teardown.onStop(async () => dependencies.stop())
  const stopDeadLetterGauge = registerDeadLetterGauge(registry, ch, config.DEPENDENCY_CHECK_TIMEOUT_MS)
  teardown.onStop(async () => stopDeadLetterGauge())
  return dependencies.checks
}

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
