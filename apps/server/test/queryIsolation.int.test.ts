// Two organizations' projects on one ClickHouse (the suite's: the embedded engine, or a server):
// what one project's queries do, failing or running past their limit, leaves the other's alone.
import type { TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './service'

/** Fails once its first rows are computed (the output has begun), as a query fails mid-stream. */
const FAILS_MIDWAY = 'SELECT x, intDiv(1, x - 70000) FROM (SELECT arrayJoin(range(100000)) AS x)'
/** Minutes of work for the engine unless it is stopped. */
const HEAVY =
  'SELECT sum(cityHash64(a.x, b.y)) FROM (SELECT arrayJoin(range(300000)) AS x) AS a CROSS JOIN (SELECT arrayJoin(range(300000)) AS y) AS b'
const LIMIT_SECONDS = 3

let service: TestService
let quiet: TestAccount
let noisy: TestAccount

beforeAll(async () => {
  service = await startTestService({ QUERY_MAX_EXECUTION_SECONDS: LIMIT_SECONDS, CAPTURE_THREADS: 0 })
  quiet = await service.account()
  noisy = await service.account()
  const batch = Array.from({ length: 20 }, (_, i) => ({ event: 'seen', distinct_id: `user-${i % 4}` }))
  expect((await service.post('/batch/', { api_key: quiet.projectToken, batch })).status).toBe(200)
  await service.eventsOf(quiet, 20)
})

afterAll(async () => {
  await service?.stop()
})

async function hogql(account: TestAccount, query: string): Promise<{ status: number; body: Record<string, any>; ms: number }> {
  const started = performance.now()
  const res = await service.api(account, `/api/projects/${account.projectId}/query/`, {
    method: 'POST',
    // Computed every time, never answered from the cache.
    body: JSON.stringify({ query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any>, ms: performance.now() - started }
}

describe("another organization's queries", () => {
  it('keep their answers and their latency while one project loops a query that fails mid-stream and runs one past its limit', async () => {
    const count = "SELECT count() FROM events WHERE event = 'seen'"
    // The first query starts the HogQL parser's threads (and may spend its time limit on it): not one to compare with.
    await hogql(quiet, count)
    const alone: number[] = []
    for (let i = 0; i < 5; i++) alone.push((await hogql(quiet, count)).ms)
    const typical = alone.sort((x, y) => x - y)[2]!

    let looping = true
    const failures = (async () => {
      const statuses: number[] = []
      while (looping) statuses.push((await hogql(noisy, FAILS_MIDWAY)).status)
      return statuses
    })()
    const heavy = hogql(noisy, HEAVY)
    const answers: Array<Awaited<ReturnType<typeof hogql>>> = []
    for (let i = 0; i < 20; i++) answers.push(await hogql(quiet, count))
    looping = false

    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.body.results).toEqual([[20]])
    }
    const slowest = Math.max(...answers.map((a) => a.ms))
    expect(slowest, `the quiet project's slowest answer, against ${Math.round(typical)} ms alone`).toBeLessThan(
      Math.max(1_500, 5 * typical),
    )

    const stopped = await heavy
    expect(stopped.status).toBe(400)
    expect(stopped.body).toMatchObject({ type: 'validation_error', code: 'timeout_exceeded', attr: null })
    expect(stopped.body.detail).toMatch(/^Query has hit the max execution time before completing\./)
    // Its limit, and a second's grace for ClickHouse's own to answer first.
    expect(stopped.ms).toBeLessThan(LIMIT_SECONDS * 1000 + 2_500)
    const statuses = await failures
    expect(statuses.length).toBeGreaterThan(0)
    // Each failed as what it is (a division by zero), or ran out of its time waiting behind the heavy one: never a 500.
    expect(statuses.every((status) => status === 400)).toBe(true)
  }, 60_000)
})
