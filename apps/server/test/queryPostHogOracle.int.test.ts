import { describe, expect, it } from 'vitest'
import { calculatedCohort, useCaseProjects, type CaseProject, type SentEvent } from './queryFixture'

/**
 * Cases from PostHog's own insight tests (posthog/hogql_queries/insights/**\/test/*.py), each named
 * after the test it comes from: the test's events, sent through /batch/ as a client sends them,
 * and the numbers it asserts. Each case has a project of its own, as each PostHog test has a team.
 */

const cases = useCaseProjects()
const { projectWith } = cases

/** Events one after the other, a minute apart from `start`, in the order given. */
function inOrder(start: string, events: Array<[name: string, distinctId: string, properties?: Record<string, unknown>]>): SentEvent[] {
  return events.map(([event, distinct_id, properties = {}], i) => ({
    event,
    distinct_id,
    timestamp: new Date(Date.parse(start) + i * 60_000).toISOString(),
    properties,
  }))
}

const anyEvent = { kind: 'EventsNode', event: null }

/** Only the named fields of each row. */
const pick = (rows: any[], fields: string[]) => rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])))

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
async function mergedPersons(project: CaseProject, merges: Array<[into: string, from: string]>): Promise<void> {
  for (const [into, from] of merges) {
    await cases.service.personOf(project.account, from, (p) => (p.distinct_ids as string[]).includes(into))
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

/**
 * The test account filters a PostHog test team has: persons of the organisation's email domain
 * (its tests' users are @posthog.com) and events from localhost.
 */
const POSTHOG_TEST_TEAM_FILTERS = [
  { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' },
  { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
]

describe('filterTestAccounts applies the project’s test account filters', () => {
  // funnels/test/test_funnel.py: person1 (test@posthog.com) is a test account.
  const funnelEvents: SentEvent[] = [
    { event: 'event1', distinct_id: 'person1', timestamp: '2024-03-01T10:00:00Z', properties: { $set: { email: 'test@posthog.com' } } },
    { event: 'event1', distinct_id: 'person2', timestamp: '2024-03-01T10:00:00Z', properties: {} },
  ]
  const range = { date_from: '2024-02-25', date_to: '2024-03-05' }

  it('test_funnel_filter_test_accounts', async () => {
    const project = await projectWith(funnelEvents, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const funnel = (filterTestAccounts: boolean) =>
      project.query({
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'event1' },
          { kind: 'EventsNode', event: 'event1' },
        ],
        dateRange: range,
        filterTestAccounts,
      })
    const filtered = await funnel(true)
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200)
    expect(filtered.body.results[0].count).toBe(1)
    expect((await funnel(false)).body.results[0].count).toBe(2)
  })

  it('lifecycle_query_runner.py and retention_query_runner.py AND each test account filter with the events’ (the funnel test’s team)', async () => {
    const project = await projectWith(funnelEvents, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const lifecycle = await project.query({
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event: 'event1' }],
      dateRange: { date_from: '2024-03-01', date_to: '2024-03-01' },
      filterTestAccounts: true,
    })
    expect(lifecycle.status, JSON.stringify(lifecycle.body)).toBe(200)
    expect(lifecycle.body.results.find((r: any) => r.status === 'new').data).toEqual([1])
    const retention = await project.query({
      kind: 'RetentionQuery',
      dateRange: { date_to: '2024-03-01' },
      retentionFilter: {
        totalIntervals: 1,
        targetEntity: { id: 'event1', type: 'events' },
        returningEntity: { id: 'event1', type: 'events' },
      },
      filterTestAccounts: true,
    })
    expect(retention.status, JSON.stringify(retention.body)).toBe(200)
    expect(counts(retention)).toEqual([[1]])
  })

  it('test_filter_test_accounts (ee trends): a person property filter, with and without a breakdown', async () => {
    const project = await projectWith(
      [
        { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-11T12:00:00Z', properties: { key: 'val', $set: { name: 'p1' } } },
        { event: '$pageview', distinct_id: 'p2', timestamp: '2020-01-11T12:00:00Z', properties: { key: 'val', $set: { name: 'p2' } } },
      ],
      { test_account_filters: [{ key: 'name', value: 'p1', operator: 'is_not', type: 'person' }] },
    )
    const trend = (extra: Record<string, unknown>) =>
      project.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
        ...extra,
      })
    const filtered = await trend({ filterTestAccounts: true })
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200)
    expect(filtered.body.results[0].count).toBe(1)
    expect((await trend({})).body.results[0].count).toBe(2)
    expect((await trend({ filterTestAccounts: true, breakdownFilter: { breakdown: 'key' } })).body.results[0].count).toBe(1)
  })

  it('test_properties_filtering_with_materialized_columns_and_empty_string_as_property: is_not keeps an event whose value is ""', async () => {
    const project = await projectWith(
      [{ event: '$pageview', distinct_id: 'person_1', timestamp: '2020-01-11T12:00:00Z', properties: { $some_property: '' } }],
      { test_account_filters: [{ key: '$some_property', value: ['other_value', 'yet_another_value'], operator: 'is_not', type: 'event' }] },
    )
    const res = await project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-11T23:59:59Z' },
      interval: 'day',
      filterTestAccounts: true,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results[0].data).toEqual([1])
  })
})

/** test_trends_query_runner.py's `_create_test_events`: four persons' pageviews and pageleaves, none with a session. */
function trendsTestEvents(): SentEvent[] {
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
  return persons.flatMap(([distinct_id, properties, views, leaves]) => [
    ...views.map((day) => ({ event: '$pageview', distinct_id, timestamp: `${day}T12:00:00Z`, properties })),
    ...leaves.map((day) => ({ event: '$pageleave', distinct_id, timestamp: `${day}T12:00:00Z`, properties })),
  ])
}

