import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { beforeAll } from 'vitest'
import { useTestService, type TestService } from './service'

/**
 * A project's worth of events for the query oracle tests, made from a fixed seed: users in a
 * zone with a DST change (America/New_York, 2 November 2025), events sent shuffled and in
 * batches (the later ones older: late and out of order), and anonymous ids merged into their
 * users by `$identify` in the middle of the range, so that a merged person must count once.
 */
export const TZ = 'America/New_York'
export const USERS = 30
export const MERGED = 3

export interface SentEvent {
  event: string
  distinct_id: string
  timestamp: string
  properties: Record<string, unknown>
}

/** mulberry32: a small seeded generator, so that a failure can be replayed. */
function generator(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TIERS = ['gold', 'silver', 'bronze']
const PLANS: Array<string | undefined> = ['pro', 'free', 'team', 'enterprise', undefined, '']

/**
 * Values of `$browser`, a property with a column of its own by default: reads of that column must
 * answer as reads of the JSON do (no value, '' and null alike; a number as its JSON).
 */
export const BROWSERS: unknown[] = ['Chrome', 'Firefox', 'Safari', 'Chrome', '', null, 42, undefined, 'Mobile "Safari"']

export const tierOf = (userIndex: number) => TIERS[userIndex % TIERS.length]!

/** The person a distinct id belongs to once the merges are done: anon-k is user uk. */
export const personOf = (distinctId: string) => (distinctId.startsWith('anon-') ? `u${distinctId.slice(5)}` : distinctId)

/** Events between `start` and `end` (ms), deterministic for the seed. */
export function makeEvents(seed: number, count: number, start: number, end: number): SentEvent[] {
  const random = generator(seed)
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!
  const ids = [...Array.from({ length: USERS }, (_, i) => `u${i}`), ...Array.from({ length: MERGED }, (_, i) => `anon-${i}`)]
  const events: SentEvent[] = []
  for (let i = 0; i < count; i++) {
    const distinctId = pick(ids)
    const user = Number(personOf(distinctId).slice(1))
    const r = random()
    const event = r < 0.6 ? 'pageview' : r < 0.8 ? 'signup' : 'purchase'
    const at = start + Math.floor(random() * (end - start))
    const properties: Record<string, unknown> = {
      $set: { tier: tierOf(user) },
      $session_id: `${distinctId}-${Math.floor(at / 3_600_000 / 6)}`,
    }
    const plan = pick(PLANS)
    if (plan !== undefined) properties.plan = plan
    const browser = BROWSERS[i % BROWSERS.length]
    if (browser !== undefined) properties.$browser = browser
    if (event === 'purchase') properties.amount = 1 + Math.floor(random() * 100)
    events.push({ event, distinct_id: distinctId, timestamp: new Date(at).toISOString(), properties })
  }
  // Sent shuffled, so that storage order says nothing of time.
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[events[i], events[j]] = [events[j]!, events[i]!]
  }
  return events
}

/** The merges: each anon-k identified as uk at `at`. */
export function identifies(at: number): SentEvent[] {
  return Array.from({ length: MERGED }, (_, k) => ({
    event: '$identify',
    distinct_id: `u${k}`,
    timestamp: new Date(at).toISOString(),
    properties: { $anon_distinct_id: `anon-${k}`, $set: { tier: tierOf(k) } },
  }))
}

/** Sends the events in batches and waits until all are stored and the first `merged` merges (identifies) are done. */
export async function sendAll(
  service: TestService,
  account: TestAccount,
  events: SentEvent[],
  storedBefore = 0,
  merged = MERGED,
): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const res = await service.post('/batch/', { api_key: account.projectToken, batch: events.slice(i, i + 500) })
    if (res.status !== 200) throw new Error(`batch answered ${res.status}`)
  }
  await waitFor(
    async () => {
      // The list's count stops 1,000 past the page: the last event's place tells whether all are stored.
      const res = await service.api(
        account,
        `/api/projects/${account.projectId}/events/?limit=1&offset=${storedBefore + events.length - 1}`,
      )
      return ((await res.json()) as { results: unknown[] }).results.length === 1
    },
    { what: `${storedBefore + events.length} stored events`, timeoutMs: 60_000 },
  )
  for (let k = 0; k < merged; k++) {
    await service.personOf(account, `anon-${k}`, (p) => (p.distinct_ids as string[]).includes(`u${k}`))
  }
}

