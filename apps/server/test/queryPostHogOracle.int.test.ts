import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { postQuery, sendAll, type SentEvent } from './queryFixture'
import { useTestService, type TestService } from './service'

/**
 * Cases from PostHog's own insight tests (posthog/hogql_queries/insights/**\/test/*.py), each named
 * after the test it comes from: the test's events, sent through /batch/ as a client sends them,
 * and the numbers it asserts. Each case has a project of its own, as each PostHog test has a team.
 */

let service: TestService
/** These files ask far more queries a minute than PostHog lets a client: its query throttle is lifted here. */
const QUERY_LIMITS = { QUERY_RATE_LIMIT_PER_MINUTE: 1_000_000, QUERY_RATE_LIMIT_PER_HOUR: 1_000_000 }
useTestService((s) => {
  service = s
}, QUERY_LIMITS)

/** Events one after the other, a minute apart from `start`, in the order given. */
function inOrder(start: string, events: Array<[name: string, distinctId: string, properties?: Record<string, unknown>]>): SentEvent[] {
  return events.map(([event, distinct_id, properties = {}], i) => ({
    event,
    distinct_id,
    timestamp: new Date(Date.parse(start) + i * 60_000).toISOString(),
    properties,
  }))
}

interface OracleProject {
  account: TestAccount
  query(query: Record<string, unknown>): Promise<{ status: number; body: any }>
}

/** A new project holding `events`, with `settings` (timezone, test account filters …) set first. */
async function projectWith(events: SentEvent[], settings: Record<string, unknown> = {}): Promise<OracleProject> {
  const account = await service.account()
  if (Object.keys(settings).length > 0) {
    const res = await service.api(account, `/api/projects/${account.projectId}/`, { method: 'PATCH', body: JSON.stringify(settings) })
    if (res.status !== 200) throw new Error(`setting ${Object.keys(settings).join(', ')} answered ${res.status}`)
  }
  await sendAll(service, account, events, 0, 0)
  return { account, query: (query) => postQuery(service, account, { query, refresh: 'force_blocking' }) }
}

const anyEvent = { kind: 'EventsNode', event: null }

describe('funnels/test/test_funnel.py', () => {
  // PostHog's _movie_event is an $autocapture; which event it is does not matter to a step of every event.
  it('test_funnel_with_any_event: one event fills one step of every event, and such a step is named null', async () => {
    const project = await projectWith(
      inOrder('2024-03-01T10:00:00Z', [
        ['user signed up', 'stopped_after_signup'],
        ['user signed up', 'stopped_after_pay'],
        ['$autocapture', 'stopped_after_pay'],
        ['user signed up', 'completed_movie'],
        ['$autocapture', 'completed_movie'],
        ['$autocapture', 'just_did_movie'],
        ['$autocapture', 'wrong_order'],
        ['user signed up', 'wrong_order'],
        ['$autocapture', 'wrong_order'],
      ]),
    )
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: [anyEvent, anyEvent, anyEvent],
      dateRange: { date_from: '2024-02-25', date_to: '2024-03-05' },
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((s: any) => s.count)).toEqual([5, 3, 1])
    expect(res.body.results.map((s: any) => s.name)).toEqual([null, null, null])
  })

  it('one event does not fill two steps of every event', async () => {
    const project = await projectWith(inOrder('2024-03-01T10:00:00Z', [['a', 'p1']]))
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: [anyEvent, anyEvent],
      dateRange: { date_from: '2024-02-25', date_to: '2024-03-05' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((s: any) => s.count)).toEqual([1, 0])
  })
})

/** PostHog's retention tests' `_date(day, hour)`: 10 June 2020 plus `day` days, at `hour` (UTC). */
const retentionDate = (day: number, hour = 5) => new Date(Date.UTC(2020, 5, 10 + day, hour)).toISOString()

/** Their `_create_events`: one event each, `$pageview` unless named. */
const retentionEvents = (rows: Array<[distinctId: string, at: string]>, event = '$pageview'): SentEvent[] =>
  rows.map(([distinct_id, timestamp]) => ({ event, distinct_id, timestamp, properties: {} }))

/** PostHog's `pad`: every row as long as the first, zeros past its end. */
const pad = (rows: number[][]) => rows.map((row) => [...row, ...new Array<number>(rows[0]!.length - row.length).fill(0)])

/**
 * Persons with two distinct ids, as PostHog's tests create them: an $identify long before the
 * range (so that it counts in no period), then each merge waited for.
 */
async function mergedPersons(project: OracleProject, merges: Array<[into: string, from: string]>): Promise<void> {
  for (const [into, from] of merges) {
    await service.personOf(project.account, from, (p) => (p.distinct_ids as string[]).includes(into))
  }
}
const identifyLongBefore = (into: string, from: string): SentEvent => ({
  event: '$identify',
  distinct_id: into,
  timestamp: '2019-01-01T00:00:00Z',
  properties: { $anon_distinct_id: from },
})

const counts = (res: { body: any }) => res.body.results.map((r: any) => r.values.map((v: any) => v.count))

