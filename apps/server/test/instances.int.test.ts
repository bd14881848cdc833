// Several stateless instances keep the guarantees of one: two ingestion instances and one API
// instance, each a process of its own with a DATA_DIR of its own, on one PostgreSQL, one Redis
// and one ClickHouse.
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, type ClickHouse } from '@burrow/clickhouse'
import { connectPostgres, type PostgresHandle } from '@burrow/postgres'
import {
  clickHouseDatabaseFor,
  clickHouseEnvFor,
  createTestAccount,
  databaseUrlForTests,
  startStandinProcess,
  waitFor,
  type StandinProcess,
  type TestAccount,
} from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOnePersonPerUser, identifyThroughBoth } from './identifiedAcrossInstances'
import { embeddedEnv, exitCode, startServiceProcess, type ServiceProcess } from './serviceProcess'

type Role = 'ingestion' | 'api'

interface Instance {
  name: string
  role: Role
  dataDir: string
  process: ServiceProcess
}

/** How long a change made through the API instance may take to reach both ingestion instances. */
const PROPAGATION_MS = 10_000
/** What storing an event adds to that, for a change seen in the events an instance stores. */
const STORING_MS = 5_000

const root = mkdtempSync(path.join(tmpdir(), 'burrow-instances-'))
/** One ClickHouse database for the three (in the suite's server mode, not one per DATA_DIR). */
const clickHouseDatabase = clickHouseDatabaseFor(root)

let ownStandin: StandinProcess | undefined
let pg: PostgresHandle | undefined
let ch: ClickHouse | undefined
let sharedEnv: NodeJS.ProcessEnv = {}
/** Every child process started, killed ones and restarts included: each is ended in afterAll. */
const started: ServiceProcess[] = []
const instances = new Map<string, Instance>()

const instance = (name: string) => instances.get(name)!
const ingestionUrls = () => [instance('ingestion-1').process.baseUrl, instance('ingestion-2').process.baseUrl]
const apiUrl = () => instance('api').process.baseUrl

/**
 * The pid a child that never became ready logged (every log line names it): startServiceProcess
 * gives up on it without ending it. Undefined when it exited by itself.
 */
function pidOfFailedStart(err: unknown): number | undefined {
  const message = err instanceof Error ? err.message : String(err)
  const pid = message.startsWith('service did not become ready') ? /"pid":(\d+)/.exec(message)?.[1] : undefined
  return pid ? Number(pid) : undefined
}

async function startInstance(name: string, role: Role): Promise<Instance> {
  const dataDir = path.join(root, name)
  mkdirSync(dataDir, { recursive: true })
  const env = embeddedEnv(dataDir, { ...sharedEnv, ROLE: role })
  let service: ServiceProcess
  try {
    service = await startServiceProcess(env)
  } catch (err) {
    const pid = pidOfFailedStart(err)
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone already.
      }
    }
    throw err
  }
  started.push(service)
  const entry = { name, role, dataDir, process: service }
  instances.set(name, entry)
  return entry
}

