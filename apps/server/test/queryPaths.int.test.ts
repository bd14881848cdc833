import { describe, expect, it } from 'vitest'
import { useCaseProjects, type CaseProject, type SentEvent } from './queryFixture'

/**
 * PathsQuery: cases from PostHog's own paths tests, each named after the test it comes from: the
 * test's events, sent through /batch/ as a client sends them, and the links it asserts. PostHog's
 * tests freeze the clock; where a case's range counts from "now", it is given here as the dates
 * that frozen clock made of it. Events PostHog's tests create without a time (at "now") are sent
 * a second apart, in the test's order, three hours back.
 */

const cases = useCaseProjects()
const { projectWith } = cases

const ONE_MINUTE = 60_000

/** A PostHog test's event: a page view, a screen or another event. */
const pageview = (distinctId: string, url: string, timestamp: string, properties: Record<string, unknown> = {}): SentEvent => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp: new Date(`${timestamp.replace(' ', 'T')}Z`).toISOString(),
  properties: { $current_url: url, ...properties },
})
const screen = (distinctId: string, name: string, timestamp: string): SentEvent => ({
  event: '$screen',
  distinct_id: distinctId,
  timestamp: new Date(`${timestamp.replace(' ', 'T')}Z`).toISOString(),
  properties: { $screen_name: name },
})
const custom = (distinctId: string, event: string, timestamp: string): SentEvent => ({
  event,
  distinct_id: distinctId,
  timestamp: new Date(`${timestamp.replace(' ', 'T')}Z`).toISOString(),
  properties: {},
})

/** Events PostHog's tests make at "now", in their order: a second apart, three hours back. */
function recent(events: Array<[event: string, distinctId: string, properties?: Record<string, unknown>]>): SentEvent[] {
  const start = Math.floor(Date.now() / 1000) * 1000 - 3 * 3_600_000
  return events.map(([event, distinct_id, properties = {}], i) => ({
    event,
    distinct_id,
    timestamp: new Date(start + i * 1000).toISOString(),
    properties,
  }))
}

/**
 * A project with `events` in which `merged` distinct ids are one person each (PostHog's
 * `_create_person(distinct_ids=[a, b])`): b is identified as a, by an `$identify` long before any range.
 */
async function pathsProject(events: SentEvent[], merged: Array<[string, string]> = [], settings: Record<string, unknown> = {}) {
  const identifies: SentEvent[] = merged.map(([id, anon]) => ({
    event: '$identify',
    distinct_id: id,
    timestamp: '2000-01-01T00:00:00.000Z',
    properties: { $anon_distinct_id: anon },
  }))
  const project = await projectWith([...events, ...identifies], settings)
  for (const [id, anon] of merged) {
    await cases.service.personOf(project.account, anon, (p) => (p.distinct_ids as string[]).includes(id))
  }
  return project
}

/** The links of a PathsQuery's answer (asserting it is answered). */
async function paths(project: CaseProject, query: Record<string, unknown>): Promise<any[]> {
  const res = await project.query({ kind: 'PathsQuery', ...query })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.results as any[]
}

/** Each link as [source, target, value]. */
const links = (rows: any[]) => rows.map((r) => [r.source, r.target, r.value])