describe('trends/test/test_trends_query_runner.py', () => {
  let project: CaseProject | undefined
  const trendsProject = async () => (project ??= await projectWith(trendsTestEvents()))
  const daily = (math: string) =>
    trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', math }],
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        interval: 'day',
      }),
    )

  const pageviews = (dateRange: Record<string, string>, interval: string) =>
    trendsProject().then((p) => p.query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange, interval }))

  it('test_trends_labels and test_trends_data', async () => {
    const res = await pageviews({ date_from: '2020-01-09', date_to: '2020-01-19' }, 'day')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results[0].labels).toEqual(Array.from({ length: 11 }, (_, i) => `${9 + i}-Jan-2020`))
    expect(res.body.results[0].data).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1])
    expect(res.body.results[0].count).toBe(10)
  })

  it('test_trends_labels_hour: an hour is labelled without its year', async () => {
    const res = await pageviews({ date_from: '2020-01-09', date_to: '2020-01-09' }, 'hour')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results[0].labels).toEqual(['9-Jan 00:00'])
  })

  it.each([
    ['test_trends_aggregation_unique: events without a session are one session', 'unique_session', [1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0]],
    ['test_trends_aggregation_dau', 'dau', [1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1, 0]],
    ['test_trends_aggregation_wau', 'weekly_active', [1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 2, 2]],
    ['test_trends_aggregation_mau', 'monthly_active', [1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4]],
  ])('%s', async (_name, math, data) => {
    const res = await daily(math)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(1)
    expect(res.body.results[0].data).toEqual(data)
  })

  const pageviewsAndPageleaves = (extra: Record<string, unknown>, dateRange = { date_from: '2020-01-09', date_to: '2020-01-20' }) =>
    trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series: [
          { kind: 'EventsNode', event: '$pageview' },
          { kind: 'EventsNode', event: '$pageleave' },
        ],
        dateRange,
        interval: 'day',
        ...extra,
      }),
    )
  const fifteenthToNineteenth = { date_from: '2020-01-15', date_to: '2020-01-19' }

  it('test_trends_query_formula: one row, the formula over the series day by day', async () => {
    const res = await pageviewsAndPageleaves({ trendsFilter: { formula: 'A+B' } }, { date_from: '2020-01-09', date_to: '2020-01-19' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(1)
    expect(res.body.results[0].count).toBe(16)
    expect(res.body.results[0].label).toBe('Formula (A+B)')
    expect(res.body.results[0].data).toEqual([1, 0, 2, 4, 4, 0, 2, 1, 1, 0, 1])
  })

  it('test_formula_with_compare_total_value: one aggregated value per period', async () => {
    const res = await pageviewsAndPageleaves(
      { trendsFilter: { formula: 'A+2*B', display: 'BoldNumber' }, compareFilter: { compare: true } },
      fifteenthToNineteenth,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['compare_label', 'aggregated_value', 'label', 'count', 'compare'])).toEqual([
      { compare_label: 'current', aggregated_value: 6, label: 'Formula (A+2*B)', count: 0, compare: true },
      { compare_label: 'previous', aggregated_value: 15, label: 'Formula (A+2*B)', count: 0, compare: true },
    ])
  })

  it('test_formula_with_compare_to_week: a list of one formula, compared with the week before', async () => {
    const res = await pageviewsAndPageleaves(
      { trendsFilter: { formulas: ['A+2*B'] }, compareFilter: { compare: true, compare_to: '-1w' } },
      fifteenthToNineteenth,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['compare_label', 'count', 'data', 'label', 'compare'])).toEqual([
      { compare_label: 'current', count: 6, data: [2, 2, 1, 0, 1], label: 'Formula (A+2*B)', compare: true },
      { compare_label: 'previous', count: 9, data: [0, 1, 0, 3, 5], label: 'Formula (A+2*B)', compare: true },
    ])
  })

  // Its cohort breakdown's "all users" rows: the two formulas over every person.
  it('test_multiple_formula_with_multi_cohort_all_breakdown: one row per formula, each with its own name', async () => {
    const res = await pageviewsAndPageleaves({
      trendsFilter: {
        formulaNodes: [
          { formula: 'A+B', custom_name: 'Formula (A+B)' },
          { formula: 'B+1', custom_name: 'Pageleaves plus one' },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['label', 'count', 'data', 'action'])).toEqual([
      { label: 'Formula (A+B)', count: 16, data: [1, 0, 2, 4, 4, 0, 2, 1, 1, 0, 1, 0], action: null },
      { label: 'Pageleaves plus one', count: 18, data: [1, 1, 2, 2, 4, 1, 1, 2, 1, 1, 1, 1], action: null },
    ])
    // The same two as a list of formulas, each labelled by its text; formulaNodes win over both.
    const listed = await pageviewsAndPageleaves({ trendsFilter: { formulas: ['A+B', 'B+1'], formula: 'A' } })
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    expect(pick(listed.body.results, ['label', 'count'])).toEqual([
      { label: 'Formula (A+B)', count: 16 },
      { label: 'Formula (B+1)', count: 18 },
    ])
    const nodesFirst = await pageviewsAndPageleaves({ trendsFilter: { formulaNodes: [{ formula: 'B' }], formulas: ['A'] } })
    expect(pick(nodesFirst.body.results, ['label', 'count'])).toEqual([{ label: 'Formula (B)', count: 6 }])
  })

  it('test_trends_breakdowns_histogram: four bins of equal width over prop, the last one’s top raised by 0.01', async () => {
    const res = await trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        interval: 'day',
        breakdownFilter: { breakdown_type: 'event', breakdown: 'prop', breakdown_histogram_bin_count: 4 },
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['breakdown_value', 'label', 'data'])).toEqual([
      { breakdown_value: '[10,17.5]', label: '[10,17.5]', data: [0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0] },
      { breakdown_value: '[17.5,25]', label: '[17.5,25]', data: [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0] },
      { breakdown_value: '[25,32.5]', label: '[25,32.5]', data: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0] },
      { breakdown_value: '[32.5,40.01]', label: '[32.5,40.01]', data: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] },
    ])
  })

  it('test_smoothing: each day the floor of the mean of itself and the six days before it in the range', async () => {
    const res = await trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        interval: 'day',
        trendsFilter: { smoothingIntervals: 7 },
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results[0].data).toEqual([1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0])
  })

  it('test_formula_with_breakdown: one row per breakdown value, tied to no series', async () => {
    const res = await pageviewsAndPageleaves({
      trendsFilter: { formula: 'A+2*B' },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(4)
    expect(pick(res.body.results.slice(0, 2), ['breakdown_value', 'count'])).toEqual([
      { breakdown_value: 'Chrome', count: 12 },
      { breakdown_value: 'Firefox', count: 4 },
    ])
    expect(res.body.results[0].data).toEqual([0, 0, 3, 3, 3, 0, 1, 0, 1, 0, 1, 0])
    expect(res.body.results[0].label).toBe('Formula (A+2*B)')
    expect(res.body.results[0].action).toBeNull()
  })

  it('test_formula_with_breakdown_and_compare and …_compare_to: the values each period has', async () => {
    const breakdownFilter = { breakdown_type: 'event', breakdown: '$browser' }
    const previous = await pageviewsAndPageleaves(
      { trendsFilter: { formula: 'A+2*B' }, breakdownFilter, compareFilter: { compare: true } },
      fifteenthToNineteenth,
    )
    expect(previous.status, JSON.stringify(previous.body)).toBe(200)
    expect(previous.body.results).toHaveLength(5)
    expect(pick(previous.body.results.slice(0, 3), ['compare_label', 'breakdown_value', 'label', 'count'])).toEqual([
      { compare_label: 'current', breakdown_value: 'Chrome', label: 'Formula (A+2*B)', count: 3 },
      { compare_label: 'current', breakdown_value: 'Safari', label: 'Formula (A+2*B)', count: 3 },
      { compare_label: 'previous', breakdown_value: 'Chrome', label: 'Formula (A+2*B)', count: 9 },
    ])
    expect(previous.body.results[0].data).toEqual([1, 0, 1, 0, 1])

    const threeDaysBefore = await pageviewsAndPageleaves(
      { trendsFilter: { formula: 'A+2*B' }, breakdownFilter, compareFilter: { compare: true, compare_to: '-3d' } },
      fifteenthToNineteenth,
    )
    expect(threeDaysBefore.status, JSON.stringify(threeDaysBefore.body)).toBe(200)
    expect(threeDaysBefore.body.results).toHaveLength(6)
    expect(pick(threeDaysBefore.body.results.slice(0, 3), ['compare_label', 'breakdown_value', 'count'])).toEqual([
      { compare_label: 'current', breakdown_value: 'Chrome', count: 3 },
      { compare_label: 'current', breakdown_value: 'Safari', count: 3 },
      { compare_label: 'previous', breakdown_value: 'Chrome', count: 7 },
    ])
    expect(threeDaysBefore.body.results[2].data).toEqual([3, 3, 0, 1, 0])
  })

  it('test_formula_with_breakdown_and_compare_total_value', async () => {
    const res = await pageviewsAndPageleaves(
      {
        trendsFilter: { formula: 'A+2*B', display: 'BoldNumber' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
        compareFilter: { compare: true },
      },
      fifteenthToNineteenth,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(5)
    expect(pick(res.body.results.slice(0, 3), ['compare_label', 'breakdown_value', 'aggregated_value', 'count'])).toEqual([
      { compare_label: 'current', breakdown_value: 'Chrome', aggregated_value: 3, count: 0 },
      { compare_label: 'current', breakdown_value: 'Safari', aggregated_value: 3, count: 0 },
      { compare_label: 'previous', breakdown_value: 'Chrome', aggregated_value: 9, count: 0 },
    ])
  })

  it('divides by zero as 0, and refuses a formula naming a series the query lacks, naming the formula', async () => {
    const res = await pageviewsAndPageleaves({ trendsFilter: { formula: '(A - B) / B * 100' } }, fifteenthToNineteenth)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // $pageview 15th–19th: 2, 0, 1, 0, 1; $pageleave: 0, 1, 0, 0, 0.
    expect(res.body.results[0].data).toEqual([0, -100, 0, 0, 0])
    for (const formula of ['A + C', 'A +', 'A; B', 'x'.repeat(401)]) {
      const refused = await pageviewsAndPageleaves({ trendsFilter: { formula } })
      expect(refused.status, formula).toBe(400)
      expect(refused.body.attr, formula).toBe('query__trendsFilter__formula')
    }
  })

  const pageviewsBy = (breakdownFilter: Record<string, unknown>, series = [{ kind: 'EventsNode', event: '$pageview' }]) =>
    trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series,
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        interval: 'day',
        breakdownFilter,
      }),
    )

  it('test_trends_breakdowns_hogql: broken down by an expression over each event', async () => {
    const res = await pageviewsBy({ breakdown_type: 'hogql', breakdown: 'properties.$browser' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: 'Chrome', label: 'Chrome', count: 6 },
      { breakdown_value: 'Firefox', label: 'Firefox', count: 2 },
      { breakdown_value: 'Edge', label: 'Edge', count: 1 },
      { breakdown_value: 'Safari', label: 'Safari', count: 1 },
    ])
  })

  it('test_trends_breakdowns_multiple_hogql: each series broken down by the expression, labelled with its event', async () => {
    const res = await pageviewsBy({ breakdown_type: 'hogql', breakdown: 'properties.$browser' }, [
      { kind: 'EventsNode', event: '$pageview' },
      { kind: 'EventsNode', event: '$pageleave' },
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['label', 'count'])).toEqual([
      { label: '$pageview - Chrome', count: 6 },
      { label: '$pageview - Firefox', count: 2 },
      { label: '$pageview - Edge', count: 1 },
      { label: '$pageview - Safari', count: 1 },
      { label: '$pageleave - Chrome', count: 3 },
      { label: '$pageleave - Edge', count: 1 },
      { label: '$pageleave - Firefox', count: 1 },
      { label: '$pageleave - Safari', count: 1 },
    ])
  })

  it('test_trends_breakdowns_cohort: one row for the cohort, labelled with its name', async () => {
    // _create_test_events names each person after their distinct id.
    const named = await projectWith(
      trendsTestEvents().map((e) => ({ ...e, properties: { ...e.properties, $set: { name: e.distinct_id } } })),
    )
    const cohort = await calculatedCohort(cases.service, named.account, {
      name: 'cohort',
      groups: [{ properties: [{ key: 'name', value: 'p1', type: 'person' }] }],
    })
    expect(cohort.count).toBe(1)
    const res = await named.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
      interval: 'day',
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [cohort.id] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['label', 'breakdown_value', 'count', 'data'])).toEqual([
      { label: 'cohort', breakdown_value: cohort.id, count: 6, data: [0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0] },
    ])
  })

  it('test_trends_aggregation_hogql: each day the HogQL aggregate of its events', async () => {
    const res = await trendsProject().then((p) =>
      p.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'sum(properties.prop)' }],
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        interval: 'day',
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(1)
    expect(res.body.results[0].data).toEqual([20, 0, 10, 60, 10, 0, 50, 0, 10, 0, 10, 0])
    expect(res.body.results[0].action.math_hogql).toBe('sum(properties.prop)')
  })
})

