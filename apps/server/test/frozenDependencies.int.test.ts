import {
  createTestAccount,
  databaseUrlForTests,
  removeTestDirs,
  startTcpProxy,
  waitFor,
  type TcpProxy,
  type TestAccount,
} from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { atPort, metricValue, startLoggedService, type LoggedService } from './loggedService'

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const pgUrl = await databaseUrlForTests()

function targetOf(url: string, defaultPort: number) {
  return { host: new URL(url).hostname || '127.0.0.1', port: Number(new URL(url).port || defaultPort) }
}

/**
 * Kubernetes' default probe timeout is 1 s: a probe answers well within it, whatever the
 * dependencies do. A probe that waited on a frozen dependency would take at least the check's
 * deadline (1.5 s here); the busy two-core machines answer an idle probe in up to ~150 ms.
 */
const PROBE_TYPICAL_MS = 200
const PROBE_WORST_MS = 500
const CHECK_TIMEOUT_MS = 1_500

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

// A PostgreSQL (and a Redis) frozen as by SIGSTOP or a network that stops forwarding: connections
// are accepted and nothing is ever answered, where a server that is down would refuse them.
describe.skipIf(!pgUrl)('while PostgreSQL and Redis are frozen', () => {
  let service: LoggedService
  let pgProxy: TcpProxy
  let redisProxy: TcpProxy
  let known: TestAccount
  let unseen: TestAccount

  beforeAll(async () => {
    pgProxy = await startTcpProxy(targetOf(pgUrl!, 5432))
    redisProxy = await startTcpProxy(targetOf(redisUrl, 6379))
    service = await startLoggedService({
      DATABASE_URL: atPort(pgUrl!, pgProxy.port),
      REDIS_URL: atPort(redisUrl, redisProxy.port),
      DEPENDENCY_CHECK_INTERVAL_MS: 250,
      DEPENDENCY_CHECK_TIMEOUT_MS: CHECK_TIMEOUT_MS,
    })
    known = await createTestAccount(service.app.deps.sql)
    // A project whose flags this instance has never loaded (its token is looked up before the freeze).
    unseen = await createTestAccount(service.app.deps.sql)
  })
  afterAll(async () => {
    await pgProxy?.restore()
    await redisProxy?.restore()
    await service?.app.stop()
    await pgProxy?.close()
    await redisProxy?.close()
    removeTestDirs()
  })

  const capture = (token: string, event: string) =>
    fetch(`${service.baseUrl}/capture/`, { method: 'POST', body: JSON.stringify({ api_key: token, event, distinct_id: 'frozen-user' }) })
  const api = (account: TestAccount, path: string) =>
    fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${account.personalApiKey}` } })
  const readiness = async () => {
    const res = await fetch(`${service.baseUrl}/_readyz`)
    return {
      status: res.status,
      body: (await res.json()) as { status: string; checks: Record<string, { status: string; error?: string }> },
    }
  }

  it('answers the probes within milliseconds saying which dependency fails, and 503 (not a hang, not a 500) where PostgreSQL is needed', async () => {
    expect((await capture(known.projectToken, 'before the freeze')).status).toBe(200)
    expect((await capture(unseen.projectToken, 'before the freeze')).status).toBe(200)
    await Promise.all([pgProxy.freeze(), redisProxy.freeze()])

    // Readiness reads state the background checks keep: every answer is fast, before and after they notice.
    const probeTimes: number[] = []
    const down = await waitFor(
      async () => {
        const { value, ms } = await timed(readiness)
        probeTimes.push(ms)
        return value.body.checks.postgres?.status === 'failing' && value.body.checks.redis?.status === 'failing' ? value : undefined
      },
      { what: 'readiness to see PostgreSQL and Redis failing', timeoutMs: 10_000, intervalMs: 50 },
    )
    for (let i = 0; i < 5; i++) probeTimes.push((await timed(readiness)).ms)
    expect(median(probeTimes)).toBeLessThan(PROBE_TYPICAL_MS)
    expect(Math.max(...probeTimes)).toBeLessThan(PROBE_WORST_MS)
    // Shared dependencies do not take the instance out of the load balancer: capture still takes events.
    expect(down.status).toBe(200)
    expect(down.body.status).toBe('degraded')
    expect(down.body.checks.postgres).toMatchObject({
      status: 'failing',
      critical: false,
      error: `no answer within ${CHECK_TIMEOUT_MS} ms`,
    })

    const scrapes = []
    for (let i = 0; i < 5; i++) scrapes.push(await timed(async () => (await fetch(`${service.baseUrl}/_metrics`)).text()))
    expect(median(scrapes.map((s) => s.ms))).toBeLessThan(PROBE_TYPICAL_MS)
    expect(Math.max(...scrapes.map((s) => s.ms))).toBeLessThan(PROBE_WORST_MS)
    const scrape = scrapes.at(-1)!
    expect(metricValue(scrape.value, 'burrow_dependency_up{dependency="postgres"}')).toBe(0)
    expect(metricValue(scrape.value, 'burrow_dependency_up{dependency="redis"}')).toBe(0)
    expect(metricValue(scrape.value, 'burrow_readiness_check_ok{check="postgres"}')).toBe(0)

    // An unknown token: PostHog's 503 for a project that cannot be looked up.
    const unknown = await timed(() => capture('phc_never_seen_anywhere', 'unknown project'))
    expect(unknown.value.status).toBe(503)
    expect(await unknown.value.json()).toEqual({
      type: 'server_error',
      code: 'fetch_team_fail',
      detail: 'Unable to fetch team from database.',
      attr: null,
    })
    // Redis, where the token would be cached, is frozen too: its commands give up after REDIS_COMMAND_TIMEOUT_MS (1 s).
    expect(unknown.ms).toBeLessThan(2_000)

    // The private API and the first flags of a project need PostgreSQL: 503 with PostHog's error body.
    const unavailable = {
      type: 'server_error',
      code: 'service_unavailable',
      detail: 'A database the service needs is not answering. Retry the request later.',
      attr: null,
    }
    const projects = await timed(() => api(known, '/api/projects/'))
    expect(projects.value.status).toBe(503)
    expect(await projects.value.json()).toEqual(unavailable)
    expect(projects.ms).toBeLessThan(2_000)
    const decide = await timed(() =>
      fetch(`${service.baseUrl}/decide/?v=3`, {
        method: 'POST',
        body: JSON.stringify({ api_key: unseen.projectToken, distinct_id: 'u1' }),
      }),
    )
    expect(decide.value.status).toBe(503)
    expect(await decide.value.json()).toEqual(unavailable)
    expect(decide.ms).toBeLessThan(2_000)

    // A project this instance knows keeps capturing: its events wait in the spool.
    expect((await capture(known.projectToken, 'during the freeze')).status).toBe(200)

    await Promise.all([pgProxy.restore(), redisProxy.restore()])
    await waitFor(async () => ((await readiness()).body.status === 'ok' ? true : undefined), {
      what: 'readiness to see PostgreSQL and Redis answer again',
      timeoutMs: 15_000,
    })
    expect((await api(known, '/api/projects/')).status).toBe(200)
    expect((await capture(unseen.projectToken, 'after the freeze')).status).toBe(200)
    expect(service.log.matching(new RegExp(`^postgres is not answering: no answer within ${CHECK_TIMEOUT_MS} ms$`))).toHaveLength(1)
    expect(service.log.matching(/^postgres answers again$/)).toHaveLength(1)
  }, 60_000)
})
