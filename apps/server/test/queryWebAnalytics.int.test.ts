import { describe, expect, it } from 'vitest'
import { useCaseProjects, type SentEvent } from './queryFixture'

/**
 * PostHog's web analytics kinds against cases from its own tests
 * (posthog/hogql_queries/web_analytics/test/*.py), each named after the test it comes from: the
 * test's events, sent through /batch/ as a client sends them, and the numbers it asserts. Each
 * case has a project of its own, as each PostHog test has a team.
 */

const { projectWith } = useCaseProjects()

/**
 * The test account filters a PostHog test team has: persons of the organisation's email domain
 * (its tests' users are @posthog.com) and events from localhost.
 */
const POSTHOG_TEST_TEAM_FILTERS = [
  { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' },
  { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
]

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

/** PostHog's stats table tests' `_create_events`: pageviews at the given days, sessions and paths (`$pathname` and `$current_url`). */
function statsEvents(data: Array<[distinctId: string, Array<[at: string, session: string, path: string]>]>): SentEvent[] {
  return data.flatMap(([distinctId, rows]) =>
    rows.map(([at, session, path]) => ({
      event: '$pageview',
      distinct_id: distinctId,
      timestamp: new Date(`${at}T00:00:00Z`).toISOString(),
      properties: {
        $session_id: session,
        $pathname: path,
        $current_url: path,
        $set: { name: distinctId, ...(distinctId === 'test' ? { email: 'test@posthog.com' } : {}) },
      },
    })),
  )
}

/**
 * Their `_create_pageviews`: one session of pageviews of `distinctId` at the given times (UTC),
 * each on https://www.example.com plus its path, then a `$pageleave` at the last one.
 */
function pageviews(distinctId: string, rows: Array<[path: string, at: string]>): SentEvent[] {
  const session = `session-${distinctId}`
  const event = (name: string, path: string, at: string): SentEvent => ({
    event: name,
    distinct_id: distinctId,
    timestamp: new Date(`${at}Z`).toISOString(),
    properties: { $session_id: session, $pathname: path, $current_url: `http://www.example.com${path}`, $set: { name: distinctId } },
  })
  const last = rows.at(-1)!
  return [...rows.map(([path, at]) => event('$pageview', path, at)), event('$pageleave', last[0], last[1])]
}

/** test_bounce_rate's three persons: p1 and p2 see several pages, p3 one. */
const BOUNCE_EVENTS = [
  ...pageviews('p1', [
    ['/a', '2023-12-02T12:00:00'],
    ['/b', '2023-12-02T12:00:01'],
    ['/c', '2023-12-02T12:00:02'],
  ]),
  ...pageviews('p2', [
    ['/a', '2023-12-02T12:00:00'],
    ['/a', '2023-12-02T12:00:01'],
    ['/b', '2023-12-02T12:00:02'],
    ['/c', '2023-12-02T12:00:03'],
  ]),
  ...pageviews('p3', [['/a', '2023-12-02T12:00:00']]),
]

const statsTable = (date_from: string, date_to: string | null, extra: Record<string, unknown> = {}) => ({
  kind: 'WebStatsTableQuery',
  dateRange: { date_from, date_to },
  properties: [],
  breakdownBy: 'Page',
  ...extra,
})

/** A PostHog utm/session test's pageview: one event of `distinctId` at `day`. */
const pageviewAt = (distinctId: string, day: string, properties: Record<string, unknown>): SentEvent => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp: new Date(`${day}T00:00:00Z`).toISOString(),
  properties,
})

const INCREASE_PATHS: Array<[string, Array<[string, string, string]>]> = [
  [
    'p1',
    [
      ['2023-12-02', 's1a', '/'],
      ['2023-12-03', 's1a', '/login'],
      ['2023-12-13', 's1b', '/docs'],
    ],
  ],
  ['p2', [['2023-12-10', 's2', '/']]],
]