/** test_trends.py's `_create_events`: one person with two distinct ids signing up, at midnight (UTC). */
function legacyTrendsEvents(): SentEvent[] {
  const signUp = (distinct_id: string, day: string, properties: Record<string, unknown> = {}): SentEvent => ({
    event: 'sign up',
    distinct_id,
    timestamp: `${day}T00:00:00Z`,
    properties,
  })
  return [
    identifyLongBefore('blabla', 'anonymous_id'),
    signUp('blabla', '2019-12-24', { $some_property: 'value', $bool_prop: true }),
    signUp('blabla', '2020-01-01', { $some_property: 'value', $bool_prop: false }),
    signUp('anonymous_id', '2020-01-01', { $bool_prop: false }),
    signUp('blabla', '2020-01-01'),
    signUp('blabla', '2020-01-02', { $some_property: 'other_value', $some_numerical_prop: 80 }),
    { event: 'no events', distinct_id: 'blabla', timestamp: '2020-01-02T00:00:00Z', properties: {} },
  ]
}

describe('trends/test/test_trends.py', () => {
  // Their `date_from: -7d` at 2020-01-04T13:00:01Z: the eight days from 28 December.
  const lastWeek = { date_from: '2019-12-28', date_to: '2020-01-04' }
  const cumulative = (project: CaseProject, series: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'sign up', ...series }],
      dateRange: lastWeek,
      interval: 'day',
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
      ...extra,
    })

  it('test_trends_per_day_cumulative: each day the total so far, counted as the last day’s', async () => {
    const project = await projectWith(legacyTrendsEvents())
    const res = await cumulative(project, {})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const [row] = res.body.results
    expect(row.label).toBe('sign up')
    expect(row.labels[4]).toBe('1-Jan-2020')
    expect(row.data[4]).toBe(3)
    expect(row.labels[5]).toBe('2-Jan-2020')
    expect(row.data[5]).toBe(4)
    expect(row.data).toEqual([0, 0, 0, 0, 3, 4, 4, 4])
    expect(row.count).toBe(4)
  })

  it('test_trends_per_day_dau_cumulative: a person counts once, on their first day', async () => {
    const project = await projectWith([
      ...legacyTrendsEvents(),
      { event: 'sign up', distinct_id: 'new_user', timestamp: '2020-01-03T13:00:01Z', properties: { $some_property: 'value' } },
    ])
    await mergedPersons(project, [['blabla', 'anonymous_id']])
    const res = await cumulative(project, { math: 'dau' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const [row] = res.body.results
    expect([row.data[4], row.data[5], row.data[6]]).toEqual([1, 1, 2])
    expect(row.labels[6]).toBe('3-Jan-2020')
  })

  it('test_trends_breakdown_cumulative: per value, no value last', async () => {
    const project = await projectWith(legacyTrendsEvents())
    await mergedPersons(project, [['blabla', 'anonymous_id']])
    const res = await cumulative(project, { math: 'dau' }, { breakdownFilter: { breakdown: '$some_property' } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['breakdown_value', 'data'])).toEqual([
      { breakdown_value: 'value', data: [0, 0, 0, 0, 1, 1, 1, 1] },
      { breakdown_value: 'other_value', data: [0, 0, 0, 0, 0, 1, 1, 1] },
      { breakdown_value: '$$_posthog_breakdown_null_$$', data: [0, 0, 0, 0, 1, 1, 1, 1] },
    ])
    expect(res.body.results[0].label).toBe('value')
    expect(res.body.results[1].label).toBe('other_value')
  })

  it('test_trends_breakdown_normalize_url: a URL with and without its trailing slash is one value', async () => {
    const project = await projectWith(
      ['http://hogflix/first', 'http://hogflix/first/', 'http://hogflix/second'].map((url) => ({
        event: 'sign up',
        distinct_id: 'blabla',
        timestamp: '2020-01-02T00:00:00Z',
        properties: { $current_url: url },
      })),
    )
    const res = await cumulative(
      project,
      { math: 'dau' },
      { breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } },
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any) => r.label).sort()).toEqual(['http://hogflix/first', 'http://hogflix/second'])
    expect(res.body.results.map((r: any) => r.breakdown_value).sort()).toEqual(['http://hogflix/first', 'http://hogflix/second'])
  })

  // Its `_create_event_count_per_actor_events`, the events of `viewed video`; `-7d` at 2020-01-06T13:00:01Z.
  const viewedVideo = (): SentEvent[] =>
    (
      [
        ['anonymous_id', '2020-01-01T00:06:02Z', 'bouba'],
        ['blabla', '2020-01-01T00:06:02Z', 'bouba'],
        ['reeree', '2020-01-01T00:06:02Z', 'bouba'],
        ['tintin', '2020-01-04T23:17:00Z', 'kiki'],
        ['blabla', '2020-01-05T19:06:34Z', 'bouba'],
        ['tintin', '2020-01-05T19:06:34Z', undefined],
        ['tintin', '2020-01-05T19:06:34Z', 'bouba'],
        ['tintin', '2020-01-05T19:06:34Z', 'kiki'],
      ] as const
    ).map(([distinct_id, timestamp, group]) => ({
      event: 'viewed video',
      distinct_id,
      timestamp,
      properties: group === undefined ? {} : { $group_0: group },
    }))
  const groupsPerDay = (project: CaseProject, display: string) =>
    project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'viewed video', math: 'unique_group', math_group_type_index: 0 }],
      dateRange: { date_from: '2019-12-30', date_to: '2020-01-06' },
      interval: 'day',
      trendsFilter: { display },
    })

  it('test_trends_groups_per_day and …_cumulative: unique_group counts the groups, cumulatively each once', async () => {
    const project = await projectWith(viewedVideo())
    const daily = await groupsPerDay(project, 'ActionsLineGraph')
    expect(daily.status, JSON.stringify(daily.body)).toBe(200)
    expect(daily.body.results[0].label).toBe('viewed video')
    expect(daily.body.results[0].labels.at(-1)).toBe('6-Jan-2020')
    expect(daily.body.results[0].data).toEqual([0, 0, 1, 0, 0, 1, 2, 0])
    const cumulativeGroups = await groupsPerDay(project, 'ActionsLineGraphCumulative')
    expect(cumulativeGroups.body.results[0].data).toEqual([0, 0, 1, 1, 1, 2, 2, 2])
    // Without a group type there is nothing to count.
    const untyped = await project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'viewed video', math: 'unique_group' }],
    })
    expect(untyped.status).toBe(400)
    expect(untyped.body.attr).toBe('query__series__0__math_group_type_index')
  })

  it('test_trends_multiple_breakdowns_single_aggregate: each row’s value is the list of its properties’ values', async () => {
    const signUp = (day: string, $browser: string, $variant: string): SentEvent => ({
      event: 'sign up',
      distinct_id: 'blabla',
      timestamp: `${day}T00:06:34Z`,
      properties: { $some_property: 'value', $browser, $variant },
    })
    const project = await projectWith([
      signUp('2020-01-01', 'Chrome', '1'),
      signUp('2020-01-01', 'Chrome', '2'),
      signUp('2020-01-01', 'Safari', '1'),
      signUp('2020-01-01', 'Safari', '1'),
      signUp('2020-01-01', 'Safari', '2'),
      signUp('2020-01-02', 'Safari', '2'),
      signUp('2020-01-02', 'Safari', '2'),
    ])
    const res = await project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: lastWeek,
      trendsFilter: { display: 'ActionsTable' },
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: '$variant' }] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(pick(res.body.results, ['breakdown_value', 'aggregated_value', 'label'])).toEqual([
      { breakdown_value: ['Safari', '2'], aggregated_value: 3, label: 'Safari::2' },
      { breakdown_value: ['Safari', '1'], aggregated_value: 2, label: 'Safari::1' },
      { breakdown_value: ['Chrome', '1'], aggregated_value: 1, label: 'Chrome::1' },
      { breakdown_value: ['Chrome', '2'], aggregated_value: 1, label: 'Chrome::2' },
    ])
    // The breakdown limit keeps the first value and sums the rest into Other, in each property.
    const limited = await project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: lastWeek,
      trendsFilter: { display: 'ActionsTable' },
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: '$variant' }], breakdown_limit: 1 },
    })
    expect(pick(limited.body.results, ['breakdown_value', 'aggregated_value'])).toEqual([
      { breakdown_value: ['Safari', '2'], aggregated_value: 3 },
      { breakdown_value: ['$$_posthog_breakdown_other_$$', '$$_posthog_breakdown_other_$$'], aggregated_value: 4 },
    ])
    expect(limited.body.hasMore).toBe(true)
  })
})