export async function setTimezone(service: TestService, account: TestAccount, timezone: string): Promise<void> {
  const res = await service.api(account, `/api/projects/${account.projectId}/`, { method: 'PATCH', body: JSON.stringify({ timezone }) })
  if (res.status !== 200) throw new Error(`setting the timezone answered ${res.status}`)
}

const formatters = new Map<string, Intl.DateTimeFormat>()
/** One formatter per zone and shape: making one takes longer than formatting thousands of dates. */
function formatter(zone: string, hour: boolean): Intl.DateTimeFormat {
  const key = `${zone}|${hour}`
  let f = formatters.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      ...(hour ? { hour: '2-digit', hourCycle: 'h23' as const } : {}),
    })
    formatters.set(key, f)
  }
  return f
}

/** The local calendar date (YYYY-MM-DD) of an instant in a zone, by the platform's Intl. */
export function localDay(iso: string, zone: string): string {
  return formatter(zone, false).format(new Date(iso))
}

/** The local hour (YYYY-MM-DD HH:00:00) of an instant in a zone. */
export function localHour(iso: string, zone: string): string {
  const parts = formatter(zone, true).formatToParts(new Date(iso))
  const part = (type: string) => parts.find((p) => p.type === type)!.value
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:00:00`
}

/** Calendar days from `from` to `to` (YYYY-MM-DD, inclusive). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = []
  for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1)) {
    days.push(d.toISOString().slice(0, 10))
  }
  return days
}

/** `day` moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}

/** POST .../query/ as a client does. */
export async function postQuery(service: TestService, account: TestAccount, body: unknown): Promise<{ status: number; body: any }> {
  const res = await service.api(account, `/api/projects/${account.projectId}/query/`, { method: 'POST', body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

/** A project of the test service in TZ, holding the events its file's seeding sent. */
export interface QueryProject {
  readonly service: TestService
  readonly account: TestAccount
  /** Every event the seeding sent, once the file's tests run. */
  readonly sent: SentEvent[]
  /** POST .../query/ for this project. */
  query(body: unknown): Promise<{ status: number; body: any }>
}

/**
 * The test service and a project in TZ for a file of query tests: `seed` sends the file's events
 * (through sendAll) before its tests run and answers them, for the tests' oracles.
 */
export function useQueryProject(seed: (service: TestService, account: TestAccount) => Promise<SentEvent[]>): QueryProject {
  let service: TestService | undefined
  let account: TestAccount | undefined
  let sent: SentEvent[] = []
  useTestService((s, a) => {
    service = s
    account = a
  })
  beforeAll(async () => {
    await setTimezone(service!, account!, TZ)
    sent = await seed(service!, account!)
  }, 180_000)
  return {
    get service() {
      return service!
    },
    get account() {
      return account!
    },
    get sent() {
      return sent
    },
    query: (body) => postQuery(service!, account!, body),
  }
}

/** Files of many query cases ask far more queries a minute than PostHog lets a client: its query throttle is lifted. */
export const QUERY_LIMITS = { QUERY_RATE_LIMIT_PER_MINUTE: 1_000_000, QUERY_RATE_LIMIT_PER_HOUR: 1_000_000 }

/** A project of one case, as each PostHog test has a team of its own. */
export interface CaseProject {
  account: TestAccount
  query(query: Record<string, unknown>): Promise<{ status: number; body: any }>
}

/**
 * The test service (query throttle lifted) for a file of cases from PostHog's own tests, and
 * `projectWith`: a new project holding `events`, with `settings` (timezone, test account filters
 * …) set first. `service` is read inside tests, once the service is up.
 */
export function useCaseProjects(): {
  readonly service: TestService
  projectWith: (events: SentEvent[], settings?: Record<string, unknown>) => Promise<CaseProject>
} {
  let service: TestService | undefined
  useTestService((s) => {
    service = s
  }, QUERY_LIMITS)
  return {
    get service() {
      return service!
    },
    projectWith: async (events, settings = {}) => {
      const account = await service!.account()
      if (Object.keys(settings).length > 0) {
        const res = await service!.api(account, `/api/projects/${account.projectId}/`, { method: 'PATCH', body: JSON.stringify(settings) })
        if (res.status !== 200) throw new Error(`setting ${Object.keys(settings).join(', ')} answered ${res.status}`)
      }
      if (events.length > 0) await sendAll(service!, account, events, 0, 0)
      return { account, query: (query) => postQuery(service!, account, { query, refresh: 'force_blocking' }) }
    },
  }
}

/** What /query/ answers for `query`, computed afresh (the numbers a page must show); fails unless it answers 200. */
export async function freshAnswerOf(service: TestService, account: TestAccount, query: unknown): Promise<{ results: any }> {
  const { status, body } = await postQuery(service, account, { query, refresh: 'force_blocking' })
  if (status !== 200) throw new Error(`/query/ answered ${status}: ${JSON.stringify(body)}`)
  return body as { results: any }
}

/** A cohort created through the API, once its first calculation has finished: its id and member count. */
export async function calculatedCohort(
  service: TestService,
  account: TestAccount,
  body: Record<string, unknown>,
): Promise<{ id: number; count: number }> {
  const path = `/api/projects/${account.projectId}/cohorts/`
  const created = await service.api(account, path, { method: 'POST', body: JSON.stringify(body) })
  if (created.status !== 201) throw new Error(`creating a cohort answered ${created.status}: ${await created.text()}`)
  const { id } = (await created.json()) as { id: number }
  return waitFor(
    async () => {
      const cohort = (await (await service.api(account, `${path}${id}/`)).json()) as Record<string, any>
      return !cohort.is_calculating && cohort.last_calculation ? { id, count: Number(cohort.count) } : undefined
    },
    { what: `a calculation of cohort ${id}`, timeoutMs: 30_000, intervalMs: 100 },
  )
}

/** Events one after the other, a minute apart from `start`, in the order given. */
export function inOrder(
  start: string,
  events: Array<[name: string, distinctId: string, properties?: Record<string, unknown>]>,
): SentEvent[] {
  return events.map(([event, distinct_id, properties = {}], i) => ({
    event,
    distinct_id,
    timestamp: new Date(Date.parse(start) + i * 60_000).toISOString(),
    properties,
  }))
}

/** Only the named fields of each row. */
export const pick = (rows: any[], fields: string[]) => rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])))

/**
 * test_trends_query_runner.py's `_create_test_events`: four persons' pageviews and pageleaves, none
 * with a session, each person named after their distinct id (and p1 of the organisation's domain).
 */
export function trendsTestEvents(): SentEvent[] {
  const persons: Array<[string, Record<string, unknown>, string[], string[]]> = [
    [
      'p1',
      { $browser: 'Chrome', prop: 10, bool_field: true },
      ['2020-01-11', '2020-01-12', '2020-01-13', '2020-01-15', '2020-01-17', '2020-01-19'],
      ['2020-01-11', '2020-01-12', '2020-01-13'],
    ],
    ['p2', { $browser: 'Firefox', prop: 20, bool_field: false }, ['2020-01-09', '2020-01-12'], ['2020-01-13']],
    ['p3', { $browser: 'Edge', prop: 30, bool_field: true }, ['2020-01-12'], ['2020-01-13']],
    ['p4', { $browser: 'Safari', prop: 40, bool_field: false }, ['2020-01-15'], ['2020-01-16']],
  ]
  return persons.flatMap(([distinct_id, own, views, leaves]) => {
    const properties = { ...own, $set: { name: distinct_id, ...(distinct_id === 'p1' ? { email: 'test@posthog.com' } : {}) } }
    return [
      ...views.map((day) => ({ event: '$pageview', distinct_id, timestamp: `${day}T12:00:00Z`, properties })),
      ...leaves.map((day) => ({ event: '$pageleave', distinct_id, timestamp: `${day}T12:00:00Z`, properties })),
    ]
  })
}