describe('web_analytics/test/test_web_stats_table.py', () => {
  it('test_no_crash_when_no_data', async () => {
    const project = await projectWith([])
    const res = await project.query(statsTable('2023-12-08', '2023-12-15'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([])
    expect(res.body.columns).toEqual([
      'context.columns.breakdown_value',
      'context.columns.visitors',
      'context.columns.views',
      'context.columns.ui_fill_fraction',
      'context.columns.cross_sell',
    ])
  })

  it('test_increase_in_users', async () => {
    const project = await projectWith(statsEvents(INCREASE_PATHS))
    const res = await project.query(statsTable('2023-12-01', '2023-12-11'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['/', [2, null], [2, null], 2 / 3, ''],
      ['/login', [1, null], [1, null], 1 / 3, ''],
    ])
  })

  it('test_all_time', async () => {
    const project = await projectWith(statsEvents(INCREASE_PATHS))
    const res = await project.query(statsTable('all', '2023-12-15'))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['/', [2, null], [2, null], 2 / 4, ''],
      ['/docs', [1, null], [1, null], 1 / 4, ''],
      ['/login', [1, null], [1, null], 1 / 4, ''],
    ])
  })

  it('test_comparison', async () => {
    const project = await projectWith(statsEvents(INCREASE_PATHS))
    const res = await project.query(statsTable('2023-12-06', '2023-12-13', { compareFilter: { compare: true } }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['/', [1, 1], [1, 1], 1 / 2, ''],
      ['/docs', [1, 0], [1, 0], 1 / 2, ''],
      ['/login', [0, 1], [0, 1], 0, ''],
    ])
  })

  const testAccountPaths = statsEvents([
    [
      'test',
      [
        ['2023-12-02', 's1', '/'],
        ['2023-12-03', 's1', '/login'],
      ],
    ],
  ])

  it('test_filter_test_accounts', async () => {
    const project = await projectWith(testAccountPaths, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const res = await project.query(statsTable('2023-12-01', '2023-12-03', { filterTestAccounts: true }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([])
  })

  it('test_dont_filter_test_accounts', async () => {
    const project = await projectWith(testAccountPaths, { test_account_filters: POSTHOG_TEST_TEAM_FILTERS })
    const res = await project.query(statsTable('2023-12-01', '2023-12-03', { filterTestAccounts: false }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['/', [1, null], [1, null], 1 / 2, ''],
      ['/login', [1, null], [1, null], 1 / 2, ''],
    ])
  })

  it('test_limit: the fill fraction is of all rows, and hasMore says more are left', async () => {
    const project = await projectWith(
      statsEvents([
        [
          'p1',
          [
            ['2023-12-02', 's1', '/'],
            ['2023-12-03', 's1', '/login'],
          ],
        ],
        ['p2', [['2023-12-10', 's2', '/']]],
      ]),
    )
    const first = await project.query(statsTable('all', '2023-12-15', { limit: 1 }))
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.results).toEqual([['/', [2, null], [2, null], 2 / 3, '']])
    expect(first.body.hasMore).toBe(true)
    const second = await project.query(statsTable('all', '2023-12-15', { limit: 2 }))
    expect(second.body.results).toEqual([
      ['/', [2, null], [2, null], 2 / 3, ''],
      ['/login', [1, null], [1, null], 1 / 3, ''],
    ])
    expect(second.body.hasMore).toBe(false)
  })

  it('test_bounce_rate_one_user', async () => {
    const project = await projectWith(BOUNCE_EVENTS.filter((e) => e.distinct_id === 'p1'))
    const res = await project.query(statsTable('all', '2023-12-15', { includeBounceRate: true }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['/a', [1, 0], [1, 0], [0, null], 1 / 3, ''],
      ['/b', [1, 0], [1, 0], [null, null], 1 / 3, ''],
      ['/c', [1, 0], [1, 0], [null, null], 1 / 3, ''],
    ])
  })

  it('test_bounce_rate', async () => {
    const project = await projectWith(BOUNCE_EVENTS)
    const res = await project.query(statsTable('all', '2023-12-15', { includeBounceRate: true }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.columns).toContain('context.columns.bounce_rate')
    expect(res.body.results).toEqual([
      ['/a', [3, 0], [4, 0], [1 / 3, null], 3 / 7, ''],
      ['/b', [2, 0], [2, 0], [null, null], 2 / 7, ''],
      ['/c', [2, 0], [2, 0], [null, null], 2 / 7, ''],
    ])
  })

  it('test_bounce_rate_with_property', async () => {
    const project = await projectWith(BOUNCE_EVENTS)
    const res = await project.query(
      statsTable('all', '2023-12-15', {
        includeBounceRate: true,
        properties: [{ key: '$pathname', operator: 'exact', value: '/a', type: 'event' }],
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['/a', [3, 0], [4, 0], [1 / 3, null], 1, '']])
  })

  it('test_entry_bounce_rate', async () => {
    const project = await projectWith(BOUNCE_EVENTS)
    const res = await project.query(statsTable('all', '2023-12-15', { breakdownBy: 'InitialPage', includeBounceRate: true }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['/a', [3, null], [8, null], [1 / 3, null], 1, '']])
  })

  it('test_entry_bounce_rate_with_property', async () => {
    const project = await projectWith(BOUNCE_EVENTS)
    const res = await project.query(
      statsTable('all', '2023-12-15', {
        breakdownBy: 'InitialPage',
        includeBounceRate: true,
        properties: [{ key: '$pathname', operator: 'exact', value: '/a', type: 'event' }],
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['/a', [3, null], [4, null], [1 / 3, null], 1, '']])
  })

  const utmEvents = [
    pageviewAt('d1', '2024-06-26', { $session_id: 's1', utm_source: 'google' }),
    pageviewAt('d2', '2024-06-26', { $session_id: 's2' }),
  ]

  it('test_null_in_utm_tags: sessions without the tag are a null row', async () => {
    const project = await projectWith(utmEvents)
    const res = await project.query(statsTable('all', '2024-06-27', { breakdownBy: 'InitialUTMSource' }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      ['google', [1, null], [1, null], 1 / 2, ''],
      [null, [1, null], [1, null], 1 / 2, ''],
    ])
  })

  it('test_is_not_set_filter', async () => {
    const project = await projectWith(utmEvents)
    const res = await project.query(
      statsTable('all', '2024-06-27', { breakdownBy: 'InitialUTMSource', properties: [{ key: 'utm_source', operator: 'is_not_set' }] }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([[null, [1, null], [1, null], 1, '']])
  })

  it('test_same_user_multiple_sessions', async () => {
    const project = await projectWith([
      pageviewAt('d1', '2024-07-30', { $session_id: 's1', utm_source: 'google', $pathname: '/path' }),
      pageviewAt('d1', '2024-07-30', { $session_id: 's2', utm_source: 'google', $pathname: '/path' }),
    ])
    const bySource = await project.query(statsTable('all', '2024-07-31', { breakdownBy: 'InitialUTMSource' }))
    expect(bySource.body.results).toEqual([['google', [1, null], [2, null], 1, '']])
    const byPage = await project.query(statsTable('all', '2024-07-31'))
    expect(byPage.body.results).toEqual([['/path', [1, null], [2, null], 1, '']])
    const withBounce = await project.query(statsTable('all', '2024-07-31', { includeBounceRate: true }))
    expect(withBounce.body.results).toEqual([['/path', [1, 0], [2, 0], [null, null], 1, '']])
  })

  it('test_no_session_id: pages count events of no session, session breakdowns do not', async () => {
    const project = await projectWith([pageviewAt('d1', '2024-07-30', { utm_source: 'google', $pathname: '/path' })])
    const entry = await project.query(statsTable('all', '2024-07-31', { breakdownBy: 'InitialPage' }))
    expect(entry.status, JSON.stringify(entry.body)).toBe(200)
    expect(entry.body.results).toEqual([])
    const page = await project.query(statsTable('all', '2024-07-31'))
    expect(page.body.results).toEqual([['/path', [1, null], [1, null], 1, '']])
  })

  it('test_bounce_rate_with_multiple_pathname_filters: each page’s bounce rate is of the sessions entering on it', async () => {
    const project = await projectWith([
      ...pageviews('user1', [
        ['/onboarding/portfolio-selection', '2023-12-02T12:00:00'],
        ['/', '2023-12-02T12:00:30'],
      ]),
      ...pageviews('user2', [['/', '2023-12-02T12:00:00']]),
      ...pageviews('user3', [['/onboarding/portfolio-selection', '2023-12-02T12:00:00']]),
      ...pageviews('user4', [
        ['/onboarding/goals', '2023-12-02T12:00:30'],
        ['/onboarding/funding', '2023-12-02T12:01:00'],
      ]),
    ])
    const res = await project.query(
      statsTable('all', '2023-12-15', {
        includeBounceRate: true,
        properties: [{ key: '$pathname', operator: 'exact', value: ['/onboarding/portfolio-selection', '/'], type: 'event' }],
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const bounceOf = (path: string) => res.body.results.find((r: any) => r[0] === path)?.[3][0]
    expect(res.body.results).toHaveLength(2)
    expect(bounceOf('/onboarding/portfolio-selection')).toBe(0.5)
    expect(bounceOf('/')).toBe(1)
  })

  const pathsOf = (res: { body: any }) => res.body.results.map((r: any) => r[0])

  it('test_sorting_by_visitors', async () => {
    const project = await projectWith(
      statsEvents([
        ['p1', [['2023-12-01', 's1', '/path1']]],
        [
          'p2',
          [
            ['2023-12-01', 's2', '/path1'],
            ['2023-12-01', 's2', '/path2'],
          ],
        ],
        [
          'p3',
          [
            ['2023-12-01', 's3', '/path1'],
            ['2023-12-01', 's3', '/path2'],
            ['2023-12-01', 's3', '/path3'],
          ],
        ],
      ]),
    )
    expect(pathsOf(await project.query(statsTable('all', '2023-12-15', { orderBy: ['Visitors', 'ASC'] })))).toEqual([
      '/path3',
      '/path2',
      '/path1',
    ])
    expect(pathsOf(await project.query(statsTable('all', '2023-12-15', { orderBy: ['Visitors', 'DESC'] })))).toEqual([
      '/path1',
      '/path2',
      '/path3',
    ])
  })

  it('test_sorting_by_views', async () => {
    const project = await projectWith(
      statsEvents([
        ['p1', [['2023-12-01', 's1', '/path1']]],
        [
          'p2',
          [
            ['2023-12-01', 's2', '/path2'],
            ['2023-12-01', 's2', '/path2'],
          ],
        ],
        [
          'p3',
          [
            ['2023-12-01', 's3', '/path3'],
            ['2023-12-01', 's3', '/path3'],
            ['2023-12-01', 's3', '/path3'],
          ],
        ],
      ]),
    )
    expect(pathsOf(await project.query(statsTable('all', '2023-12-15', { orderBy: ['Views', 'ASC'] })))).toEqual([
      '/path1',
      '/path2',
      '/path3',
    ])
    expect(pathsOf(await project.query(statsTable('all', '2023-12-15', { orderBy: ['Views', 'DESC'] })))).toEqual([
      '/path3',
      '/path2',
      '/path1',
    ])
  })

  it('test_sorting_by_bounce_rate', async () => {
    const project = await projectWith([
      ...pageviews('p1', [['/path1', '2023-12-02T12:00:00']]),
      ...pageviews('p2', [
        ['/path2', '2023-12-02T12:00:00'],
        ['/path2', '2023-12-02T12:00:01'],
      ]),
      ...pageviews('p3', [
        ['/path3', '2023-12-02T12:00:00'],
        ['/path3', '2023-12-02T12:00:01'],
        ['/path3', '2023-12-02T12:00:02'],
      ]),
    ])
    const sorted = async (direction: string) =>
      pathsOf(await project.query(statsTable('all', '2023-12-15', { includeBounceRate: true, orderBy: ['BounceRate', direction] })))
    expect(await sorted('ASC')).toEqual(['/path2', '/path3', '/path1'])
    expect(await sorted('DESC')).toEqual(['/path1', '/path3', '/path2'])
  })

  it('breaks down by the view’s country, device, browser and OS, and by the session’s first referrer and UTM tags', async () => {
    const view = (distinctId: string, session: string, minute: number, properties: Record<string, unknown>): SentEvent => ({
      event: '$pageview',
      distinct_id: distinctId,
      timestamp: new Date(Date.UTC(2024, 5, 26, 10, minute)).toISOString(),
      properties: { $session_id: session, ...properties },
    })
    const desktop = { $geoip_country_code: 'US', $device_type: 'Desktop', $browser: 'Chrome', $os: 'Mac OS X' }
    const mobile = { $geoip_country_code: 'DE', $device_type: 'Mobile', $browser: 'Safari', $os: 'iOS' }
    const project = await projectWith([
      // d1 comes from google in a campaign, then views a second page from within the site.
      view('d1', 's1', 0, { ...desktop, $referring_domain: 'google.com', utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'summer' }),
      view('d1', 's1', 1, { ...desktop, $referring_domain: 'example.com' }),
      view('d2', 's2', 0, { ...mobile, $referring_domain: 'news.ycombinator.com', utm_medium: 'referral' }),
      view('d3', 's3', 0, { ...mobile, $referring_domain: 'news.ycombinator.com' }),
    ])
    const rows = async (breakdownBy: string) => {
      const res = await project.query(statsTable('2024-06-26', '2024-06-26', { breakdownBy }))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.results.map((r: any) => [r[0], r[1][0], r[2][0]])
    }
    expect(await rows('Country')).toEqual([
      ['DE', 2, 2],
      ['US', 1, 2],
    ])
    expect(await rows('DeviceType')).toEqual([
      ['Mobile', 2, 2],
      ['Desktop', 1, 2],
    ])
    expect(await rows('Browser')).toEqual([
      ['Safari', 2, 2],
      ['Chrome', 1, 2],
    ])
    expect(await rows('OS')).toEqual([
      ['iOS', 2, 2],
      ['Mac OS X', 1, 2],
    ])
    expect(await rows('InitialReferringDomain')).toEqual([
      ['news.ycombinator.com', 2, 2],
      ['google.com', 1, 2],
    ])
    // Ties by visitors and views go by the value, ascending, no value last (ClickHouse's order, as PostHog's).
    expect(await rows('InitialUTMMedium')).toEqual([
      ['cpc', 1, 2],
      ['referral', 1, 1],
      [null, 1, 1],
    ])
    expect(await rows('InitialUTMCampaign')).toEqual([
      [null, 2, 2],
      ['summer', 1, 2],
    ])
  })

  it('refuses the breakdowns and options it does not apply, naming each', async () => {
    const project = await projectWith([])
    for (const [field, value] of [
      ['breakdownBy', 'InitialChannelType'],
      ['includeScrollDepth', true],
      ['conversionGoal', { customEventName: 'purchase' }],
      ['doPathCleaning', true],
    ] as const) {
      const res = await project.query(statsTable('2023-12-01', '2023-12-03', { [field]: value }))
      expect(res.status, field).toBe(400)
      expect(res.body.attr).toBe(`query__${field}`)
    }
  })
})