describe('retention/test/test_retention_query_runner.py', () => {
  const dayIntervalEvents: Array<[string, string]> = [
    ['person1', retentionDate(0)],
    ['person1', retentionDate(1)],
    ['person1', retentionDate(2)],
    ['person1', retentionDate(5)],
    ['alias1', retentionDate(5, 9)],
    ['person1', retentionDate(6)],
    ['person2', retentionDate(1)],
    ['person2', retentionDate(2)],
    ['person2', retentionDate(3)],
    ['person2', retentionDate(6)],
  ]

  it('test_day_interval: every row has totalIntervals values (PostHog’s matrix)', async () => {
    const project = await projectWith([identifyLongBefore('person1', 'alias1'), ...retentionEvents(dayIntervalEvents)])
    await mergedPersons(project, [['person1', 'alias1']])
    const res = await project.query({
      kind: 'RetentionQuery',
      dateRange: { date_to: retentionDate(10, 6) },
      retentionFilter: { totalIntervals: 11 },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any) => r.label)).toEqual(Array.from({ length: 11 }, (_, i) => `Day ${i}`))
    expect(res.body.results[0].date).toBe('2020-06-10T00:00:00.000Z')
    expect(counts(res)).toEqual(
      pad([
        [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
        [2, 2, 1, 0, 1, 2, 0, 0, 0, 0],
        [2, 1, 0, 1, 2, 0, 0, 0, 0],
        [1, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0],
        [0, 0],
        [0],
      ]),
    )
  })

  it('test_all_events_with_minimum_occurrences: a period counts with two returning events in it', async () => {
    const project = await projectWith([identifyLongBefore('person1', 'alias1'), ...retentionEvents(dayIntervalEvents)])
    await mergedPersons(project, [['person1', 'alias1']])
    const res = await project.query({
      kind: 'RetentionQuery',
      dateRange: { date_to: retentionDate(10, 6) },
      retentionFilter: {
        totalIntervals: 11,
        targetEntity: { id: null, name: 'All events' },
        returningEntity: { id: '$pageview', type: 'events' },
        minimumOccurrences: 2,
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(counts(res)).toEqual(
      pad([
        [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        [2, 0, 0, 1, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0],
        [0, 0],
        [0],
      ]),
    )
  })

  const rolling = (extra: Record<string, unknown> = {}, totalIntervals = 5) => ({
    kind: 'RetentionQuery',
    // _date(0) is before the first period: day 0 is _date(1).
    dateRange: { date_to: retentionDate(5, 6) },
    retentionFilter: {
      cumulative: true,
      totalIntervals,
      targetEntity: { id: null, name: 'All events' },
      returningEntity: { id: null, name: 'All events' },
      ...extra,
    },
  })
  const rollingEvents = (repeat: (row: [string, string]) => number): SentEvent[] =>
    retentionEvents(
      (
        [
          ['person1', retentionDate(0)],
          ['person1', retentionDate(3)],
          ['person1', retentionDate(4)],
          ['person2', retentionDate(0)],
          ['person2', retentionDate(1)],
          ['person3', retentionDate(1)],
          ['person3', retentionDate(2)],
          ['person3', retentionDate(3)],
          ['person4', retentionDate(3)],
          ['person4', retentionDate(4)],
          ['person5', retentionDate(4)],
        ] as Array<[string, string]>
      ).flatMap((row) => new Array<[string, string]>(repeat(row)).fill(row)),
    )

  it('test_rolling_retention: with cumulative, a person counts in every period up to its last return', async () => {
    const project = await projectWith(rollingEvents(() => 1))
    const res = await project.query(rolling())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(counts(res)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]))
  })

  it('test_rolling_retention_with_minimum_occurrences', async () => {
    // person1 on day 4 and person3 on day 3 come back three times.
    const project = await projectWith(
      rollingEvents(([id, at]) => ((id === 'person1' && at === retentionDate(4)) || (id === 'person3' && at === retentionDate(3)) ? 3 : 1)),
    )
    const res = await project.query(rolling({ minimumOccurrences: 3 }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(counts(res)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 1, 0], [3, 0], [0]]))
  })

  it('test_rolling_retention_doesnt_double_count_same_user', async () => {
    const project = await projectWith(rollingEvents(() => 1))
    const res = await project.query(rolling({}, 6))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(counts(res)).toEqual(pad([[2, 2, 1, 1, 1, 0], [2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]))
  })

  it('a person seen on days 0 and 2 is retained on days 0, 1 and 2 of a cumulative retention', async () => {
    const project = await projectWith(
      retentionEvents(
        [
          ['p', retentionDate(0)],
          ['p', retentionDate(2)],
        ],
        'a',
      ),
    )
    const res = await project.query({
      kind: 'RetentionQuery',
      dateRange: { date_to: retentionDate(2) },
      retentionFilter: {
        cumulative: true,
        totalIntervals: 3,
        targetEntity: { id: 'a', type: 'events' },
        returningEntity: { id: 'a', type: 'events' },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(counts(res)).toEqual([
      [1, 1, 1],
      [0, 0, 0],
      [1, 0, 0],
    ])
  })
})