/** test_trends_persons.py's `_create_events`: three persons' page views (and one page leave), late April to early May 2023. */
function trendsPersonsEvents(): SentEvent[] {
  const view = (distinct_id: string, at: string, properties: Record<string, unknown> = {}, event = '$pageview'): SentEvent => ({
    event,
    distinct_id,
    timestamp: `${at.replace(' ', 'T')}:00Z`,
    properties,
  })
  const chrome = { $browser: 'Chrome' }
  const safari = { $browser: 'Safari' }
  return [
    view('person1', '2023-04-29 16:00', chrome),
    view('person1', '2023-04-29 17:00', chrome, '$pageleave'),
    view('person2', '2023-04-29 17:00', safari),
    view('person2', '2023-04-29 18:00', safari),
    view('person1', '2023-05-01 16:00', { ...chrome, some_property: 20 }),
    view('person1', '2023-05-01 17:00', chrome),
    view('person1', '2023-05-01 18:00', chrome),
    view('person2', '2023-05-01 16:00', { ...safari, some_property: 22 }),
    view('person2', '2023-05-01 17:00', safari),
    view('person3', '2023-05-01 16:00', safari),
    view('person1', '2023-05-06 16:00', { some_property: 20 }),
  ]
}

describe('trends/test/test_trends_persons.py', () => {
  let project: CaseProject | undefined
  const firstTimes = async (math: string, dateRange: Record<string, string>, extra: Record<string, unknown> = {}) =>
    (project ??= await projectWith(trendsPersonsEvents())).query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math, ...extra }],
      dateRange,
      interval: 'day',
    })

  it('test_trends_math_first_time_for_user_basic: each person on the day of their first page view ever', async () => {
    // Its persons by day: none on 25–28 April, person1 and person2 on the 29th, person3 on 1 May.
    const res = await firstTimes('first_time_for_user', { date_from: '2023-04-25', date_to: '2023-05-06' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results[0].data).toEqual([0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0])
    // A range after someone's first page view does not count them again.
    const later = await firstTimes('first_time_for_user', { date_from: '2023-04-30', date_to: '2023-05-06' })
    expect(later.body.results[0].data).toEqual([0, 1, 0, 0, 0, 0, 0])
  })

  it('first_time_for_user with a filter counts a person only when their very first event matches it; first_matching_event_for_user counts their first matching one', async () => {
    const filter = { properties: [{ key: 'some_property', value: 20, operator: 'exact', type: 'event' }] }
    const range = { date_from: '2023-04-25', date_to: '2023-05-06' }
    const first = await firstTimes('first_time_for_user', range, filter)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.results[0].data).toEqual(new Array(12).fill(0))
    const matching = await firstTimes('first_matching_event_for_user', range, filter)
    expect(matching.body.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0])
  })
})