describe('posthog/hogql_queries/insights/test/test_paths_query_runner.py', () => {
  it('test_current_url_paths_and_logic: links, date ranges, and test accounts left out', async () => {
    const project = await pathsProject(
      [
        pageview('fake', '/', '2012-01-01 03:21:34'),
        pageview('fake', '/about', '2012-01-01 03:21:34'),
        pageview('person_1', '/', '2012-01-14 03:21:34', { $set: { email: 'test@posthog.com' } }),
        pageview('person_1', '/about', '2012-01-14 03:28:34'),
        pageview('person_2a', '/', '2012-01-14 03:21:34'),
        pageview('person_2b', '/pricing', '2012-01-14 03:28:34'),
        pageview('person_2a', '/about', '2012-01-14 03:29:34'),
        pageview('person_3', '/pricing', '2012-01-14 03:21:34'),
        pageview('person_3', '/', '2012-01-14 03:28:34'),
        pageview('person_4', '/', '2012-01-14 03:21:34'),
        pageview('person_4', '/pricing', '2012-01-14 03:28:34'),
      ],
      [['person_2a', 'person_2b']],
      {
        // PostHog's test team's filters.
        test_account_filters: [
          { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' },
          { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
        ],
      },
    )
    // Frozen at 2012-01-15 03:21:34: the default range is 2012-01-08 to 2012-01-15.
    const response = await paths(project, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-15' }, pathsFilter: {} })
    expect(links(response)).toEqual([
      ['1_/', '2_/pricing', 2],
      ['1_/', '2_/about', 1],
      ['1_/pricing', '2_/', 1],
      ['2_/pricing', '3_/about', 1],
    ])
    const count = async (dateRange: Record<string, string>, extra: Record<string, unknown> = {}) =>
      (await paths(project, { dateRange, pathsFilter: {}, ...extra })).length
    expect(await count({ date_from: '2012-01-08' })).toBe(4)
    // A start after the end (now): no links, as PostHog answers.
    expect(await count({ date_from: '2012-01-22', date_to: '2012-01-15' })).toBe(0)
    expect(await count({ date_from: '2012-01-08', date_to: '2012-01-08' })).toBe(0)
    expect(await count({ date_from: '2012-01-08', date_to: '2012-01-22' })).toBe(4)
    expect(await count({ date_from: '2012-01-08', date_to: '2012-01-22' }, { filterTestAccounts: true })).toBe(3)
    expect(await count({ date_from: '2012-01-22', date_to: '2012-01-08' })).toBe(0)
  })

  it('test_custom_event_paths', async () => {
    const project = await pathsProject(
      recent([
        ['custom_event_1', 'person_1'],
        ['custom_event_3', 'person_1'],
        ['$pageview', 'person_1', { $current_url: '/' }],
        ['custom_event_1', 'person_2'],
        ['custom_event_2', 'person_2'],
        ['custom_event_3', 'person_2'],
        ['custom_event_2', 'person_3'],
        ['custom_event_1', 'person_3'],
        ['custom_event_1', 'person_4'],
        ['custom_event_2', 'person_4'],
      ]),
    )
    const response = await paths(project, { pathsFilter: { includeEventTypes: ['custom_event'] } })
    expect(links(response)).toEqual([
      ['1_custom_event_1', '2_custom_event_2', 2],
      ['1_custom_event_1', '2_custom_event_3', 1],
      ['1_custom_event_2', '2_custom_event_1', 1],
      ['2_custom_event_2', '3_custom_event_3', 1],
    ])
  })

  it('test_screen_paths', async () => {
    const project = await pathsProject(
      recent([
        ['$screen', 'person_1', { $screen_name: '/' }],
        ['$screen', 'person_1', { $screen_name: '/about' }],
        ['$screen', 'person_2b', { $screen_name: '/' }],
        ['$screen', 'person_2a', { $screen_name: '/pricing' }],
        ['$screen', 'person_2b', { $screen_name: '/about' }],
        ['$screen', 'person_3', { $screen_name: '/pricing' }],
        ['$screen', 'person_3', { $screen_name: '/' }],
        ['$screen', 'person_4', { $screen_name: '/' }],
        ['$screen', 'person_4', { $screen_name: '/pricing' }],
      ]),
      [['person_2a', 'person_2b']],
    )
    const response = await paths(project, { pathsFilter: { includeEventTypes: ['$screen'] } })
    expect(links(response)).toEqual([
      ['1_/', '2_/pricing', 2],
      ['1_/', '2_/about', 1],
      ['1_/pricing', '2_/', 1],
      ['2_/pricing', '3_/about', 1],
    ])
  })

  it('test_paths_properties_filter', async () => {
    const project = await pathsProject(
      recent([
        ['$pageview', 'person_1', { $current_url: '/', $browser: 'Chrome' }],
        ['$pageview', 'person_1', { $current_url: '/about', $browser: 'Chrome' }],
        ['$pageview', 'person_2', { $current_url: '/', $browser: 'Chrome' }],
        ['$pageview', 'person_2', { $current_url: '/pricing', $browser: 'Chrome' }],
        ['$pageview', 'person_2', { $current_url: '/about', $browser: 'Chrome' }],
        ['$pageview', 'person_3', { $current_url: '/pricing' }],
        ['$pageview', 'person_3', { $current_url: '/' }],
        ['$pageview', 'person_4', { $current_url: '/' }],
        ['$pageview', 'person_4', { $current_url: '/pricing' }],
      ]),
    )
    const response = await paths(project, {
      pathsFilter: {},
      properties: {
        type: 'AND',
        values: [{ type: 'AND', values: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }] }],
      },
    })
    expect(links(response)).toEqual([
      ['1_/', '2_/about', 1],
      ['1_/', '2_/pricing', 1],
      ['2_/pricing', '3_/about', 1],
    ])
  })

  it('test_paths_start: from a start point, with or without its trailing slash', async () => {
    const project = await pathsProject(
      recent([
        ['$pageview', 'person_1', { $current_url: '/' }],
        ['$pageview', 'person_1', { $current_url: '/about/' }],
        ['$pageview', 'person_2', { $current_url: '/' }],
        ['$pageview', 'person_2', { $current_url: '/pricing/' }],
        ['$pageview', 'person_2', { $current_url: '/about' }],
        ['$pageview', 'person_3', { $current_url: '/pricing' }],
        ['$pageview', 'person_3', { $current_url: '/' }],
        ['$pageview', 'person_3', { $current_url: '/about/' }],
        ['$pageview', 'person_4', { $current_url: '/' }],
        ['$pageview', 'person_4', { $current_url: '/pricing/' }],
        ['$pageview', 'person_5a', { $current_url: '/pricing' }],
        ['$pageview', 'person_5b', { $current_url: '/about' }],
        ['$pageview', 'person_5a', { $current_url: '/pricing/' }],
        ['$pageview', 'person_5b', { $current_url: '/help' }],
      ]),
      [['person_5a', 'person_5b']],
    )
    const fromPricing = [
      ['1_/pricing', '2_/about', 2],
      ['1_/pricing', '2_/', 1],
      ['2_/', '3_/about', 1],
      ['2_/about', '3_/pricing', 1],
      ['3_/pricing', '4_/help', 1],
    ]
    expect(links(await paths(project, { pathsFilter: { startPoint: '/pricing' } }))).toEqual(fromPricing)
    expect(links(await paths(project, { pathsFilter: { startPoint: '/pricing/' } }))).toEqual(fromPricing)
    expect(links(await paths(project, { pathsFilter: { startPoint: '/' } }))).toEqual([
      ['1_/', '2_/about', 2],
      ['1_/', '2_/pricing', 2],
      ['2_/pricing', '3_/about', 1],
    ])
  })

  it('test_paths_in_window: a path walked on two days counts twice', async () => {
    const project = await pathsProject([
      pageview('person_1', '/', '2020-04-14 03:25:34'),
      pageview('person_1', '/about', '2020-04-14 03:30:34'),
      pageview('person_1', '/', '2020-04-15 03:25:34'),
      pageview('person_1', '/about', '2020-04-15 03:30:34'),
    ])
    const res = await project.query({ kind: 'PathsQuery', dateRange: { date_from: '2020-04-13' }, pathsFilter: {} })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(links(res.body.results)[0]).toEqual(['1_/', '2_/about', 2])
    // The range as it was read: from the start of its first day (the project's zone is UTC).
    expect(res.body.resolved_date_range.date_from).toMatch(/^2020-04-13T00:00:00(\.000)?(Z|\+00:00)$/)
  })
})

describe('ee/clickhouse/queries/test/test_paths.py (PostHog’s paths cases, as its PathsQuery runner answers them)', () => {
  const steps = [
    pageview('fake', '/1', '2012-01-01 03:21:34'),
    pageview('fake', '/2', '2012-01-01 03:22:34'),
    pageview('fake', '/3', '2012-01-01 03:24:34'),
    pageview('fake', '/4', '2012-01-01 03:27:34'),
  ]

  it('test_step_limit', async () => {
    const project = await pathsProject(steps)
    // Frozen at 2012-01-07 03:21:34: the default range is 2011-12-31 to 2012-01-07.
    const dateRange = { date_from: '2011-12-31', date_to: '2012-01-07' }
    const withLimit = (stepLimit: number) => paths(project, { dateRange, pathsFilter: { stepLimit } })
    expect(await withLimit(2)).toEqual([{ source: '1_/1', target: '2_/2', value: 1, average_conversion_time: ONE_MINUTE }])
    expect(await withLimit(3)).toEqual([
      { source: '1_/1', target: '2_/2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 1, average_conversion_time: 2 * ONE_MINUTE },
    ])
    expect(await withLimit(4)).toEqual([
      { source: '1_/1', target: '2_/2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 1, average_conversion_time: 2 * ONE_MINUTE },
      { source: '3_/3', target: '4_/4', value: 1, average_conversion_time: 3 * ONE_MINUTE },
    ])
  })

  // Not a PostHog case: its date ranges as every insight reads them.
  it('dateRange.explicitDate takes the range to the second, where the range is otherwise whole days', async () => {
    const project = await pathsProject(steps)
    const fromSecondStep = { date_from: '2012-01-01 03:22:00', date_to: '2012-01-01 03:25:00' }
    expect(links(await paths(project, { dateRange: fromSecondStep, pathsFilter: {} }))).toEqual([
      ['1_/1', '2_/2', 1],
      ['2_/2', '3_/3', 1],
      ['3_/3', '4_/4', 1],
    ])
    expect(links(await paths(project, { dateRange: { ...fromSecondStep, explicitDate: true }, pathsFilter: {} }))).toEqual([
      ['1_/2', '2_/3', 1],
    ])
  })

  it('test_step_conversion_times', async () => {
    const project = await pathsProject([
      ...steps,
      pageview('fake2', '/1', '2012-01-01 03:21:34'),
      pageview('fake2', '/2', '2012-01-01 03:23:34'),
      pageview('fake2', '/3', '2012-01-01 03:27:34'),
    ])
    const response = await paths(project, {
      dateRange: { date_from: '2012-01-01' },
      pathsFilter: { stepLimit: 4, includeEventTypes: ['$pageview'] },
    })
    expect(response).toEqual([
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: 1.5 * ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 2, average_conversion_time: 3 * ONE_MINUTE },
      { source: '3_/3', target: '4_/4', value: 1, average_conversion_time: 3 * ONE_MINUTE },
    ])
  })

  it('test_event_ordering: paths of many persons stay in their order', async () => {
    const events: SentEvent[] = []
    for (let i = 0; i < 50; i++) {
      events.push(
        custom(`user_${i}`, 'step one', '2021-05-01 00:00:00'),
        custom(`user_${i}`, 'step two', '2021-05-01 00:01:00'),
        custom(`user_${i}`, 'step three', '2021-05-01 00:02:00'),
      )
      if (i % 2 === 0) events.push(custom(`user_${i}`, 'step branch', '2021-05-01 00:03:00'))
    }
    const project = await pathsProject(events)
    const response = await paths(project, {
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
      pathsFilter: { includeEventTypes: ['custom_event'] },
    })
    expect(response).toEqual([
      { source: '1_step one', target: '2_step two', value: 50, average_conversion_time: ONE_MINUTE },
      { source: '2_step two', target: '3_step three', value: 50, average_conversion_time: ONE_MINUTE },
      { source: '3_step three', target: '4_step branch', value: 25, average_conversion_time: ONE_MINUTE },
    ])
  })

  const toAbout = [
    pageview('person_1', '/1', '2021-05-01 00:01:00'),
    pageview('person_1', '/2', '2021-05-01 00:02:00'),
    pageview('person_1', '/3', '2021-05-01 00:03:00'),
    pageview('person_1', '/4', '2021-05-01 00:04:00'),
    pageview('person_1', '/5', '2021-05-01 00:05:00'),
    pageview('person_1', '/about', '2021-05-01 00:06:00'),
    pageview('person_1', '/after', '2021-05-01 00:07:00'),
    pageview('person_2', '/5', '2021-05-01 00:01:00'),
    pageview('person_2', '/about', '2021-05-01 00:02:00'),
    pageview('person_3', '/3', '2021-05-01 00:01:00'),
    pageview('person_3', '/4', '2021-05-01 00:02:00'),
    pageview('person_3', '/about', '2021-05-01 00:03:00'),
    pageview('person_3', '/after', '2021-05-01 00:04:00'),
  ]
  const may = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }

  it('test_paths_end: the last steps up to an end point', async () => {
    const project = await pathsProject(toAbout)
    const response = await paths(project, { dateRange: may, pathsFilter: { includeEventTypes: ['$pageview'], endPoint: '/about' } })
    expect(response).toEqual(
      [
        ['1_/2', '2_/3'],
        ['1_/3', '2_/4'],
        ['1_/5', '2_/about'],
        ['2_/3', '3_/4'],
        ['2_/4', '3_/about'],
        ['3_/4', '4_/5'],
        ['4_/5', '5_/about'],
      ].map(([source, target]) => ({ source, target, value: 1, average_conversion_time: ONE_MINUTE })),
    )
  })

  it('test_paths_start_and_end', async () => {
    const project = await pathsProject(toAbout)
    const response = await paths(project, {
      dateRange: may,
      pathsFilter: { includeEventTypes: ['$pageview'], startPoint: '/5', endPoint: '/about' },
    })
    expect(response).toEqual([{ source: '1_/5', target: '2_/about', value: 2, average_conversion_time: ONE_MINUTE }])
  })

  it('a saved Paths insight answers its links, from its query or from legacy filters (test_paths_end’s)', async () => {
    const project = await pathsProject(toAbout)
    const save = async (body: Record<string, unknown>) => {
      const res = await cases.service.api(project.account, `/api/projects/${project.account.projectId}/insights/`, {
        method: 'POST',
        body: JSON.stringify(body),
      })
      const json = await res.json()
      expect(res.status, JSON.stringify(json)).toBe(201)
      return json
    }
    const expected = await paths(project, { dateRange: may, pathsFilter: { includeEventTypes: ['$pageview'], endPoint: '/about' } })
    const fromQuery = await save({
      name: 'To about',
      query: {
        kind: 'InsightVizNode',
        source: { kind: 'PathsQuery', dateRange: may, pathsFilter: { includeEventTypes: ['$pageview'], endPoint: '/about' } },
      },
    })
    expect(fromQuery.result).toEqual(expected)
    const fromFilters = await save({
      name: 'To about (legacy)',
      filters: { insight: 'PATHS', include_event_types: ['$pageview'], end_point: '/about', ...may },
    })
    expect(fromFilters.query.source).toMatchObject({ kind: 'PathsQuery', pathsFilter: { endPoint: '/about' } })
    expect(fromFilters.result).toEqual(expected)
  })

  const byKind = [
    pageview('p1', '/1', '2012-01-01 03:21:34'),
    pageview('p1', '/2/', '2012-01-01 03:22:34'),
    pageview('p1', '/3', '2012-01-01 03:24:34'),
    screen('p2', '/screen1', '2012-01-01 03:21:34'),
    screen('p2', '/screen2', '2012-01-01 03:22:34'),
    screen('p2', '/screen3', '2012-01-01 03:24:34'),
    custom('p3', '/custom1', '2012-01-01 03:21:34'),
    custom('p3', '/custom2', '2012-01-01 03:22:34'),
    custom('p3', '/custom3', '2012-01-01 03:24:34'),
  ]

  it('test_event_inclusion_exclusion_filters: page views, screens and custom events apart and together', async () => {
    const project = await pathsProject(byKind)
    const withTypes = (includeEventTypes: string[]) =>
      paths(project, { dateRange: { date_from: '2012-01-01' }, pathsFilter: { stepLimit: 4, includeEventTypes } })
    const twoLinks = (a: string, b: string, c: string) => [
      { source: `1_${a}`, target: `2_${b}`, value: 1, average_conversion_time: ONE_MINUTE },
      { source: `2_${b}`, target: `3_${c}`, value: 1, average_conversion_time: 2 * ONE_MINUTE },
    ]
    expect(await withTypes(['$pageview'])).toEqual(twoLinks('/1', '/2', '/3'))
    expect(await withTypes(['$screen'])).toEqual(twoLinks('/screen1', '/screen2', '/screen3'))
    expect(await withTypes(['custom_event'])).toEqual(twoLinks('/custom1', '/custom2', '/custom3'))
    expect(await withTypes(['$pageview', '$screen', 'custom_event'])).toEqual([
      { source: '1_/1', target: '2_/2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '1_/custom1', target: '2_/custom2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '1_/screen1', target: '2_/screen2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 1, average_conversion_time: 2 * ONE_MINUTE },
      { source: '2_/custom2', target: '3_/custom3', value: 1, average_conversion_time: 2 * ONE_MINUTE },
      { source: '2_/screen2', target: '3_/screen3', value: 1, average_conversion_time: 2 * ONE_MINUTE },
    ])
  })

  it('test_event_inclusion_exclusion_filters_across_single_person: excluded items leave the time between the others', async () => {
    const project = await pathsProject([
      pageview('p1', '/1', '2012-01-01 03:21:34'),
      pageview('p1', '/2', '2012-01-01 03:22:34'),
      pageview('p1', '/3', '2012-01-01 03:24:34'),
      screen('p1', '/screen1', '2012-01-01 03:25:34'),
      screen('p1', '/screen2', '2012-01-01 03:26:34'),
      screen('p1', '/screen3', '2012-01-01 03:28:34'),
      custom('p1', '/custom1', '2012-01-01 03:29:34'),
      custom('p1', '/custom2', '2012-01-01 03:30:34'),
      custom('p1', '/custom3', '2012-01-01 03:32:34'),
    ])
    const dateRange = { date_from: '2012-01-01' }
    const link = (source: string, target: string, minutes: number) => ({
      source,
      target,
      value: 1,
      average_conversion_time: minutes * ONE_MINUTE,
    })
    const pagesAndScreens = [
      link('1_/1', '2_/2', 1),
      link('2_/2', '3_/3', 2),
      link('3_/3', '4_/screen1', 1),
      link('4_/screen1', '5_/screen2', 1),
      link('5_/screen2', '6_/screen3', 2),
    ]
    // Everything included, nothing excluded.
    expect(await paths(project, { dateRange, pathsFilter: { stepLimit: 10 } })).toEqual([
      ...pagesAndScreens,
      link('6_/screen3', '7_/custom1', 1),
      link('7_/custom1', '8_/custom2', 1),
      link('8_/custom2', '9_/custom3', 2),
    ])
    expect(await paths(project, { dateRange, pathsFilter: { stepLimit: 10, includeEventTypes: ['$pageview', '$screen'] } })).toEqual(
      pagesAndScreens,
    )
    expect(
      await paths(project, {
        dateRange,
        pathsFilter: { stepLimit: 10, includeEventTypes: ['$pageview', 'custom_event'], excludeEvents: ['/custom1', '/custom3'] },
      }),
    ).toEqual([link('1_/1', '2_/2', 1), link('2_/2', '3_/3', 2), link('3_/3', '4_/custom2', 6)])
  })

  it('test_path_respect_session_limits: a day later is another session, from step 1 again', async () => {
    const project = await pathsProject([
      pageview('fake', '/1', '2012-01-01 03:21:34'),
      pageview('fake', '/2', '2012-01-01 03:22:34'),
      pageview('fake', '/3', '2012-01-01 03:24:34'),
      pageview('fake', '/1', '2012-01-02 03:21:54'),
      pageview('fake', '/2/', '2012-01-02 03:22:54'),
      pageview('fake', '/3', '2012-01-02 03:26:54'),
    ])
    expect(await paths(project, { dateRange: { date_from: '2012-01-01' }, pathsFilter: {} })).toEqual([
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 2, average_conversion_time: 3 * ONE_MINUTE },
    ])
  })

  it('test_path_removes_duplicates: a page seen again in a row is one step, timed from its last view', async () => {
    const project = await pathsProject([
      pageview('fake', '/1', '2012-01-01 03:21:34'),
      pageview('fake', '/1', '2012-01-01 03:21:54'),
      pageview('fake', '/2', '2012-01-01 03:22:34'),
      pageview('fake', '/2/', '2012-01-01 03:22:54'),
      pageview('fake', '/3', '2012-01-01 03:24:54'),
      pageview('fake2', '/1', '2012-01-01 03:21:34'),
      pageview('fake2', '/2/', '2012-01-01 03:23:34'),
      pageview('fake2', '/3', '2012-01-01 03:27:34'),
    ])
    expect(await paths(project, { dateRange: { date_from: '2012-01-01' }, pathsFilter: {} })).toEqual([
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: 1.5 * ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 2, average_conversion_time: 3 * ONE_MINUTE },
    ])
  })

  const withQuery = (user: string, second: string, third: string): SentEvent[] => [
    pageview(user, 'test.com/step1', '2021-05-01 00:00:00'),
    pageview(user, second, '2021-05-01 00:01:00'),
    pageview(user, third, '2021-05-01 00:02:00'),
  ]

  it('test_team_path_cleaning_rules: the project’s path cleaning rules with pathReplacements', async () => {
    const project = await pathsProject(
      [1, 2, 3].flatMap((i) => withQuery(`user_${i}`, 'test.com/step2', `test.com/step3?key=value${i}`)),
      [],
      { path_cleaning_filters: [{ alias: '?<param>', regex: '\\?(.*)' }] },
    )
    const query = (pathReplacements: boolean) =>
      paths(project, { dateRange: may, pathsFilter: { includeEventTypes: ['$pageview'], pathReplacements } })
    const cleaned = [
      { source: '1_test.com/step1', target: '2_test.com/step2', value: 3, average_conversion_time: ONE_MINUTE },
      { source: '2_test.com/step2', target: '3_test.com/step3?<param>', value: 3, average_conversion_time: ONE_MINUTE },
    ]
    expect(await query(false)).not.toEqual(cleaned)
    expect(await query(true)).toEqual(cleaned)
  })

  it('test_team_and_local_path_cleaning_rules: the project’s rules, then the query’s own', async () => {
    const project = await pathsProject(
      [1, 2, 3].flatMap((i) => withQuery(`user_${i}`, 'test.com/step2/5', `test.com/step2/5?key=value${i}`)),
      [],
      { path_cleaning_filters: [{ alias: '?<param>', regex: '\\?(.*)' }] },
    )
    const correct = [
      { source: '1_test.com/step1', target: '2_test.com/step2/<id>', value: 3, average_conversion_time: ONE_MINUTE },
      { source: '2_test.com/step2/<id>', target: '3_test.com/step2/<id><param>', value: 3, average_conversion_time: ONE_MINUTE },
    ]
    const id = { alias: '/<id>', regex: '/\\d+(/|\\?)?' }
    const query = (filter: Record<string, unknown>) =>
      paths(project, { dateRange: may, pathsFilter: { includeEventTypes: ['$pageview'], ...filter } })
    expect(await query({ pathReplacements: true, localPathCleaningFilters: [id] })).toEqual(correct)
    // The query's rules alone, in place of the project's.
    expect(await query({ pathReplacements: false, localPathCleaningFilters: [{ alias: '?<param>', regex: '\\?(.*)' }, id] })).toEqual(
      correct,
    )
  })
})

