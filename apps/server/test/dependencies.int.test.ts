import { createServer } from 'node:net'
import { createTestAccount, databaseUrlForTests, removeTestDirs, startTcpProxy, waitFor, type TcpProxy } from '@burrow/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { atPort, CapturedLog, metricValue, startLoggedService, type LoggedService } from './loggedService'

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const SECRET = 'never-in-a-log-line'

function targetOf(url: string, defaultPort: number) {
  return { host: new URL(url).hostname || '127.0.0.1', port: Number(new URL(url).port || defaultPort) }
}

/** The URL through a local port, with a password that must show nowhere (the tests' servers trust local connections). */
function withSecret(url: string, port: number): string {
  const parsed = new URL(atPort(url, port))
  parsed.password = SECRET
  return parsed.toString()
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

const proxies: TcpProxy[] = []
const services: LoggedService[] = []
afterEach(async () => {
  for (const service of services.splice(0)) await service.app.stop().catch(() => {})
  for (const proxy of proxies.splice(0)) await proxy.close()
  removeTestDirs()
})

async function proxyTo(url: string, defaultPort: number): Promise<TcpProxy> {
  const proxy = await startTcpProxy(targetOf(url, defaultPort))
  proxies.push(proxy)
  return proxy
}

async function start(overrides: Parameters<typeof startLoggedService>[0], log?: CapturedLog): Promise<LoggedService> {
  const service = await startLoggedService(overrides, log)
  services.push(service)
  return service
}

const readiness = async (service: LoggedService) => {
  const res = await fetch(`${service.baseUrl}/_readyz`)
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { status: string; error?: string }> } }
}

const pgUrl = await databaseUrlForTests()

