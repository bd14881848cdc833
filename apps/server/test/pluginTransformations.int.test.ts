import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { deadLetter } from '@burrow/capture'
import { deadLetterQueue } from '@burrow/clickhouse'
import type { TestAccount } from '@burrow/testing'
import { clickHouseEnvFor, waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  {
    TEST_PLUGINS: true,
    // MaxMind's test database (from github.com/maxmind/MaxMind-DB, MIT or Apache-2.0).
    GEOIP_DATABASE: fileURLToPath(new URL('../../../packages/plugins/test-fixtures/GeoLite2-City-Test.mmdb', import.meta.url)),
    // Well above what a plugin takes on a busy machine, well below the test plugin's stall (1 s).
    PLUGIN_EVENT_TIMEOUT_MS: 250,
    PLUGIN_METRICS_FLUSH_MS: 200,
  },
)

const GEOIP = 1
const PROPERTY_FILTER = 2
const DOWNSAMPLING = 3
const TAXONOMY = 4
const WEBHOOK = 5
const TEST_FAILURES = 9001
/** In MaxMind's test database: London, England, GB. */
const LONDON_IP = '81.2.69.142'

const configsPath = (owner: TestAccount) => `/api/projects/${owner.projectId}/plugin_configs/`

async function call(owner: TestAccount, method: string, path: string, body?: unknown) {
  const res = await service.api(owner, path, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

async function enable(owner: TestAccount, plugin: number, order: number, config: Record<string, unknown> = {}): Promise<number> {
  const res = await call(owner, 'POST', configsPath(owner), { plugin, enabled: true, order, config })
  expect(res.status).toBe(201)
  return res.body.id as number
}

async function capture(owner: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await service.post('/batch/', { api_key: owner.projectToken, batch })
  expect(res.status).toBe(200)
}

/**
 * Captures marker events until one is stored as `applied` says: the config change has reached
 * the consumer (markers of earlier rounds may still be on their way, hence the wait each round).
 */
async function untilPluginsApply(
  owner: TestAccount,
  applied: (e: Record<string, any>) => boolean,
  distinctId: () => string = () => `marker-${randomUUID()}`,
): Promise<void> {
  await waitFor(
    async () => {
      await capture(owner, [{ event: 'marker event', distinct_id: distinctId(), properties: { $ip: LONDON_IP } }])
      await new Promise((resolve) => setTimeout(resolve, 300))
      const { body } = await call(owner, 'GET', `/api/projects/${owner.projectId}/events/?limit=100`)
      return (body.results as Array<Record<string, any>>).some((e) => e.properties.$ip !== undefined && applied(e)) ? true : undefined
    },
    { what: 'the plugin configs to apply', timeoutMs: 20_000, intervalMs: 100 },
  )
}

describe('transformations on stored events', () => {
  it('Property Filter removes the listed properties, nested ones and the IP', async () => {
    const fresh = await service.account()
    await enable(fresh, PROPERTY_FILTER, 1, { properties: 'secret,profile.email,$ip' })
    await capture(fresh, [
      {
        event: 'signed up',
        distinct_id: 'pf-user',
        properties: { secret: 'x', kept: 1, profile: { email: 'a@example.com', name: 'A' }, $ip: '10.1.2.3' },
      },
    ])
    const [stored] = await service.eventsOf(fresh, 1, '&event=signed%20up')
    expect(stored!.properties).toMatchObject({ kept: 1, profile: { name: 'A' } })
    expect(stored!.properties).not.toHaveProperty('secret')
    expect(stored!.properties.profile).not.toHaveProperty('email')
    expect(stored!.properties).not.toHaveProperty('$ip')
  })

  it('Downsampling keeps the distinct ids whose hash is under the percentage, and raising it only adds ids', async () => {
    const fresh = await service.account()
    const id = await enable(fresh, DOWNSAMPLING, 1, { percentage: '30' })
    const keeps = (distinctId: string, pct: number) =>
      parseInt(createHash('sha256').update(distinctId).digest('hex').slice(0, 15), 16) / parseInt('f'.repeat(15), 16) <= pct / 100
    const ids = Array.from({ length: 40 }, (_, i) => `sampled-${i}`)
    await capture(
      fresh,
      ids.map((d) => ({ event: 'page seen', distinct_id: d })),
    )
    const expected30 = ids.filter((d) => keeps(d, 30))
    expect(expected30.length).toBeGreaterThan(0)
    expect(expected30.length).toBeLessThan(ids.length)
    const first = await service.eventsOf(fresh, expected30.length, '&event=page%20seen')
    expect(first.map((e) => e.distinct_id).sort()).toEqual([...expected30].sort())

    await call(fresh, 'PATCH', `${configsPath(fresh)}${id}/`, { config: { percentage: '70' } })
    // A distinct id that 70% keeps and 30% does not shows the new percentage applies.
    const between = Array.from({ length: 200 }, (_, i) => `between-${i}`).find((d) => keeps(d, 70) && !keeps(d, 30))!
    await untilPluginsApply(
      fresh,
      (e) => e.distinct_id === between,
      () => between,
    )
    await capture(
      fresh,
      ids.map((d) => ({ event: 'page seen again', distinct_id: d })),
    )
    const expected70 = ids.filter((d) => keeps(d, 70))
    const second = await service.eventsOf(fresh, expected70.length, '&event=page%20seen%20again')
    const kept70 = second.map((e) => e.distinct_id)
    expect(kept70.sort()).toEqual([...expected70].sort())
    for (const d of expected30) expect(kept70).toContain(d)
  })

  it('refuses a Downsampling percentage outside 0–100 when the config is saved', async () => {
    const fresh = await service.account()
    for (const percentage of ['101', '-1', 'half']) {
      const res = await call(fresh, 'POST', configsPath(fresh), { plugin: DOWNSAMPLING, enabled: true, config: { percentage } })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ type: 'validation_error', attr: 'config__percentage' })
    }
  })

  it('Taxonomy Plugin renames custom events only, and a changed convention applies at once', async () => {
    const fresh = await service.account()
    const id = await enable(fresh, TAXONOMY, 1, { defaultNamingConvention: 'camelCase' })
    await capture(fresh, [
      { event: 'user_signed_up', distinct_id: 'tx' },
      { event: '$pageview', distinct_id: 'tx' },
      { event: 'survey shown', distinct_id: 'tx' },
    ])
    const events = await service.eventsOf(fresh, 3)
    expect(events.map((e) => e.event).sort()).toEqual(['$pageview', 'survey shown', 'userSignedUp'])

    await call(fresh, 'PATCH', `${configsPath(fresh)}${id}/`, { config: { defaultNamingConvention: 'snake_case' } })
    await untilPluginsApply(fresh, (e) => e.event === 'marker_event')
    await new Promise((resolve) => setTimeout(resolve, 0))
    await capture(fresh, [{ event: 'checkoutCompleted', distinct_id: 'tx' }])
    const [renamed] = await service.eventsOf(fresh, 1, '&event=checkout_completed')
    expect(renamed!.event).toBe('checkout_completed')
  })

  it('GeoIP adds the location of $ip to the event and to the person, where the event does not set it', async () => {
    const fresh = await service.account()
    const id = await enable(fresh, GEOIP, 1)
    await capture(fresh, [
      { event: 'visit', distinct_id: 'geo-user', properties: { $ip: LONDON_IP, $set: { $geoip_city_name: 'Chosen' } } },
      { event: 'server call', distinct_id: 'server', properties: { $ip: LONDON_IP, $geoip_disable: true } },
    ])
    const [visit] = await service.eventsOf(fresh, 1, '&event=visit')
    expect(visit!.properties).toMatchObject({
      $geoip_city_name: 'London',
      $geoip_country_name: 'United Kingdom',
      $geoip_country_code: 'GB',
      $geoip_continent_code: 'EU',
      $geoip_continent_name: 'Europe',
      $geoip_time_zone: 'Europe/London',
      $geoip_subdivision_1_code: 'ENG',
      $geoip_subdivision_1_name: 'England',
      $plugins_succeeded: [`GeoIP (${id})`],
      $plugins_failed: [],
    })
    expect(typeof visit!.properties.$geoip_latitude).toBe('number')
    // What the database does not know is not in the event, and null on the person (PostHog clears it so).
    expect(visit!.properties).not.toHaveProperty('$geoip_postal_code')
    const person = await service.personOf(fresh, 'geo-user', (p) => p.properties.$geoip_country_code !== undefined)
    expect(person.properties).toMatchObject({
      $geoip_country_code: 'GB',
      $geoip_city_name: 'Chosen',
      $initial_geoip_city_name: 'London',
      $initial_geoip_country_code: 'GB',
      $geoip_postal_code: null,
    })
    const [server] = await service.eventsOf(fresh, 1, '&event=server%20call')
    expect(server!.properties).not.toHaveProperty('$geoip_city_name')
  })

  it('runs in the order of the configs, which rearranging changes', async () => {
    const fresh = await service.account()
    const geo = await enable(fresh, GEOIP, 1)
    const filter = await enable(fresh, PROPERTY_FILTER, 2, { properties: '$geoip_city_name' })
    await capture(fresh, [{ event: 'first', distinct_id: 'o', properties: { $ip: LONDON_IP } }])
    const [first] = await service.eventsOf(fresh, 1, '&event=first')
    expect(first!.properties).not.toHaveProperty('$geoip_city_name')
    expect(first!.properties.$plugins_succeeded).toEqual([`GeoIP (${geo})`, `Property Filter (${filter})`])

    const rearranged = await call(fresh, 'PATCH', `${configsPath(fresh)}rearrange/`, { orders: { [geo]: 2, [filter]: 1 } })
    expect(rearranged.status).toBe(200)
    await untilPluginsApply(fresh, (e) => e.properties.$plugins_succeeded?.[0] === `Property Filter (${filter})`)
    await capture(fresh, [{ event: 'second', distinct_id: 'o', properties: { $ip: LONDON_IP } }])
    const [second] = await service.eventsOf(fresh, 1, '&event=second')
    expect(second!.properties.$geoip_city_name).toBe('London')
    const loaded = await call(fresh, 'GET', `${configsPath(fresh)}${geo}/logs/?search=Plugin%20loaded`)
    expect(loaded.body.results[0]).toMatchObject({ source: 'SYSTEM', type: 'INFO' })
    expect(loaded.body.results[0].message).toMatch(/^Plugin loaded \(instance ID [0-9a-f-]{36}\)\.$/)
  })

  it('stores an event unchanged by a plugin that throws, times out or moves it, and logs the error with its uuid', async () => {
    const fresh = await service.account()
    const taxonomy = await enable(fresh, TAXONOMY, 1)
    const failing = await enable(fresh, TEST_FAILURES, 2)
    const uuids = { throw: randomUUID(), slow: randomUUID(), team: randomUUID() }
    await capture(
      fresh,
      Object.entries(uuids).map(([mode, uuid]) => ({ event: `mode ${mode}`, uuid, distinct_id: 'f', properties: { $test_plugin: mode } })),
    )
    const events = await service.eventsOf(fresh, 3)
    for (const e of events) {
      expect(e.event).toMatch(/^mode(Throw|Slow|Team)$/)
      expect(e.properties.$plugins_succeeded).toEqual([`Taxonomy Plugin (${taxonomy})`])
      expect(e.properties.$plugins_failed).toEqual([`Test Failures (${failing})`])
      expect(e.properties).not.toHaveProperty('changed_before_throwing')
      expect(e.properties).not.toHaveProperty('slow_result')
    }
    const logs = await waitFor(
      async () => {
        const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/logs/?type_filter=ERROR&search=${uuids.throw}`)
        return body.results?.length >= 1 ? body : undefined
      },
      { what: 'the error log entry' },
    )
    expect(logs.results[0]).toMatchObject({ source: 'PLUGIN', type: 'ERROR' })
    expect(logs.results[0].message).toContain('Test plugin failed on purpose')
    const timedOut = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/logs/?search=${uuids.slow}`)
    expect(timedOut.body.results[0].message).toContain('over its budget of 250 ms')
    const moved = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/logs/?search=${uuids.team}`)
    expect(moved.body.results[0].message).toContain("cannot change the event's project")
  })

  it('drops what a plugin drops, counted by reason in /_metrics', async () => {
    const fresh = await service.account()
    await enable(fresh, TEST_FAILURES, 1)
    await capture(fresh, [
      { event: 'dropped', distinct_id: 'd', properties: { $test_plugin: 'drop' } },
      { event: 'kept', distinct_id: 'd' },
    ])
    await service.eventsOf(fresh, 1, '&event=kept')
    const dropped = await call(fresh, 'GET', `/api/projects/${fresh.projectId}/events/?event=dropped`)
    expect(dropped.body.results).toEqual([])
    const metrics = await (await fetch(`${service.baseUrl}/_metrics`)).text()
    expect(metrics).toMatch(/burrow_events_dropped_total\{reason="plugin:Test Failures"\} [1-9]/)
    expect(metrics).toMatch(/burrow_plugin_runs_total\{plugin="Test Failures",outcome="succeeded"\} [1-9]/)
  })

  it('keeps at most 20 log entries a minute of a plugin failing on every event, and rates its deliveries', async () => {
    const fresh = await service.account()
    const failing = await enable(fresh, TEST_FAILURES, 1)
    const fresh2 = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/`)
    expect(fresh2.body.delivery_rate_24h).toBe(1)
    await capture(
      fresh,
      Array.from({ length: 30 }, (_, i) => ({ event: 'fails', distinct_id: `r${i}`, properties: { $test_plugin: 'throw' } })),
    )
    await capture(
      fresh,
      Array.from({ length: 10 }, (_, i) => ({ event: 'passes', distinct_id: `r${i}` })),
    )
    await service.eventsOf(fresh, 40)
    const rate = await waitFor(
      async () => {
        const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/`)
        return body.delivery_rate_24h < 1 ? body.delivery_rate_24h : undefined
      },
      { what: 'the delivery rate to drop' },
    )
    expect(rate).toBeCloseTo(10 / 40, 5)
    const errors = await call(fresh, 'GET', `${configsPath(fresh)}${failing}/logs/?type_filter=ERROR`)
    expect(errors.body.count).toBe(20)
  })

  it("replays a dead letter through the project's plugins and queues it for its destinations, as if it were ingested now", async () => {
    const fresh = await service.account()
    await enable(fresh, PROPERTY_FILTER, 1, { properties: 'secret' })
    await enable(fresh, TAXONOMY, 2, { defaultNamingConvention: 'snake_case' })
    const hook = await call(fresh, 'POST', configsPath(fresh), {
      plugin: WEBHOOK,
      enabled: true,
      config: { url: 'https://hooks.example.com/in' },
    })
    expect(hook.status).toBe(201)
    await untilPluginsApply(fresh, (e) => e.event === 'marker_event')

    const uuid = randomUUID()
    const letter = deadLetter(
      { uuid, event: 'orderPlaced', distinctId: 'dl-plugins', teamId: fresh.projectId, ip: '' },
      JSON.stringify({ event: 'orderPlaced', distinct_id: 'dl-plugins', uuid, properties: { secret: 'card', kept: 1 } }),
      { location: 'ingestion:properties', reason: 'step_failed', error: 'Error: a bug since fixed' },
    )
    await deadLetterQueue.insertDeadLetters(service.app.deps.ch, [letter])
    const replay = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/admin/cli.ts', 'dlq', 'replay', '--project', String(fresh.projectId)],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: { ...process.env, ...clickHouseEnvFor(service.config.DATA_DIR), DATA_DIR: service.config.DATA_DIR },
      },
    )
    expect(replay.stdout).toContain('replayed 1 of 1 dead letters')

    const [stored] = await service.eventsOf(fresh, 1, `&event=order_placed`)
    expect(stored).toMatchObject({ id: uuid, event: 'order_placed', properties: { kept: 1 } })
    expect(stored!.properties.secret).toBeUndefined()
    const queued = await service.app.deps.sql<{ event_uuid: string }[]>`
      select event_uuid::text from plugin_webhook_outbox where plugin_config_id = ${hook.body.id as number}`
    expect(queued.map((r) => r.event_uuid)).toContain(uuid)
  })

  it('leaves the events of a project without plugins as they were sent', async () => {
    await capture(account, [{ event: 'plain', distinct_id: 'p', properties: { a: 1 } }])
    const [plain] = await service.eventsOf(account, 1, '&event=plain')
    expect(plain!.properties.a).toBe(1)
    expect(plain!.properties).not.toHaveProperty('$plugins_succeeded')
  })
})
