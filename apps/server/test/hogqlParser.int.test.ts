// What one tenant's HogQL text can do to the parser every tenant shares: chains and nesting that
// overflowed the parser's stack once left it corrupt for every later query of the process (and
// spun the thread that serves capture, /decide/ and health). Each is now refused before parsing,
// and what the parser does runs on a thread of its own.
import { randomUUID } from 'node:crypto'
import { waitFor, type TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let attacker: TestAccount
useTestService((s, a) => {
  service = s
  attacker = a
})

/** The attacker's key, as in the report: nothing but `query:read`. */
let queryReadKey: string
let other: TestAccount
const event = `parser-${randomUUID()}`

beforeAll(async () => {
  const created = await service.api(attacker, '/api/personal_api_keys/', {
    method: 'POST',
    body: JSON.stringify({ label: 'queries only', scopes: ['query:read'] }),
  })
  expect(created.status).toBe(201)
  queryReadKey = ((await created.json()) as { value: string }).value
  other = await service.account()
  const batch = Array.from({ length: 7 }, (_, i) => ({ event, distinct_id: `user-${i}` }))
  expect((await service.post('/batch/', { api_key: other.projectToken, batch })).status).toBe(200)
  await storedCount(7)
})

async function query(key: string, projectId: number, body: unknown): Promise<{ status: number; body: Record<string, any>; ms: number }> {
  const started = performance.now()
  const res = await fetch(`${service.baseUrl}/api/projects/${projectId}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: body, refresh: 'force_blocking' }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any>, ms: performance.now() - started }
}

const hostile = (text: string) => query(queryReadKey, attacker.projectId, { kind: 'HogQLQuery', query: text })

/** Another organization's query, and its answer: the count of its events. */
async function othersCount(): Promise<{ ms: number; count: number }> {
  const answer = await query(other.personalApiKey, other.projectId, {
    kind: 'HogQLQuery',
    query: `SELECT count() FROM events WHERE event = '${event}'`,
  })
  expect(answer.status).toBe(200)
  return { ms: answer.ms, count: Number(answer.body.results[0][0]) }
}

/** Waits until the other organization has `count` events stored. */
const storedCount = (count: number) =>
  waitFor(async () => ((await othersCount()).count >= count ? true : undefined), { what: `${count} stored events`, timeoutMs: 60_000 })

async function healthAtOnce(): Promise<void> {
  const started = performance.now()
  expect((await fetch(`${service.baseUrl}/_health`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200)
  expect(performance.now() - started).toBeLessThan(1_000)
}

describe('HogQL the parser cannot take', () => {
  it('refuses the 500, 1000 and 1500-term chains with a 400 naming the limit, and other tenants are answered as before', async () => {
    expect((await othersCount()).count).toBe(7)
    for (const terms of [500, 1000, 1500]) {
      const answer = await hostile(`select 1${' or 1'.repeat(terms - 1)}`)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail:
          'The query is too complex to parse: an expression may chain at most 100 operators, its levels of nesting included. Split it or simplify it.',
        attr: 'query',
      })
      await healthAtOnce()
      expect((await othersCount()).count).toBe(7)
    }
  })

  it('refuses deep nesting, in a HogQLQuery and in the expressions of an EventsQuery, naming the field', async () => {
    for (const text of [
      `select ${'('.repeat(500)}1${')'.repeat(500)}`,
      `select ${'f('.repeat(40)}1${')'.repeat(40)}`,
      `select ${'not '.repeat(200)}1`,
      `select <a>${'{'.repeat(300)}`,
    ]) {
      const answer = await hostile(text)
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: 'invalid_input', attr: 'query', detail: expect.stringContaining('at most 20 levels deep') })
    }
    const events = await query(queryReadKey, attacker.projectId, {
      kind: 'EventsQuery',
      select: ['event'],
      where: ["event = 'x'", `1${' or 1'.repeat(999)}`],
    })
    expect(events.status).toBe(400)
    expect(events.body).toMatchObject({ code: 'invalid_input', attr: 'where__1', detail: expect.stringContaining('where[1]') })
    await healthAtOnce()
    expect((await othersCount()).count).toBe(7)
  })

  it('keeps health, capture and other tenants answering while a query within the bounds takes the parser long', async () => {
    // Thirty columns of calls nested twenty deep: within every bound, and seconds of the parser's time.
    const slow = `select ${Array.from({ length: 30 }, () => `${'tuple('.repeat(20)}1${')'.repeat(20)}`).join(', ')}`
    const pending = hostile(slow)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await healthAtOnce()
    const captured = await service.post('/capture/', { api_key: other.projectToken, event, distinct_id: 'during' })
    expect(captured.status).toBe(200)
    const answer = await pending
    // Ended at its deadline (5 s) rather than left to run for minutes.
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({
      code: 'invalid_input',
      attr: 'query',
      detail: expect.stringContaining('could not be parsed in time'),
    })
    expect(answer.ms).toBeLessThan(15_000)
    await storedCount(8)
    expect((await othersCount()).count).toBe(8)
    await healthAtOnce()
  })
})