describe.skipIf(!pgUrl)('a PostgreSQL server at start', () => {
  it('is waited for when it comes up after the service, each retry logged with where it is and never the password', async () => {
    const proxy = await proxyTo(pgUrl!, 5432)
    await proxy.cut()
    const log = new CapturedLog()
    const retry = /^postgres at 127\.0\.0\.1:\d+\/\w+ is not answering, retrying in \d+ ms$/
    // PostgreSQL comes up once the service has tried it twice. The wait includes the service's
    // start before its first try (capture threads, a busy CI machine): generous, it bounds a hang.
    const comesUp = waitFor(() => (log.matching(retry).length >= 2 ? true : undefined), { what: 'two retries', timeoutMs: 60_000 }).then(
      () => proxy.restore(),
    )
    const service = await start({ DATABASE_URL: withSecret(pgUrl!, proxy.port), DEPENDENCY_WAIT_MS: 30_000 }, log)
    await comesUp
    const retries = service.log.matching(retry)
    expect(retries.length).toBeGreaterThanOrEqual(2)
    expect(retries[0]).toMatchObject({ level: 40, dependency: 'postgres', target: expect.stringMatching(/^127\.0\.0\.1:\d+\//) })
    expect(retries[0]!.err).toMatch(/ECONNRESET|ECONNREFUSED/)
    expect(service.log.matching(/^postgres at .* answered$/)).toHaveLength(1)
    expect(JSON.stringify(service.log.lines)).not.toContain(SECRET)
    expect((await readiness(service)).status).toBe(200)
  }, 120_000)

  it('is given up on after DEPENDENCY_WAIT_MS with a message that says which dependency, where, and why', async () => {
    const port = await closedPort()
    const failure = await startLoggedService({ DATABASE_URL: withSecret(pgUrl!, port), DEPENDENCY_WAIT_MS: 1_500 }).then(
      () => undefined,
      (err: unknown) => err as Error,
    )
    expect(failure?.message).toMatch(
      new RegExp(`^postgres at 127\\.0\\.0\\.1:${port}/\\w+ did not answer within [12] s \\(DEPENDENCY_WAIT_MS\\): .*ECONNREFUSED`),
    )
    expect(failure?.message).not.toContain(SECRET)
  }, 30_000)
})

describe('Redis at start', () => {
  it('is not waited for: the service starts, reports Redis failing without failing readiness, and uses it once it answers', async () => {
    const proxy = await proxyTo(redisUrl, 6379)
    await proxy.cut()
    const service = await start({ REDIS_URL: atPort(redisUrl, proxy.port) })
    const account = await createTestAccount(service.app.deps.sql)
    const capture = await fetch(`${service.baseUrl}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: account.projectToken, event: 'redis down', distinct_id: 'u1' }),
    })
    expect(capture.status).toBe(200)

    expect(service.log.matching(/^cache: redis 127\.0\.0\.1:\d+ \(not answering yet\)$/)).toHaveLength(1)
    const down = await readiness(service)
    expect(down.status).toBe(200)
    expect(down.body.status).toBe('degraded')
    expect(down.body.checks.redis).toMatchObject({ status: 'failing', critical: false })
    expect(down.body.checks.postgres).toMatchObject({ status: 'ok' })
    const metrics = await (await fetch(`${service.baseUrl}/_metrics`)).text()
    expect(metricValue(metrics, 'burrow_dependency_up{dependency="redis"}')).toBe(0)
    expect(metricValue(metrics, 'burrow_dependency_up{dependency="postgres"}')).toBe(1)

    await proxy.restore()
    await waitFor(async () => ((await readiness(service)).body.status === 'ok' ? true : undefined), {
      what: 'readiness to see Redis back',
      timeoutMs: 15_000,
    })
    expect(service.log.matching(/^redis 127\.0\.0\.1:\d+ failed$/)).toHaveLength(1)
    expect(service.log.matching(/^redis 127\.0\.0\.1:\d+ recovered after/)).toHaveLength(1)
  }, 60_000)
})

describe.skipIf(!pgUrl)('stopping while PostgreSQL and Redis are down', () => {
  it('stops within SHUTDOWN_TIMEOUT_MS, says how many acknowledged rows it leaves, and the next start stores them', async () => {
    const pgProxy = await proxyTo(pgUrl!, 5432)
    const redisProxy = await proxyTo(redisUrl, 6379)
    const service = await start({
      DATABASE_URL: atPort(pgUrl!, pgProxy.port),
      REDIS_URL: atPort(redisUrl, redisProxy.port),
      SHUTDOWN_TIMEOUT_MS: 4_000,
    })
    const account = await createTestAccount(service.app.deps.sql)
    const send = (batch: Array<{ event: string; distinct_id: string }>) =>
      fetch(`${service.baseUrl}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: account.projectToken, batch }) })
    expect((await send([{ event: 'before', distinct_id: 'u1' }])).status).toBe(200)
    const scrape = async () => (await fetch(`${service.baseUrl}/_metrics`)).text()
    await waitFor(async () => ((metricValue(await scrape(), 'burrow_events_inserted_total') ?? 0) >= 1 ? true : undefined), {
      what: 'the first event stored',
    })

    await Promise.all([pgProxy.cut(), redisProxy.cut()])
    const during = Array.from({ length: 5 }, (_, i) => ({ event: 'during outage', distinct_id: `u${i}` }))
    expect((await send(during)).status).toBe(200)
    // Persons need PostgreSQL: the consumer's failures are counted, where ClickHouse's retries were the only count before.
    await waitFor(
      async () => ((metricValue(await scrape(), 'burrow_consumer_failures_total{stage="prepare"}') ?? 0) > 0 ? true : undefined),
      { what: 'a counted consumer failure' },
    )

    const started = Date.now()
    await service.app.stop()
    expect(Date.now() - started).toBeLessThan(4_000)
    const [left] = service.log.matching(/^stopped before storing everything/)
    expect(left).toMatchObject({ level: 40, rows_left: 5, segments_left: 1 })
    expect(left!.msg).toContain('5 acknowledged row(s) stay in the spool')

    await Promise.all([pgProxy.restore(), redisProxy.restore()])
    const next = await start({ DATA_DIR: service.config.DATA_DIR, DATABASE_URL: pgUrl! })
    await waitFor(
      async () => {
        const result = await next.app.deps.ch.reader.query({
          query: 'SELECT count() AS n FROM events WHERE team_id = {team:Int64}',
          query_params: { team: account.projectId },
          format: 'JSONEachRow',
        })
        const [row] = await result.json<{ n: string }>()
        return Number(row?.n) === 6 ? true : undefined
      },
      { what: 'the six events stored after the restart', timeoutMs: 20_000 },
    )
  }, 90_000)
})