/** PostHog's _create_sample_data_multiple_dropoffs: 5 persons through the whole funnel, 10 through two steps, 20 dropping off. */
function multipleDropoffs(): SentEvent[] {
  const events: SentEvent[] = []
  const at = (time: string) => `2021-05-01 ${time}`
  for (let i = 0; i < 5; i++) {
    const user = `user_${i}`
    events.push(
      custom(user, 'step one', at('00:00:00')),
      custom(user, 'between_step_1_a', at('00:01:00')),
      custom(user, 'between_step_1_b', at('00:02:00')),
      custom(user, 'between_step_1_c', at('00:03:00')),
      custom(user, 'step two', at('00:04:00')),
      custom(user, 'step three', at('00:05:00')),
    )
  }
  for (let i = 5; i < 15; i++) {
    const user = `user_${i}`
    events.push(
      custom(user, 'step one', at('00:00:00')),
      custom(user, 'between_step_1_a', at('00:01:00')),
      custom(user, 'between_step_1_b', at('00:02:00')),
      custom(user, 'step two', at('00:03:00')),
      custom(user, 'between_step_2_a', at('00:04:20')),
      custom(user, 'between_step_2_b', at('00:05:40')),
    )
  }
  for (let i = 15; i < 35; i++) {
    const user = `user_${i}`
    events.push(
      custom(user, 'step one', at('00:00:00')),
      custom(user, 'step dropoff1', at('00:01:00')),
      custom(user, 'step dropoff2', at('00:02:00')),
    )
    if (i % 2 === 0) events.push(custom(user, 'step branch', at('00:03:00')))
  }
  return events
}

