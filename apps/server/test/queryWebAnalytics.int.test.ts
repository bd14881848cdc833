import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { postQuery, sendAll, type SentEvent } from './queryFixture'
import { useTestService, type TestService } from './service'

/**
 * PostHog's web analytics kinds against cases from its own tests
 * (posthog/hogql_queries/web_analytics/test/*.py), each named after the test it comes from: the
 * test's events, sent through /batch/ as a client sends them, and the numbers it asserts. Each
 * case has a project of its own, as each PostHog test has a team.
 */

let service: TestService
/** These files ask far more queries a minute than PostHog lets a client: its query throttle is lifted here. */
const QUERY_LIMITS = { QUERY_RATE_LIMIT_PER_MINUTE: 1_000_000, QUERY_RATE_LIMIT_PER_HOUR: 1_000_000 }
useTestService((s) => {
  service = s
}, QUERY_LIMITS)

/**
 * The test account filters a PostHog test team has: persons of the organisation's email domain
 * (its tests' users are @posthog.com) and events from localhost.
 */
const POSTHOG_TEST_TEAM_FILTERS = [
  { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' },
  { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
]

interface Project {
  account: TestAccount
  query(query: Record<string, unknown>): Promise<{ status: number; body: any }>
}

/** A new project holding `events`, with `settings` set first. */
async function projectWith(events: SentEvent[], settings: Record<string, unknown> = {}): Promise<Project> {
  const account = await service.account()
  if (Object.keys(settings).length > 0) {
    const res = await service.api(account, `/api/projects/${account.projectId}/`, { method: 'PATCH', body: JSON.stringify(settings) })
    if (res.status !== 200) throw new Error(`setting ${Object.keys(settings).join(', ')} answered ${res.status}`)
  }
  if (events.length > 0) await sendAll(service, account, events, 0, 0)
  return { account, query: (query) => postQuery(service, account, { query, refresh: 'force_blocking' }) }
}

/**
 * PostHog's web overview tests' `_create_events`: for each person, events at the given times in
 * the given sessions; the person `test` has the email of a test account.
 */
function overviewEvents(data: Array<[distinctId: string, Array<[at: string, session: string]>]>, event = '$pageview'): SentEvent[] {
  return data.flatMap(([distinctId, rows]) =>
    rows.map(([at, session]) => ({
      event,
      distinct_id: distinctId,
      timestamp: new Date(`${at}T00:00:00Z`).toISOString(),
      properties: {
        $session_id: session,
        $set: { name: distinctId, ...(distinctId === 'test' ? { email: 'test@posthog.com' } : {}) },
      },
    })),
  )
}

const overview = (date_from: string, date_to: string, extra: Record<string, unknown> = {}) => ({
  kind: 'WebOverviewQuery',
  dateRange: { date_from, date_to },
  properties: [],
  compareFilter: { compare: true },
  ...extra,
})

/** The items by key: value, previous and change. */
function tiles(body: any): Record<string, { value: unknown; previous: unknown; changeFromPreviousPct: unknown }> {
  return Object.fromEntries(
    (body.results as any[]).map((r) => [r.key, { value: r.value, previous: r.previous, changeFromPreviousPct: r.changeFromPreviousPct }]),
  )
}

/** The three persons' sessions of test_increase_in_users and its neighbours. */
const INCREASE_IN_USERS: Array<[string, Array<[string, string]>]> = [
  [
    'p1',
    [
      ['2023-12-02', 's1a'],
      ['2023-12-03', 's1a'],
      ['2023-12-12', 's1b'],
    ],
  ],
  ['p2', [['2023-12-11', 's2']]],
]

describe('web_analytics/test/test_web_overview.py', () => {
  it('test_no_crash_when_no_data: the five tiles, in PostHog’s order and shape', async () => {
    const project = await projectWith([])
    const res = await project.query(overview('2023-12-08', '2023-12-15'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((r: any) => r.key)).toEqual(['visitors', 'views', 'sessions', 'session duration', 'bounce rate'])
    expect(res.body.results.map((r: any) => r.kind)).toEqual(['unit', 'unit', 'unit', 'duration_s', 'percentage'])
    expect(res.body.results[4]).toEqual({
      key: 'bounce rate',
      kind: 'percentage',
      isIncreaseBad: true,
      value: null,
      previous: null,
      changeFromPreviousPct: null,
    })
    expect(res.body).toMatchObject({ samplingRate: { numerator: 1 }, usedPreAggregatedTables: false })
  })

  it('test_increase_in_users', async () => {
    const project = await projectWith(overviewEvents(INCREASE_IN_USERS))
    const res = await project.query(overview('2023-12-08', '2023-12-15'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(tiles(res.body)).toEqual({
      visitors: { value: 2, previous: 1, changeFromPreviousPct: 100 },
      views: { value: 2, previous: 2, changeFromPreviousPct: 0 },
      sessions: { value: 2, previous: 1, changeFromPreviousPct: 100 },
      'session duration': { value: 0, previous: 86400, changeFromPreviousPct: -100 },
      'bounce rate': { value: 100, previous: 0, changeFromPreviousPct: null },
    })
  })

  it('test_increase_in_users_using_mobile: $screen events are views too', async () => {
    const project = await projectWith(overviewEvents(INCREASE_IN_USERS, '$screen'))
    const res = await project.query(overview('2023-12-08', '2023-12-15'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // PostHog's test asks for its uniq_page_screen_autocaptures bounce mode (a modifier refused
    // here) for the bounce rate; the other tiles are the same in every mode.
    const t = tiles(res.body)
    expect(t.visitors).toEqual({ value: 2, previous: 1, changeFromPreviousPct: 100 })
    expect(t.views).toEqual({ value: 2, previous: 2, changeFromPreviousPct: 0 })
    expect(t.sessions).toEqual({ value: 2, previous: 1, changeFromPreviousPct: 100 })
    expect(t['session duration']).toEqual({ value: 0, previous: 86400, changeFromPreviousPct: -100 })
  })

  it('test_all_time: from the first event, nothing to compare', async () => {
    const project = await projectWith(overviewEvents(INCREASE_IN_USERS))
    const res = await project.query(overview('all', '2023-12-15', { compareFilter: undefined }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const t = tiles(res.body)
    expect(t.visitors).toEqual({ value: 2, previous: null, changeFromPreviousPct: null })
    expect(t.views).toEqual({ value: 4, previous: null, changeFromPreviousPct: null })
    expect(t.sessions).toEqual({ value: 3, previous: null, changeFromPreviousPct: null })
    expect(t['session duration']).toEqual({ value: 86400 / 3, previous: null, changeFromPreviousPct: null })
    expect(t['bounce rate']!.value).toBeCloseTo((100 * 2) / 3)
    expect(t['bounce rate']!.previous).toBeNull()
  })

  it('test_comparison', async () => {
    const project = await projectWith(overviewEvents(INCREASE_IN_USERS))
    const res = await project.query(overview('2023-12-06', '2023-12-13'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(tiles(res.body)).toEqual({
      visitors: { value: 2, previous: 1, changeFromPreviousPct: 100 },
      views: { value: 2, previous: 2, changeFromPreviousPct: 0 },
      sessions: { value: 2, previous: 1, changeFromPreviousPct: 100 },
      'session duration': { value: 0, previous: 86400, changeFromPreviousPct: -100 },
      'bounce rate': { value: 100, previous: 0, changeFromPreviousPct: null },
    })
  })

  const testAccount = overviewEvents([
    [
      'test',
      [
        ['2023-12-02', 's1'],
        ['2023-12-03', 's1'],
      ],
    ],
  ])

  it('test_filter_test_accounts', async () => {
    const project = await projectWith(testAccount, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const res = await project.query(overview('2023-12-01', '2023-12-03', { filterTestAccounts: true }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const t = tiles(res.body)
    expect([t.visitors!.value, t.views!.value, t.sessions!.value, t['session duration']!.value, t['bounce rate']!.value]).toEqual([
      0,
      0,
      0,
      null,
      null,
    ])
  })

  it('test_dont_filter_test_accounts', async () => {
    const project = await projectWith(testAccount, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const res = await project.query(overview('2023-12-01', '2023-12-03', { filterTestAccounts: false }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(tiles(res.body).visitors!.value).toBe(1)
  })

  it('test_correctly_counts_pageviews_in_long_running_session', async () => {
    const project = await projectWith(
      overviewEvents([
        [
          'p1',
          [
            ['2023-12-01', 's1'],
            ['2023-12-02', 's1'],
            ['2023-12-03', 's1'],
          ],
        ],
      ]),
    )
    const res = await project.query(overview('2023-12-01', '2023-12-03'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const t = tiles(res.body)
    expect([t.visitors!.value, t.views!.value, t.sessions!.value]).toEqual([1, 3, 1])
  })

  it('refuses the options it does not apply, naming each', async () => {
    const project = await projectWith([])
    for (const [field, value] of [
      ['conversionGoal', { customEventName: 'purchase' }],
      ['includeRevenue', true],
      ['doPathCleaning', true],
      ['sampling', { enabled: true }],
    ] as const) {
      const res = await project.query(overview('2023-12-01', '2023-12-03', { [field]: value }))
      expect(res.status, field).toBe(400)
      expect(res.body.attr).toBe(`query__${field}`)
    }
  })
})
