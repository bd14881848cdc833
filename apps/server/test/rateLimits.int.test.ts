import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { databaseUrlForTests, waitFor, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './service'
import { exitCode, startServiceProcess, type ServiceProcess } from './serviceProcess'

/**
 * Two instances of the service on one PostgreSQL and one Redis, as a scaled-out deployment
 * runs them: this process's, and one in a child process (its embedded ClickHouse is its own).
 * Low limits, so that a test reaches them quickly.
 */
const LIMITS = {
  API_RATE_LIMIT_PER_MINUTE: '6',
  API_RATE_LIMIT_PER_HOUR: '1000',
  KEY_GUESS_SLOW_AFTER: '2',
  KEY_GUESS_REFUSE_AFTER: '6',
  KEY_GUESS_WINDOW_S: '600',
  TRUST_PROXY: 'true',
  CAPTURE_EVENTS_PER_SECOND: '5',
}

let first: TestService
let second: ServiceProcess
let account: TestAccount

beforeAll(async () => {
  const databaseUrl = await databaseUrlForTests()
  if (!databaseUrl) throw new Error('two instances need one PostgreSQL server: set DATABASE_URL (or make Docker reachable)')
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  first = await startTestService({ ...LIMITS, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl })
  second = await startServiceProcess({
    ...process.env,
    ...LIMITS,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    DATA_DIR: secondDataDir(),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  })
  account = await first.account()
}, 120_000)

afterAll(async () => {
  if (second) {
    const exited = exitCode(second.child)
    second.child.kill('SIGTERM')
    await exited
  }
  await first?.stop()
  if (first) rmSync(secondDataDir(), { recursive: true, force: true })
})

const secondDataDir = () => `${first.config.DATA_DIR.replace(/\/$/, '')}-second`

const instances = () => [first.baseUrl, second.baseUrl]

/** A client address of its own (the instances trust X-Forwarded-For here), so that other tests' guesses do not count. */
const address = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`

const get = (base: string, path: string, key: string, ip = address()) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': ip } })

async function newKey(): Promise<string> {
  const res = await first.api(account, '/api/personal_api_keys/', {
    method: 'POST',
    body: JSON.stringify({ label: `k-${randomUUID().slice(0, 8)}`, scopes: ['*'] }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { value: string }).value
}

describe('rate limits of the private API, across two instances sharing Redis', () => {
  it("counts a key's calls on both instances against one limit, and answers DRF's throttled body with Retry-After", async () => {
    const key = await newKey()
    const path = `/api/projects/${account.projectId}/cohorts/`
    for (let i = 0; i < 6; i++) expect((await get(instances()[i % 2]!, path, key)).status, `call ${i + 1}`).toBe(200)
    for (const base of instances()) {
      const refused = await get(base, path, key)
      expect(refused.status).toBe(429)
      const seconds = Number(refused.headers.get('retry-after'))
      expect(seconds).toBeGreaterThan(0)
      expect(seconds).toBeLessThanOrEqual(60)
      expect(await refused.json()).toEqual({
        type: 'throttled_error',
        code: 'throttled',
        detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        attr: null,
      })
    }
    // Another key of the same user has a limit of its own.
    expect((await get(second.baseUrl, path, await newKey())).status).toBe(200)
    const metrics = await (await fetch(`${first.baseUrl}/_metrics`)).text()
    expect(metrics).toMatch(/burrow_api_throttled_total\{throttle="api"\} [1-9]/)
  })

  it('stops a deleted key on both instances at once', async () => {
    const key = await newKey()
    const keys = (await (await get(first.baseUrl, '/api/personal_api_keys/', key)).json()) as Array<{ id: string; mask_value: string }>
    const id = keys.find((k) => k.mask_value.endsWith(key.slice(-4)))!.id
    expect((await get(second.baseUrl, '/api/users/@me/', key)).status).toBe(200)
    expect((await first.api(account, `/api/personal_api_keys/${id}/`, { method: 'DELETE' })).status).toBe(204)
    for (const base of instances()) expect((await get(base, '/api/users/@me/', key)).status).toBe(401)
  })
})

describe('guessing keys, across two instances sharing Redis', () => {
  it('slows, then refuses, an address that keeps sending invalid keys, on both instances; valid keys and other addresses go on', async () => {
    const guesser = address()
    const timings: number[] = []
    // Personal keys on the private API and project keys at capture count alike.
    for (let i = 0; i < 6; i++) {
      const started = performance.now()
      const res =
        i % 2 === 0
          ? await get(instances()[i % 2]!, '/api/users/@me/', `phx_guess${i}`, guesser)
          : await fetch(`${instances()[i % 2]!}/capture/`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-forwarded-for': guesser },
              body: JSON.stringify({ api_key: `phc_guess${i}`, event: 'e', distinct_id: 'd' }),
            })
      timings.push(performance.now() - started)
      expect(res.status, `guess ${i + 1}`).toBe(401)
    }
    // The third guess on is answered late (50 ms, then twice as long each time).
    expect(timings[5]!).toBeGreaterThanOrEqual(350)

    for (const base of instances()) {
      const refused = await get(base, '/api/users/@me/', 'phx_guess_again', guesser)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60)
      expect(await refused.json()).toMatchObject({ type: 'throttled_error', code: 'throttled' })
      const capture = await fetch(`${base}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': guesser },
        body: JSON.stringify({ api_key: 'phc_guess_again', event: 'e', distinct_id: 'd' }),
      })
      expect(capture.status).toBe(429)
      expect(capture.headers.get('retry-after')).not.toBeNull()
    }
    // A valid key from the same address, and an invalid one from another address, are answered as usual.
    expect((await get(second.baseUrl, '/api/users/@me/', account.personalApiKey, guesser)).status).toBe(200)
    const accepted = await fetch(`${first.baseUrl}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': guesser },
      body: JSON.stringify({ api_key: account.projectToken, event: 'e', distinct_id: 'd' }),
    })
    expect(accepted.status).toBe(200)
    expect((await get(first.baseUrl, '/api/users/@me/', 'phx_other', address())).status).toBe(401)

    // Each instance counts what it answered: personal key guesses went to the first, project keys to the second.
    const [firstMetrics, secondMetrics] = await Promise.all(instances().map(async (base) => (await fetch(`${base}/_metrics`)).text()))
    expect(firstMetrics).toMatch(/burrow_key_guesses_total\{kind="personal",outcome="refused"\} [1-9]/)
    expect(secondMetrics).toMatch(/burrow_key_guesses_total\{kind="project",outcome="slowed"\} [1-9]/)
  })
})

describe('the per-project quota of events a second, across two instances sharing Redis', () => {
  it('refuses a request over the quota whole, with 429 and Retry-After, and stores every event it acknowledged', async () => {
    const owner = await first.account()
    const batch = (name: string) =>
      JSON.stringify({ api_key: owner.projectToken, batch: Array.from({ length: 5 }, (_, i) => ({ event: name, distinct_id: `d${i}` })) })
    const post = (base: string, body: string) =>
      fetch(`${base}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect((await post(first.baseUrl, batch('within'))).status).toBe(200)
    const refused = await post(second.baseUrl, batch('over'))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ type: 'throttled_error', code: 'rate_limited', attr: null })
    // Another project has a quota of its own.
    expect((await post(second.baseUrl, JSON.stringify({ api_key: account.projectToken, event: 'other', distinct_id: 'd' }))).status).toBe(
      200,
    )

    // The client sends the refused request again once the second has passed (to the first
    // instance: each instance here stores events in a ClickHouse of its own).
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect((await post(first.baseUrl, batch('over'))).status).toBe(200)
    // Read from ClickHouse itself: this file's API limit (6 a minute) would throttle a polling client.
    const stored = await waitFor(
      async () => {
        const result = await first.app.deps.ch.reader.query({
          query: 'SELECT event FROM events WHERE team_id = {team:Int64}',
          query_params: { team: owner.projectId },
          format: 'JSONEachRow',
        })
        const rows = await result.json<{ event: string }>()
        return rows.length >= 10 ? rows : undefined
      },
      { what: '10 stored events', timeoutMs: 15_000 },
    )
    expect(stored.filter((e) => e.event === 'within')).toHaveLength(5)
    expect(stored.filter((e) => e.event === 'over')).toHaveLength(5)
  })
})