const MAY = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }
const GROUPINGS = ['between_step_1_*', 'between_step_2_*', 'step drop*']

/** The links PostHog's test_wildcard_groups asserts, the most walked first. */
const WILDCARD_LINKS = [
  { source: '1_step one', target: '2_step drop*', value: 20, average_conversion_time: 2 * ONE_MINUTE },
  // Grouped items of one person in a row are one step, timed from the last of them.
  { source: '1_step one', target: '2_between_step_1_*', value: 15, average_conversion_time: ((5 * 3 + 10 * 2) * ONE_MINUTE) / 15 },
  { source: '2_between_step_1_*', target: '3_step two', value: 15, average_conversion_time: ONE_MINUTE },
  { source: '2_step drop*', target: '3_step branch', value: 10, average_conversion_time: ONE_MINUTE },
  { source: '3_step two', target: '4_between_step_2_*', value: 10, average_conversion_time: 160_000 },
  { source: '3_step two', target: '4_step three', value: 5, average_conversion_time: ONE_MINUTE },
]

describe('ee/clickhouse/queries/test/test_paths.py: wildcard groups', () => {
  let project: CaseProject | undefined
  const grouped = async (filter: Record<string, unknown> = {}) => {
    project ??= await pathsProject(multipleDropoffs())
    return paths(project, { dateRange: MAY, pathsFilter: { pathGroupings: GROUPINGS, ...filter } })
  }

  it('test_wildcard_groups', async () => {
    const response = await grouped()
    expect(response).toHaveLength(WILDCARD_LINKS.length)
    for (const link of WILDCARD_LINKS) {
      const found = response.find((r) => r.source === link.source && r.target === link.target)
      expect(found, link.source + ' → ' + link.target).toBeDefined()
      expect(found.value).toBe(link.value)
      expect(found.average_conversion_time).toBeCloseTo(link.average_conversion_time, 6)
    }
  })

  // Not PostHog cases: its edge filters applied to test_wildcard_groups' links, as its runner applies them.
  it('minEdgeWeight and maxEdgeWeight keep the links walked that often, and only those reachable from a first step', async () => {
    expect(links(await grouped({ minEdgeWeight: 15 }))).toEqual(links(WILDCARD_LINKS.filter((l) => l.value >= 15)))
    // The links walked at most 10 times all follow links walked more often: none is reachable.
    expect(await grouped({ maxEdgeWeight: 10 })).toEqual([])
    expect(links(await grouped({ minEdgeWeight: 10, maxEdgeWeight: 15 }))).toEqual([
      ['1_step one', '2_between_step_1_*', 15],
      ['2_between_step_1_*', '3_step two', 15],
      // Reached through the two above; 2_step drop* → 3_step branch is not, its first link left out.
      ['3_step two', '4_between_step_2_*', 10],
    ])
  })

  it('edgeLimit answers the most walked links, the order breaking ties', async () => {
    expect(links(await grouped({ edgeLimit: 2 }))).toEqual(links(WILDCARD_LINKS.slice(0, 2)))
  })

  it('test_path_cleaning_rules_with_wildcard_groups: cleaning first, then grouping, from a start point', async () => {
    const own = await pathsProject(
      ['foo', 'bar', 'baz'].flatMap((end, i) => [
        pageview(`user_${i + 1}`, `test.com/step1/${end}`, '2021-05-01 00:00:00'),
        pageview(`user_${i + 1}`, 'test.com/step2', '2021-05-01 00:01:00'),
        pageview(`user_${i + 1}`, `test.com/step3?key=value${i + 1}`, '2021-05-01 00:02:00'),
      ]),
    )
    const response = await paths(own, {
      dateRange: MAY,
      pathsFilter: {
        includeEventTypes: ['$pageview'],
        pathGroupings: ['/step1'],
        localPathCleaningFilters: [{ alias: '?<param>', regex: '\\?(.*)' }],
        startPoint: '/step1',
      },
    })
    expect(response).toEqual([
      { source: '1_/step1', target: '2_test.com/step2', value: 3, average_conversion_time: ONE_MINUTE },
      { source: '2_test.com/step2', target: '3_test.com/step3?<param>', value: 3, average_conversion_time: ONE_MINUTE },
    ])
  })
})