describe('lifecycle/test/test_lifecycle_query_runner.py', () => {
  it('test_lifecycle_query_group_0: aggregation_group_type_index counts groups, new in the period they were created', async () => {
    const at = (day: number) => `2020-01-${String(day).padStart(2, '0')}T12:00:00Z`
    const views = (distinctId: string, days: number[]): SentEvent[] =>
      days.map((day) => ({
        event: '$pageview',
        distinct_id: distinctId,
        timestamp: at(day),
        properties: { $groups: { organization: 'org:5' } },
      }))
    const project = await projectWith([
      // The group is created on the 9th, as PostHog's test creates it.
      {
        event: '$groupidentify',
        distinct_id: 'p1',
        timestamp: at(9),
        properties: { $group_type: 'organization', $group_key: 'org:5', $group_set: { name: 'org 5' } },
      },
      ...views('p1', [11, 12, 13, 15, 17, 19]),
      ...views('p2', [9, 12]),
      ...views('p3', [12]),
      ...views('p4', [15, 18]),
    ])
    const res = await project.query({
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' },
      interval: 'day',
      aggregation_group_type_index: 0,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any) => [r.status, r.data, r.count])).toEqual([
      ['new', [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 1],
      ['returning', [0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1], 4],
      ['resurrecting', [0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0], 3],
      ['dormant', [0, -1, 0, 0, 0, -1, 0, -1, 0, 0, 0], -3],
    ])
    expect(res.body.results[0].labels[0]).toBe('9-Jan-2020')
  })
})