/** Ends a child: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
async function stopChild(child: ServiceProcess['child'], graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = exitCode(child)
  child.kill('SIGTERM')
  const late = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(late)
}

beforeAll(async () => {
  const databaseUrl = await databaseUrlForTests()
  if (!databaseUrl) throw new Error('instances share one PostgreSQL server: set DATABASE_URL (or make Docker reachable)')
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  // In the suite's server mode, its ClickHouse server; in embedded mode a stand-in of this file's
  // own, since an embedded engine belongs to one process and three must share this one.
  if (!process.env.CLICKHOUSE_URL) ownStandin = await startStandinProcess()
  const clickHouse = ownStandin ? { CLICKHOUSE_URL: ownStandin.url } : clickHouseEnvFor(root)
  sharedEnv = {
    ...clickHouse,
    CLICKHOUSE_DATABASE: clickHouseDatabase,
    // One server's tables: a stand-in serves no cluster.
    CLICKHOUSE_CLUSTER: '',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    // Small, frequent inserts, so that a kill finds some rows stored and some only in the spool.
    BATCH_MAX_AGE_MS: '20',
    BATCH_MAX_ROWS: '200',
    // As testConfig sets them: the test files share PostgreSQL and Redis and send from one address.
    COHORT_RECALCULATE_AFTER_S: String(10 * 365 * 24 * 3600),
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    API_RATE_LIMIT_PER_HOUR: '1000000',
    KEY_GUESS_SLOW_AFTER: '1000000',
    KEY_GUESS_REFUSE_AFTER: '1000000',
  }
  // Started together, as a deployment starts them: their migrations take turns by themselves.
  const starts = await Promise.allSettled([
    startInstance('ingestion-1', 'ingestion'),
    startInstance('ingestion-2', 'ingestion'),
    startInstance('api', 'api'),
  ])
  const failed = starts.find((s) => s.status === 'rejected')
  if (failed) throw failed.reason
  pg = await connectPostgres({ databaseUrl, dataDir: root, maxConnections: 4 })
  ch = await connectClickHouse({
    url: clickHouse.CLICKHOUSE_URL,
    database: clickHouseDatabase,
    dataDir: root,
    username: clickHouse.CLICKHOUSE_USER,
    password: clickHouse.CLICKHOUSE_PASSWORD,
  })
}, 180_000)

afterAll(async () => {
  await Promise.all(started.map((p) => stopChild(p.child)))
  await ch?.close()
  await pg?.close()
  await ownStandin?.stop()
  rmSync(root, { recursive: true, force: true })
}, 60_000)

const newAccount = () => createTestAccount(pg!.sql)

/** A private API call to the API instance with the account's personal API key. */
async function api(account: TestAccount, method: string, route: string, body?: unknown) {
  const res = await fetch(`${apiUrl()}${route}`, {
    method,
    headers: { authorization: `Bearer ${account.personalApiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined }
}

/** posthog-node's requests: JSON bodies with the project key, to /batch/ or /capture/. */
function send(base: string, route: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'posthog-node/5.0.0' },
    body: JSON.stringify(body),
  })
}

async function capture(base: string, account: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await send(base, '/batch/', { api_key: account.projectToken, batch })
  expect(res.status, `capture on ${base}`).toBe(200)
}

/** Rows per uuid as stored (every copy counted, no FINAL): an event stored twice shows as 2. */
async function copiesPerUuid(teamId: number): Promise<Map<string, number>> {
  const result = await ch!.reader.query({
    query: 'SELECT toString(uuid) AS uuid, count() AS copies FROM events WHERE team_id = {team:Int64} GROUP BY uuid',
    query_params: { team: teamId },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ uuid: string; copies: string }>()
  return new Map(rows.map((r) => [r.uuid, Number(r.copies)]))
}

/** The project's stored events of this name, as the API instance lists them. */
async function listedEvents(account: TestAccount, event: string): Promise<Array<Record<string, any>>> {
  const { status, body } = await api(
    account,
    'GET',
    `/api/projects/${account.projectId}/events/?limit=1000&event=${encodeURIComponent(event)}`,
  )
  expect(status).toBe(200)
  return body!.results as Array<Record<string, any>>
}

/** Waits until `check` holds on both ingestion instances; how long it took. */
async function onBothIngestionInstances(what: string, check: (base: string) => Promise<boolean>, timeoutMs = PROPAGATION_MS) {
  const since = performance.now()
  await waitFor(async () => (await Promise.all(ingestionUrls().map(check))).every(Boolean) || undefined, {
    what: `${what} on both ingestion instances`,
    timeoutMs,
    intervalMs: 100,
  })
  return performance.now() - since
}

/**
 * Waits until an event captured by each ingestion instance after the change is stored as
 * `applied` says: markers go to both instances on every round, and the change has reached an
 * instance once one of its markers is stored so. Each instance stores what it captured.
 */
async function untilEachInstanceStores(
  account: TestAccount,
  name: string,
  marker: Record<string, unknown>,
  applied: (e: Record<string, any>) => boolean,
) {
  const sentBy = new Map<string, string>()
  const since = performance.now()
  await waitFor(
    async () => {
      await Promise.all(
        ingestionUrls().map(async (base, i) => {
          const uuid = randomUUID()
          sentBy.set(uuid, `ingestion-${i + 1}`)
          await capture(base, account, [{ event: name, distinct_id: `marker-${i}`, uuid, properties: marker }])
        }),
      )
      await new Promise((resolve) => setTimeout(resolve, 200))
      const seen = new Set((await listedEvents(account, name)).filter(applied).map((e) => sentBy.get(e.id as string)))
      return (seen.has('ingestion-1') && seen.has('ingestion-2')) || undefined
    },
    {
      what: `events stored with the change from both ingestion instances (${name})`,
      timeoutMs: PROPAGATION_MS + STORING_MS,
      intervalMs: 100,
    },
  )
  return performance.now() - since
}

/**
 * Load from four senders alternating between the ingestion instances, /batch/ and /capture/;
 * ingestion-1 killed with SIGKILL in the middle of it and restarted on its DATA_DIR while the
 * load goes on. Every acknowledged event is stored once; one sent and not acknowledged at most once.
 */
async function loadKillAndRestart(account: TestAccount): Promise<void> {
  const acknowledged = new Set<string>()
  const sent = new Set<string>()
  let ackedByRestarted = 0
  let restarted = false
  let done = false
  let failures = 0

  const sender = async (k: number) => {
    for (let round = 0; !done; round++) {
      const target = (k + round) % 2 === 0 ? 'ingestion-1' : 'ingestion-2'
      const base = instance(target).process.baseUrl
      const byRestarted = restarted && target === 'ingestion-1'
      // Three batches of 20, then a single event, as a server library sends them.
      const single = round % 4 === 3
      const events = Array.from({ length: single ? 1 : 20 }, (_, i) => ({
        event: single ? 'load single' : 'load batch',
        distinct_id: `sender-${k}-${i % 5}`,
        uuid: randomUUID(),
        properties: { sender: k, round },
      }))
      for (const e of events) sent.add(e.uuid)
      try {
        const res = single
          ? await send(base, '/capture/', { api_key: account.projectToken, ...events[0] })
          : await send(base, '/batch/', { api_key: account.projectToken, batch: events })
        await res.arrayBuffer()
        if (res.status === 200) {
          for (const e of events) acknowledged.add(e.uuid)
          if (byRestarted) ackedByRestarted += events.length
        } else failures++
      } catch {
        // The connection died with the process, or nothing listens yet: never acknowledged.
        failures++
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
  const senders = Array.from({ length: 4 }, (_, k) => sender(k))
  try {
    // In the middle of the load: several insert cycles of both instances in, requests in flight.
    await waitFor(() => acknowledged.size >= 1_500, { what: '1,500 acknowledged events', timeoutMs: 60_000 })
    const killed = instance('ingestion-1').process.child
    const exited = exitCode(killed)
    killed.kill('SIGKILL')
    await exited
    const atKill = acknowledged.size
    // The same DATA_DIR (its spool holds what was acknowledged and not stored yet), a new port.
    await startInstance('ingestion-1', 'ingestion')
    restarted = true
    await waitFor(() => ackedByRestarted >= 300 && acknowledged.size >= atKill + 1_000, {
      what: 'load acknowledged by both instances after the restart',
      timeoutMs: 60_000,
    })
  } finally {
    done = true
    await Promise.all(senders)
  }
  expect(failures, 'requests refused or cut while ingestion-1 was down').toBeGreaterThan(0)
  expect(acknowledged.size).toBeGreaterThan(2_500)

  // Every acknowledged event stored, and nothing more coming (the restart has stored what its
  // spool held, acknowledged or not): two counts a second apart agree.
  let previous = -1
  const copies = await waitFor(
    async () => {
      const stored = await copiesPerUuid(account.projectId)
      const rows = [...stored.values()].reduce((sum, n) => sum + n, 0)
      const settled = rows === previous && [...acknowledged].every((uuid) => stored.has(uuid))
      previous = rows
      return settled ? stored : undefined
    },
    { what: `all ${acknowledged.size} acknowledged events stored`, timeoutMs: 60_000, intervalMs: 1_000 },
  )
  const unacknowledgedStored = [...copies.keys()].filter((uuid) => !acknowledged.has(uuid)).length
  console.info(
    `load: ${sent.size} events sent, ${acknowledged.size} acknowledged (${ackedByRestarted} by the restarted instance), ` +
      `${failures} requests failed, ${copies.size} stored (${unacknowledgedStored} of them not acknowledged)`,
  )
  const twice = [...copies].filter(([, n]) => n !== 1)
  expect(twice, 'events stored more than once').toEqual([])
  expect(
    [...copies.keys()].filter((uuid) => !sent.has(uuid)),
    'stored events nobody sent',
  ).toEqual([])
  expect([...acknowledged].filter((uuid) => copies.get(uuid) !== 1)).toEqual([])

  // The API instance reads the same ClickHouse: it lists each stored event once.
  const listed: string[] = []
  for (let offset = 0; ; offset += 1000) {
    const { status, body } = await api(account, 'GET', `/api/projects/${account.projectId}/events/?limit=1000&offset=${offset}`)
    expect(status).toBe(200)
    listed.push(...(body!.results as Array<{ id: string }>).map((e) => e.id))
    if (!body!.next) break
  }
  expect(listed).toHaveLength(copies.size)
  expect(new Set(listed)).toEqual(new Set(copies.keys()))
}

describe('two ingestion instances and an API instance on one PostgreSQL, Redis and ClickHouse', () => {
  it('stores every acknowledged event once when one ingestion instance is killed with SIGKILL under load and restarted', async () => {
    const account = await newAccount()
    // The events table replaces rows of one uuid as it merges its parts: merges wait until the
    // copies are counted, so that an event stored twice cannot be merged away before then.
    await ch!.writer.command({ query: 'SYSTEM STOP MERGES events' })
    try {
      await loadKillAndRestart(account)
    } finally {
      await ch!.writer.command({ query: 'SYSTEM START MERGES events' })
    }
  }, 240_000)

  it('serves each role its own routes, and a flag, cohort, plugin or project change made through the API instance reaches both ingestion instances within seconds', async () => {
    const account = await newAccount()
    const token = account.projectToken
    // Which routes each role serves: flags and capture on ingestion, the private API on api.
    expect((await send(apiUrl(), '/batch/', { api_key: token, batch: [{ event: 'x', distinct_id: 'x' }] })).status).toBe(404)
    expect((await send(apiUrl(), '/decide/', { api_key: token, distinct_id: 'x' })).status).toBe(404)
    for (const base of ingestionUrls()) {
      const res = await fetch(`${base}/api/projects/${account.projectId}/`, {
        headers: { authorization: `Bearer ${account.personalApiKey}` },
      })
      expect(res.status).toBe(404)
    }

    const flagsOn = async (base: string, distinctId: string, personProperties: Record<string, unknown> = {}) => {
      const res = await fetch(`${base}/decide/?v=3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, distinct_id: distinctId, person_properties: personProperties }),
      })
      expect(res.status).toBe(200)
      return ((await res.json()) as { featureFlags: Record<string, unknown> }).featureFlags
    }
    const flagsPath = `/api/projects/${account.projectId}/feature_flags/`
    const timings: Record<string, number> = {}

    // A flag: both instances have the project's (empty) flags in memory before it is created.
    for (const base of ingestionUrls()) expect(await flagsOn(base, 'ada')).toEqual({})
    const created = await api(account, 'POST', flagsPath, {
      key: 'shared-flag',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    })
    expect(created.status).toBe(201)
    timings.flagCreated = await onBothIngestionInstances(
      'the new flag',
      async (base) => (await flagsOn(base, 'ada'))['shared-flag'] === true,
    )
    const switchedOff = await api(account, 'PATCH', `${flagsPath}${created.body!.id}/`, { active: false })
    expect(switchedOff.status).toBe(200)
    timings.flagSwitchedOff = await onBothIngestionInstances(
      'the flag switched off',
      async (base) => !('shared-flag' in (await flagsOn(base, 'ada'))),
    )

    // A cohort used by a flag: redefined, the flag matches other people.
    const cohortsPath = `/api/projects/${account.projectId}/cohorts/`
    const byEmail = (domain: string) => ({
      properties: { type: 'AND', values: [{ key: 'email', value: domain, operator: 'icontains', type: 'person' }] },
    })
    const cohort = await api(account, 'POST', cohortsPath, { name: 'Customers', filters: byEmail('@acme.com') })
    expect(cohort.status).toBe(201)
    const cohortFlag = await api(account, 'POST', flagsPath, {
      key: 'customers-beta',
      filters: { groups: [{ properties: [{ key: 'id', value: cohort.body!.id, type: 'cohort' }], rollout_percentage: 100 }] },
    })
    expect(cohortFlag.status).toBe(201)
    const matches = async (base: string) => {
      const [ada, bea] = await Promise.all([
        flagsOn(base, 'ada', { email: 'ada@acme.com' }),
        flagsOn(base, 'bea', { email: 'bea@other.org' }),
      ])
      return { ada: ada['customers-beta'], bea: bea['customers-beta'] }
    }
    await onBothIngestionInstances('the cohort flag', async (base) => {
      const m = await matches(base)
      return m.ada === true && m.bea === false
    })
    const redefined = await api(account, 'PATCH', `${cohortsPath}${cohort.body!.id}/`, { filters: byEmail('@other.org') })
    expect(redefined.status).toBe(200)
    timings.cohortRedefined = await onBothIngestionInstances('the redefined cohort', async (base) => {
      const m = await matches(base)
      return m.ada === false && m.bea === true
    })

    // A plugin: before it, both instances store the property (and hold the plugin configs in memory).
    const secretOf = (e: Record<string, any>) => e.properties.secret
    for (const [i, base] of ingestionUrls().entries()) {
      await capture(base, account, [{ event: 'before plugin', distinct_id: `before-${i}`, properties: { secret: 's', kept: 1 } }])
    }
    await waitFor(
      async () => {
        const stored = await listedEvents(account, 'before plugin')
        return stored.length === 2 && stored.every((e) => secretOf(e) === 's') ? true : undefined
      },
      { what: 'the events before the plugin stored with their property', timeoutMs: 15_000, intervalMs: 200 },
    )
    const filter = await api(account, 'POST', `/api/projects/${account.projectId}/plugin_configs/`, {
      plugin: 2, // Property Filter
      enabled: true,
      order: 1,
      config: { properties: 'secret' },
    })
    expect(filter.status).toBe(201)
    timings.pluginEnabled = await untilEachInstanceStores(
      account,
      'plugin marker',
      { secret: 's', kept: 1 },
      (e) => e.properties.kept === 1 && !('secret' in e.properties),
    )
    // From then on, every event of both instances is stored without it.
    for (const [i, base] of ingestionUrls().entries()) {
      await capture(
        base,
        account,
        Array.from({ length: 10 }, (_, j) => ({
          event: 'after plugin',
          distinct_id: `after-${i}-${j}`,
          properties: { secret: 's', kept: 1 },
        })),
      )
    }
    const afterPlugin = await waitFor(
      async () => {
        const stored = await listedEvents(account, 'after plugin')
        return stored.length >= 20 ? stored : undefined
      },
      { what: '20 events after the plugin', timeoutMs: 15_000, intervalMs: 200 },
    )
    expect(afterPlugin).toHaveLength(20)
    for (const e of afterPlugin) expect(e.properties).not.toHaveProperty('secret')

    // A project setting capture honours: both instances recorded $ip, and stop once IPs are anonymised.
    expect((await listedEvents(account, 'before plugin')).map((e) => e.properties.$ip)).toEqual(['127.0.0.1', '127.0.0.1'])
    const anonymised = await api(account, 'PATCH', `/api/projects/${account.projectId}/`, { anonymize_ips: true })
    expect(anonymised.status).toBe(200)
    expect(anonymised.body!.anonymize_ips).toBe(true)
    timings.projectChanged = await untilEachInstanceStores(
      account,
      'project marker',
      { kept: 1 },
      (e) => e.properties.kept === 1 && !('$ip' in e.properties),
    )
    for (const [i, base] of ingestionUrls().entries()) {
      await capture(
        base,
        account,
        Array.from({ length: 10 }, (_, j) => ({ event: 'anonymised', distinct_id: `anon-ip-${i}-${j}` })),
      )
    }
    const afterProject = await waitFor(
      async () => {
        const stored = await listedEvents(account, 'anonymised')
        return stored.length >= 20 ? stored : undefined
      },
      { what: '20 events after the project change', timeoutMs: 15_000, intervalMs: 200 },
    )
    for (const e of afterProject) expect(e.properties).not.toHaveProperty('$ip')
    console.info(
      'change seen by both ingestion instances after (ms):',
      JSON.stringify(timings, (_, v: unknown) => (typeof v === 'number' ? Math.round(v) : v)),
    )
  }, 180_000)

  it('keeps one person per user when the same users are identified through both ingestion instances at once', async () => {
    const account = await newAccount()
    const USERS = 30
    const users = Array.from({ length: USERS }, (_, k) => k)
    await identifyThroughBoth((base, batch) => capture(base, account, batch), ingestionUrls() as [string, string], users)
    // PostgreSQL, which both instances write.
    await expectOnePersonPerUser(pg!.sql, account.projectId, users)

    // The API instance lists the same: its persons come from ClickHouse, which both instances fed.
    const listed = await waitFor(
      async () => {
        const { status, body } = await api(account, 'GET', `/api/projects/${account.projectId}/persons/?limit=100`)
        expect(status).toBe(200)
        const results = body!.results as Array<{ distinct_ids: string[] }>
        return body!.count === USERS && results.length === USERS && results.every((p) => p.distinct_ids.length === 2) ? results : undefined
      },
      { what: `${USERS} persons listed by the API instance`, timeoutMs: 30_000, intervalMs: 250 },
    )
    expect(listed.map((p) => [...p.distinct_ids].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!))).toEqual(
      users.map((k) => [`anon-${k}`, `user-${k}`]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
    )
    for (const k of users) {
      const { body } = await api(account, 'GET', `/api/projects/${account.projectId}/persons/?distinct_id=user-${k}`)
      expect(body!.count, `persons of user-${k}`).toBe(1)
    }
  }, 120_000)
})