describe('PathsQuery fields this service does not apply are refused, naming them', () => {
  let project: CaseProject | undefined
  const ask = async (query: Record<string, unknown>) => {
    project ??= await projectWith([])
    return project.query({ kind: 'PathsQuery', ...query })
  }

  it.each([
    ['pathsFilter.pathsHogQLExpression', { pathsFilter: { pathsHogQLExpression: 'event' } }],
    ['pathsFilter.includeEventTypes', { pathsFilter: { includeEventTypes: ['hogql'] } }],
    ['pathsFilter.pathStartKey', { pathsFilter: { pathStartKey: '1_/' } }],
    ['pathsFilter.pathEndKey', { pathsFilter: { pathEndKey: '2_/about' } }],
    ['pathsFilter.pathDropoffKey', { pathsFilter: { pathDropoffKey: '2_/about' } }],
    ['pathsFilter.funnelPaths', { pathsFilter: { funnelPaths: 'funnel_path_after_step' } }],
    ['pathsFilter.funnelFilter', { pathsFilter: { funnelFilter: { events: [{ id: 'a' }] } } }],
    [
      'funnelPathsFilter',
      {
        pathsFilter: {},
        funnelPathsFilter: {
          funnelPathType: 'funnel_path_after_step',
          funnelStep: 1,
          funnelSource: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'a' }] },
        },
      },
    ],
    ['aggregation_group_type_index', { pathsFilter: {}, aggregation_group_type_index: 0 }],
    ['samplingFactor', { pathsFilter: {}, samplingFactor: 0.1 }],
    // More steps or links than one query follows.
    ['pathsFilter.stepLimit', { pathsFilter: { stepLimit: 21 } }],
    ['pathsFilter.edgeLimit', { pathsFilter: { edgeLimit: 1001 } }],
  ])('%s', async (field, query) => {
    const res = await ask(query)
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe(`query__${field.replaceAll('.', '__')}`)
  })

  it('a cleaning rule that is no pattern is a 400, not a failure', async () => {
    const res = await ask({ pathsFilter: { localPathCleaningFilters: [{ regex: '(', alias: 'x' }] } })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe('pathsFilter')
  })
})