describe('utils/test/test_query_date_range.py', () => {
  it('test_all_values: weeks start on the project’s week_start_day, Sunday or Monday', async () => {
    const weeks = async (week_start_day: 0 | 1) => {
      const project = await projectWith([], { week_start_day })
      const res = await project.query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        // PostHog's -20d from 25 August 2021.
        dateRange: { date_from: '2021-08-05', date_to: '2021-08-25' },
        interval: 'week',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.results[0].days
    }
    expect(await weeks(0)).toEqual(['2021-08-01', '2021-08-08', '2021-08-15', '2021-08-22'])
    expect(await weeks(1)).toEqual(['2021-08-02', '2021-08-09', '2021-08-16', '2021-08-23'])
  })
})

describe('funnels/test/breakdown_cases.py', () => {
  const at = (day: number, hour: number) => new Date(Date.UTC(2020, 0, day, hour)).toISOString()
  const journey = (person: string, browser: string, steps: Array<[string, number, number]>): SentEvent[] =>
    steps.map(([event, day, hour]) => ({
      event,
      distinct_id: person,
      timestamp: at(day, hour),
      properties: { key: 'val', $browser: browser },
    }))
  const events = [
    ...journey('person1', 'Chrome', [
      ['sign up', 1, 12],
      ['play movie', 1, 13],
      ['buy', 1, 15],
    ]),
    ...journey('person2', 'Safari', [
      ['sign up', 2, 14],
      ['play movie', 2, 16],
    ]),
    ...journey('person3', 'Safari', [['sign up', 2, 14]]),
  ]
  const funnel = (breakdownFilter: Record<string, unknown>) => ({
    kind: 'FunnelsQuery',
    series: ['sign up', 'play movie', 'buy'].map((event) => ({ kind: 'EventsNode', event })),
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
    breakdownFilter,
  })
  const steps = (results: any[][], value: string) =>
    results.find((r) => r[0].breakdown[0] === value)!.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])

  it('test_funnel_step_breakdown_event: a breakdown given as a list of one property', async () => {
    const project = await projectWith(events)
    const res = await project.query(funnel({ breakdown_type: 'event', breakdown: ['$browser'] }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(2)
    expect(steps(res.body.results, 'Chrome')).toEqual([
      [1, null, null],
      [1, 3600, 3600],
      [1, 7200, 7200],
    ])
    expect(steps(res.body.results, 'Safari')).toEqual([
      [2, null, null],
      [1, 7200, 7200],
      [0, null, null],
    ])
    expect(res.body.results[0][0].breakdown_value).toEqual([res.body.results[0][0].breakdown[0]])
  })

  // PostHog's funnels name the bucket past breakdown_limit `Other` (its trends say $$_posthog_breakdown_other_$$).
  it('test_funnel_step_breakdown_event_with_other: the values past breakdown_limit are Other', async () => {
    const project = await projectWith([
      ...journey('person1', 'Chrome', [
        ['sign up', 1, 12],
        ['play movie', 1, 13],
      ]),
      ...journey('person2', 'Safari', [
        ['sign up', 2, 14],
        ['play movie', 2, 15],
        ['buy', 2, 16],
      ]),
      ...journey('person3', 'Safari', [['sign up', 2, 14]]),
      ...journey('person4', 'random', [['sign up', 2, 14]]),
      ...journey('person5', 'another one', [['sign up', 2, 15]]),
    ])
    const res = await project.query(funnel({ breakdown_type: 'event', breakdown: ['$browser'], breakdown_limit: 1 }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any[]) => r[0].breakdown_value).sort()).toEqual([['Other'], ['Safari']])
    expect(steps(res.body.results, 'Safari')).toEqual([
      [2, null, null],
      [1, 3600, 3600],
      [1, 3600, 3600],
    ])
    expect(steps(res.body.results, 'Other')).toEqual([
      [3, null, null],
      [1, 3600, 3600],
      [0, null, null],
    ])
  })

  it('test_funnel_step_breakdown_limit: the breakdown_limit values with the most persons, then Other', async () => {
    const persons = Array.from({ length: 10 }, (_, value) =>
      Array.from({ length: value }, (_, i) => ({ person: `person_${value}_${i}`, value })),
    )
    const project = await projectWith(
      persons.flat().flatMap(({ person, value }) =>
        (
          [
            ['sign up', 1, 12],
            ['play movie', 1, 13],
            ['buy', 1, 15],
          ] as Array<[string, number, number]>
        ).map(([event, day, hour]) => ({
          event,
          distinct_id: person,
          timestamp: at(day, hour),
          properties: { some_breakdown_val: String(value) },
        })),
      ),
    )
    const res = await project.query(funnel({ breakdown_type: 'event', breakdown: ['some_breakdown_val'], breakdown_limit: 5 }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any[]) => r[0].breakdown).sort()).toEqual([['5'], ['6'], ['7'], ['8'], ['9'], ['Other']])
  })
})

describe('stickiness/test/test_stickiness_query_runner.py', () => {
  const day = (d: number, hour = 12) => new Date(Date.UTC(2020, 0, d, hour)).toISOString()
  /** A person's events: each name at each of its times, with the person's properties. */
  const person = (distinctId: string, properties: Record<string, unknown>, events: Record<string, string[]>): SentEvent[] =>
    Object.entries(events).flatMap(([event, times]) =>
      times.map((timestamp) => ({ event, distinct_id: distinctId, timestamp, properties })),
    )
  // _create_test_events: p1 every day from the 11th to the 19th, p2 every other day, each a $pageview and a $pageleave.
  const p1Days = [11, 12, 13, 14, 15, 16, 17, 18, 19].map((d) => day(d))
  const p2Days = [11, 13, 15, 17, 19].map((d) => day(d))
  const testEvents = [
    ...person('p1', { $browser: 'Chrome', prop: 10, bool_field: true, $group_0: 'org:1' }, { $pageview: p1Days, $pageleave: p1Days }),
    ...person('p2', { $browser: 'Firefox', prop: 10, bool_field: false, $group_0: 'org:1' }, { $pageview: p2Days, $pageleave: p2Days }),
  ]
  const pageview = { kind: 'EventsNode', event: '$pageview' }
  const stickiness = (fields: Record<string, unknown> = {}) => ({
    kind: 'StickinessQuery',
    series: [pageview],
    dateRange: { date_from: '2020-01-11', date_to: '2020-01-20' },
    interval: 'day',
    ...fields,
  })
  let shared: CaseProject | undefined
  /** The project of _create_test_events, made once for the cases that only read it. */
  const withTestEvents = async () => (shared ??= await projectWith(testEvents))
  const run = async (project: CaseProject, query: Record<string, unknown>) => {
    const res = await project.query(query)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.results as Array<Record<string, any>>
  }
  const dayLabels = (n: number, suffix = '') => Array.from({ length: n }, (_, i) => `${i + 1} day${i === 0 ? '' : 's'}${suffix}`)
  const nth = (length: number, at: Record<number, number>) => Array.from({ length }, (_, i) => at[i] ?? 0)

  it('test_days, test_count and test_labels', async () => {
    const [result] = await run(await withTestEvents(), stickiness())
    expect(result!.days).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(result!.count).toBe(2)
    expect(result!.label).toBe('$pageview')
    expect(result!.labels).toEqual(dayLabels(10))
    expect(result!.action).toMatchObject({ order: 0, type: 'events', name: '$pageview', id: '$pageview', custom_name: null })
  })

  it('test_interval_day', async () => {
    const [result] = await run(await withTestEvents(), stickiness({ interval: 'day' }))
    expect(result!.data).toEqual(nth(10, { 4: 1, 8: 1 }))
  })

  it('test_interval_hour', async () => {
    const [result] = await run(
      await withTestEvents(),
      stickiness({ interval: 'hour', dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' } }),
    )
    expect(result!.labels).toEqual(Array.from({ length: 25 }, (_, h) => `${h + 1} hour${h === 0 ? '' : 's'}`))
    expect(result!.days).toEqual(Array.from({ length: 25 }, (_, h) => h + 1))
    expect(result!.data).toEqual(nth(25, { 0: 2 }))
  })

  it('test_interval_2_day', async () => {
    const [result] = await run(await withTestEvents(), stickiness({ intervalCount: 2 }))
    expect(result!.labels).toEqual(dayLabels(5))
    expect(result!.days).toEqual([1, 2, 3, 4, 5])
    expect(result!.data).toEqual([0, 0, 0, 0, 2])
  })

  it('test_interval_2_day_filtering: periods of two days counted back from the end of the range', async () => {
    const project = await projectWith([
      ...person('p1', { $browser: 'Chrome' }, { $pageview: p1Days }),
      ...person('p2', { $browser: 'Firefox' }, { $pageview: [11, 13, 15].map((d) => day(d)) }),
    ])
    const [result] = await run(project, stickiness({ intervalCount: 2 }))
    expect(result!.days).toEqual([1, 2, 3, 4, 5])
    expect(result!.data).toEqual([0, 0, 1, 0, 1])
  })

  it('test_interval_week and test_interval_month', async () => {
    const project = await withTestEvents()
    const [week] = await run(project, stickiness({ interval: 'week' }))
    expect(week!.labels).toEqual(['1 week', '2 weeks', '3 weeks'])
    expect(week!.days).toEqual([1, 2, 3])
    expect(week!.data).toEqual([0, 0, 2])
    const [month] = await run(project, stickiness({ interval: 'month' }))
    expect(month!.labels).toEqual(['1 month'])
    expect(month!.days).toEqual([1])
    expect(month!.data).toEqual([2])
  })

  it('test_property_filtering and test_event_filtering', async () => {
    const project = await withTestEvents()
    const chrome = [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }]
    const onlyP1 = nth(10, { 8: 1 })
    expect((await run(project, stickiness({ properties: chrome })))[0]!.data).toEqual(onlyP1)
    expect((await run(project, stickiness({ series: [{ ...pageview, properties: chrome }] })))[0]!.data).toEqual(onlyP1)
  })

  it('test_any_event', async () => {
    const [result] = await run(await withTestEvents(), stickiness({ series: [{ kind: 'EventsNode', event: null }] }))
    expect(result!.label).toBe('All events')
    expect(result!.data).toEqual(nth(10, { 4: 1, 8: 1 }))
  })

  it('test_compare and test_compare_to', async () => {
    const project = await withTestEvents()
    const compared = await run(project, stickiness({ stickinessFilter: {}, compareFilter: { compare: true } }))
    expect(compared.map((r) => [r.count, r.compare_label])).toEqual([
      [2, 'current'],
      [0, 'previous'],
    ])
    const shifted = await run(
      project,
      stickiness({
        dateRange: { date_from: '2020-01-12', date_to: '2020-01-20' },
        stickinessFilter: {},
        compareFilter: { compare: true, compare_to: '-1d' },
      }),
    )
    expect(shifted.map((r) => [r.count, r.compare_label, r.data])).toEqual([
      [2, 'current', [0, 0, 0, 1, 0, 0, 0, 1, 0]],
      [2, 'previous', [0, 0, 0, 0, 1, 0, 0, 0, 1]],
    ])
  })

  it('test_criteria: an interval counts with as many events as the criterion asks', async () => {
    const project = await projectWith([
      ...person('p1', { $browser: 'Chrome' }, { $pageview: [11, 11, 13, 13, 15, 15, 17, 17, 17, 19].map((d) => day(d)) }),
      ...person('p2', { $browser: 'Chrome' }, { $pageview: [12, 12, 13, 13, 19].map((d) => day(d)) }),
    ])
    const criteria = (operator: string, value: number, date_from = '2020-01-12') =>
      stickiness({ dateRange: { date_from, date_to: '2020-01-20' }, stickinessFilter: { stickinessCriteria: { operator, value } } })
    const gte = (await run(project, criteria('gte', 2)))[0]!
    expect([gte.count, gte.data]).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0]])
    const lte = (await run(project, criteria('lte', 1)))[0]!
    expect([lte.count, lte.data]).toEqual([2, [2, 0, 0, 0, 0, 0, 0, 0, 0]])
    const exact = (await run(project, criteria('exact', 2, '2020-01-11')))[0]!
    expect([exact.count, exact.data]).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]])
  })

  it('test_filter_test_accounts', async () => {
    const project = await projectWith(testEvents, {
      test_account_filters: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }],
    })
    expect((await run(project, stickiness({ filterTestAccounts: true })))[0]!.data).toEqual(nth(10, { 8: 1 }))
  })

  it('test_group_aggregations: unique_group counts the groups', async () => {
    const series = [{ ...pageview, math: 'unique_group', math_group_type_index: 0 }]
    expect((await run(await withTestEvents(), stickiness({ series })))[0]!.data).toEqual(nth(10, { 8: 1 }))
  })

  describe('cumulative', () => {
    const threePersons = () =>
      projectWith([
        ...person('p1', {}, { $pageview: [day(11), day(12), day(13)] }),
        ...person('p2', {}, { $pageview: [day(11), day(12)] }),
        ...person('p3', {}, { $pageview: [day(11)] }),
      ])
    const cumulative = (fields: Record<string, unknown> = {}) =>
      stickiness({
        dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' },
        stickinessFilter: { computedAs: 'cumulative' },
        ...fields,
      })

    it('test_cumulative_stickiness', async () => {
      const [result] = await run(await threePersons(), cumulative())
      expect(result!.data).toEqual([3, 2, 1])
      expect(result!.count).toBe(3)
      expect(result!.labels).toEqual(dayLabels(3, ' or more'))
    })

    it('test_cumulative_stickiness_with_intervals', async () => {
      const project = await projectWith([
        ...person('p1', {}, { $pageview: [day(11, 12), day(11, 13), day(11, 14)] }),
        ...person('p2', {}, { $pageview: [day(11, 12), day(11, 13)] }),
      ])
      const [result] = await run(
        project,
        cumulative({ interval: 'hour', dateRange: { date_from: '2020-01-11T12:00:00Z', date_to: '2020-01-11T14:00:00Z' } }),
      )
      expect(result!.data).toEqual([2, 2, 1])
      expect(result!.labels).toEqual(['1 hour or more', '2 hours or more', '3 hours or more'])
    })

    it('test_cumulative_stickiness_with_property_filter', async () => {
      const project = await projectWith([
        ...person('p1', { browser: 'Chrome' }, { $pageview: [day(11), day(12), day(13)] }),
        ...person('p2', { browser: 'Safari' }, { $pageview: [day(11), day(12)] }),
      ])
      const properties = [{ key: 'browser', value: 'Chrome', operator: 'exact', type: 'event' }]
      const [result] = await run(project, cumulative({ properties }))
      expect(result!.data).toEqual([1, 1, 1])
      expect(result!.labels).toEqual(dayLabels(3, ' or more'))
    })

    it('test_cumulative_stickiness_zero_days', async () => {
      const [result] = await run(await projectWith([]), cumulative())
      expect(result!.data).toEqual([0, 0, 0])
      expect(result!.labels).toEqual(dayLabels(3, ' or more'))
    })

    it('test_cumulative_stickiness_with_criteria', async () => {
      const project = await projectWith([
        ...person('p1', {}, { $pageview: [day(11), day(11), day(12), day(12), day(13)] }),
        ...person('p2', {}, { $pageview: [day(11), day(11), day(12)] }),
        ...person('p3', {}, { $pageview: [day(11)] }),
      ])
      const [result] = await run(
        project,
        cumulative({ stickinessFilter: { computedAs: 'cumulative', stickinessCriteria: { operator: 'gte', value: 2 } } }),
      )
      expect(result!.data).toEqual([2, 1, 0])
      expect(result!.labels).toEqual(dayLabels(3, ' or more'))
    })
  })
})
