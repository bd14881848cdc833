import { describe, expect, it } from 'vitest'
import { calculatedCohort, inOrder, pick, trendsTestEvents, useCaseProjects, type CaseProject, type SentEvent } from './queryFixture'

/**
 * More cases from PostHog's own insight tests (posthog/hogql_queries/insights/**\/test/*.py), each
 * named after the test it comes from: the test's events sent through /batch/, its query, and the
 * numbers it asserts. A project holds one case's events, or the events several cases share.
 */

const cases = useCaseProjects()
const { projectWith } = cases

const ok = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.results as any[]
}

describe('trends/test/test_trends_query_runner.py', () => {
  let shared: CaseProject | undefined
  const trendsProject = async () => (shared ??= await projectWith(trendsTestEvents()))
  const pageview = { kind: 'EventsNode', event: '$pageview' }
  const pageleave = { kind: 'EventsNode', event: '$pageleave' }
  const ninthTo19th = { date_from: '2020-01-09', date_to: '2020-01-19' }
  const ninthTo20th = { date_from: '2020-01-09', date_to: '2020-01-20' }
  const fifteenthTo19th = { date_from: '2020-01-15', date_to: '2020-01-19' }
  const trends = async (fields: Record<string, unknown>, project?: CaseProject) =>
    ok(
      await (project ?? (await trendsProject())).query({
        kind: 'TrendsQuery',
        series: [pageview],
        dateRange: ninthTo19th,
        interval: 'day',
        ...fields,
      }),
    )
  const bothSeries = [pageview, pageleave]

  /** The shared project's cohorts of p1 and of p2, calculated once. */
  let cohortsOfShared: Promise<{ p1: number; p2: number }> | undefined
  const cohorts = async () =>
    (cohortsOfShared ??= trendsProject().then(async (project) => {
      const of = async (name: string, who: string) =>
        (
          await calculatedCohort(cases.service, project.account, {
            name,
            groups: [{ properties: [{ key: 'name', value: who, type: 'person' }] }],
          })
        ).id
      return { p1: await of('cohort p1', 'p1'), p2: await of('cohort p2', 'p2') }
    }))

  it('test_trends_label, test_trends_count and test_trends_days', async () => {
    const [row] = await trends({})
    expect(row.label).toBe('$pageview')
    expect(row.count).toBe(10)
    expect(row.days).toEqual([
      '2020-01-09',
      '2020-01-10',
      '2020-01-11',
      '2020-01-12',
      '2020-01-13',
      '2020-01-14',
      '2020-01-15',
      '2020-01-16',
      '2020-01-17',
      '2020-01-18',
      '2020-01-19',
    ])
  })

  it('test_trends_multiple_series: a row per series, in the order given', async () => {
    const results = await trends({ series: bothSeries })
    expect(pick(results, ['label', 'count', 'data'])).toEqual([
      { label: '$pageview', count: 10, data: [1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1] },
      { label: '$pageleave', count: 6, data: [0, 0, 1, 1, 3, 0, 0, 1, 0, 0, 0] },
    ])
  })

  it('test_formula: a list of one formula gives one row', async () => {
    const results = await trends({ series: bothSeries, trendsFilter: { formulas: ['A+2*B'] } })
    expect(pick(results, ['label', 'count', 'data'])).toEqual([
      { label: 'Formula (A+2*B)', count: 22, data: [1, 0, 3, 5, 7, 0, 2, 2, 1, 0, 1] },
    ])
  })

  it('test_multiple_formulas: a row per formula, a difference going below zero', async () => {
    const results = await trends({ series: bothSeries, trendsFilter: { formulas: ['A+2*B', 'A-B'] } })
    expect(pick(results, ['label', 'count', 'data'])).toEqual([
      { label: 'Formula (A+2*B)', count: 22, data: [1, 0, 3, 5, 7, 0, 2, 2, 1, 0, 1] },
      { label: 'Formula (A-B)', count: 4, data: [1, 0, 0, 2, -2, 0, 2, -1, 1, 0, 1] },
    ])
  })

  it('test_formula_with_compare: the formula over the period before too', async () => {
    const results = await trends({
      series: bothSeries,
      dateRange: fifteenthTo19th,
      trendsFilter: { formula: 'A+2*B' },
      compareFilter: { compare: true },
    })
    expect(pick(results, ['compare_label', 'count', 'data', 'label', 'compare'])).toEqual([
      { compare_label: 'current', count: 6, data: [2, 2, 1, 0, 1], label: 'Formula (A+2*B)', compare: true },
      { compare_label: 'previous', count: 15, data: [0, 3, 5, 7, 0], label: 'Formula (A+2*B)', compare: true },
    ])
  })

  it('test_formula_with_compare_to_day: compared with two days before', async () => {
    const results = await trends({
      series: bothSeries,
      dateRange: fifteenthTo19th,
      trendsFilter: { formula: 'A+2*B' },
      compareFilter: { compare: true, compare_to: '-2d' },
    })
    expect(pick(results, ['compare_label', 'count', 'data'])).toEqual([
      { compare_label: 'current', count: 6, data: [2, 2, 1, 0, 1] },
      { compare_label: 'previous', count: 12, data: [7, 0, 2, 2, 1] },
    ])
  })

  it('test_formula_with_compare_to_total_value: one aggregated value per period, a week apart', async () => {
    const results = await trends({
      series: bothSeries,
      dateRange: fifteenthTo19th,
      trendsFilter: { formula: 'A+2*B', display: 'BoldNumber' },
      compareFilter: { compare: true, compare_to: '-1w' },
    })
    expect(pick(results, ['compare_label', 'aggregated_value', 'label', 'count'])).toEqual([
      { compare_label: 'current', aggregated_value: 6, label: 'Formula (A+2*B)', count: 0 },
      { compare_label: 'previous', aggregated_value: 9, label: 'Formula (A+2*B)', count: 0 },
    ])
    expect(results[0].data).toBeNull()
  })

  it('test_trends_with_cohort_filter: a series filtered to a cohort’s persons', async () => {
    const { p1 } = await cohorts()
    const [row, ...rest] = await trends({
      dateRange: ninthTo20th,
      series: [{ ...pageview, properties: [{ key: 'id', value: p1, type: 'cohort' }] }],
    })
    expect(rest).toEqual([])
    expect(row.count).toBe(6)
    expect(row.data).toEqual([0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0])
  })

  it('test_formula_with_multi_cohort_breakdown: the formula per cohort, tied to no series', async () => {
    const { p1, p2 } = await cohorts()
    const results = await trends({
      series: bothSeries,
      dateRange: ninthTo20th,
      trendsFilter: { formula: 'A+B' },
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [p1, p2] },
    })
    expect(pick(results, ['label', 'breakdown_value', 'count'])).toEqual([
      { label: 'Formula (A+B)', breakdown_value: p1, count: 9 },
      { label: 'Formula (A+B)', breakdown_value: p2, count: 3 },
    ])
    expect(results[0].data).toEqual([0, 0, 2, 2, 2, 0, 1, 0, 1, 0, 1, 0])
    expect(results[0].action).toBeNull()
  })

  it('test_formula_with_multi_cohort_all_breakdown: a cohort and all users', async () => {
    const { p1 } = await cohorts()
    const results = await trends({
      series: bothSeries,
      dateRange: ninthTo20th,
      trendsFilter: { formula: 'A+B' },
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [p1, 'all'] },
    })
    results.sort((a, b) => a.count - b.count)
    expect(pick(results, ['label', 'breakdown_value', 'count', 'data'])).toEqual([
      { label: 'Formula (A+B)', breakdown_value: p1, count: 9, data: [0, 0, 2, 2, 2, 0, 1, 0, 1, 0, 1, 0] },
      { label: 'Formula (A+B)', breakdown_value: 'all', count: 16, data: [1, 0, 2, 4, 4, 0, 2, 1, 1, 0, 1, 0] },
    ])
  })

  it('test_formula_with_multi_cohort_all_breakdown_with_compare', async () => {
    const { p1 } = await cohorts()
    const results = await trends({
      series: bothSeries,
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' },
      trendsFilter: { formula: 'A+B' },
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [p1, 'all'] },
      compareFilter: { compare: true },
    })
    results.sort((a, b) => a.count - b.count)
    expect(pick(results, ['compare', 'compare_label', 'breakdown_value', 'count', 'data'])).toEqual([
      { compare: true, compare_label: 'current', breakdown_value: p1, count: 3, data: [1, 0, 1, 0, 1, 0] },
      { compare: true, compare_label: 'current', breakdown_value: 'all', count: 5, data: [2, 1, 1, 0, 1, 0] },
      { compare: true, compare_label: 'previous', breakdown_value: p1, count: 6, data: [0, 0, 2, 2, 2, 0] },
      { compare: true, compare_label: 'previous', breakdown_value: 'all', count: 11, data: [1, 0, 2, 4, 4, 0] },
    ])
  })

  it('test_formula_with_breakdown_and_no_data: no rows when no series has events, the one with events when one has', async () => {
    const breakdownFilter = { breakdown_type: 'person', breakdown: '$browser' }
    const trendsFilter = { formula: 'A+2*B' }
    const none = await trends({
      series: [
        { kind: 'EventsNode', event: '$pageviewxxx' },
        { kind: 'EventsNode', event: '$pageleavexxx' },
      ],
      trendsFilter,
      breakdownFilter,
    })
    expect(none).toEqual([])
    const one = await trends({ series: [pageview, { kind: 'EventsNode', event: '$pageleavexxx' }], trendsFilter, breakdownFilter })
    // PostHog's test persons have no $browser, so its one row is every page view; persons made by
    // ingestion take $browser from their events, so here the rows add up to it.
    const sum = one.reduce((acc: number[], row) => acc.map((v, i) => v + row.data[i]), new Array<number>(11).fill(0))
    expect(sum).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1])
  })

  it('test_trends_compare: the previous period’s days and labels', async () => {
    const results = await trends({ dateRange: fifteenthTo19th, trendsFilter: {}, compareFilter: { compare: true } })
    expect(pick(results, ['compare', 'compare_label', 'days', 'labels'])).toEqual([
      {
        compare: true,
        compare_label: 'current',
        days: ['2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19'],
        labels: ['15-Jan-2020', '16-Jan-2020', '17-Jan-2020', '18-Jan-2020', '19-Jan-2020'],
      },
      {
        compare: true,
        compare_label: 'previous',
        days: ['2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14'],
        labels: ['10-Jan-2020', '11-Jan-2020', '12-Jan-2020', '13-Jan-2020', '14-Jan-2020'],
      },
    ])
  })

  it('test_trends_breakdowns: values by their count, each labelled with itself', async () => {
    const results = await trends({ dateRange: ninthTo20th, breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } })
    expect(pick(results, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: 'Chrome', label: 'Chrome', count: 6 },
      { breakdown_value: 'Firefox', label: 'Firefox', count: 2 },
      { breakdown_value: 'Edge', label: 'Edge', count: 1 },
      { breakdown_value: 'Safari', label: 'Safari', count: 1 },
    ])
  })

  it('test_trends_breakdowns_boolean: a boolean property broken down as "true" and "false"', async () => {
    const results = await trends({ dateRange: ninthTo20th, breakdownFilter: { breakdown_type: 'event', breakdown: 'bool_field' } })
    expect(pick(results, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: 'true', label: 'true', count: 7 },
      { breakdown_value: 'false', label: 'false', count: 3 },
    ])
  })

  it('test_trends_breakdowns_and_compare: each period with the values it has', async () => {
    const results = await trends({
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' },
      trendsFilter: {},
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
      compareFilter: { compare: true },
    })
    expect(pick(results, ['breakdown_value', 'label', 'count', 'compare_label', 'compare'])).toEqual([
      { breakdown_value: 'Chrome', label: 'Chrome', count: 3, compare_label: 'current', compare: true },
      { breakdown_value: 'Safari', label: 'Safari', count: 1, compare_label: 'current', compare: true },
      { breakdown_value: 'Chrome', label: 'Chrome', count: 3, compare_label: 'previous', compare: true },
      { breakdown_value: 'Firefox', label: 'Firefox', count: 2, compare_label: 'previous', compare: true },
      { breakdown_value: 'Edge', label: 'Edge', count: 1, compare_label: 'previous', compare: true },
    ])
  })

  it('test_trends_breakdown_and_aggregation_query_orchestration: a property sum per value, largest first', async () => {
    const results = await trends({
      dateRange: ninthTo20th,
      series: [{ ...pageview, math: 'sum', math_property: 'prop' }],
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    })
    expect(pick(results, ['breakdown_value', 'label', 'data'])).toEqual([
      { breakdown_value: 'Chrome', label: 'Chrome', data: [0, 0, 10, 10, 10, 0, 10, 0, 10, 0, 10, 0] },
      { breakdown_value: 'Firefox', label: 'Firefox', data: [20, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0] },
      { breakdown_value: 'Safari', label: 'Safari', data: [0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0] },
      { breakdown_value: 'Edge', label: 'Edge', data: [0, 0, 0, 30, 0, 0, 0, 0, 0, 0, 0, 0] },
    ])
  })

  it.each([
    ['test_trends_aggregation_property_sum', { math: 'sum', math_property: 'prop' }, [20, 0, 10, 60, 10, 0, 50, 0, 10, 0, 10, 0]],
    ['test_trends_aggregation_property_avg', { math: 'avg', math_property: 'prop' }, [20, 0, 10, 20, 10, 0, 25, 0, 10, 0, 10, 0]],
    ['test_trends_aggregation_per_actor_max', { math: 'max_count_per_actor' }, [1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0]],
  ])('%s', async (_name, math, data) => {
    const [row] = await trends({ dateRange: ninthTo20th, series: [{ ...pageview, ...math }] })
    expect(row.data).toEqual(data)
  })

  it('test_trends_aggregation_total', async () => {
    const [row] = await trends({ dateRange: ninthTo20th, series: [{ ...pageview, math: 'total' }] })
    expect(row.count).toBe(10)
  })

  it('test_trends_aggregation_wau_long_interval: weekly active by week counts each week’s persons', async () => {
    const [row] = await trends({ dateRange: ninthTo20th, interval: 'week', series: [{ ...pageview, math: 'weekly_active' }] })
    expect(row.data).toEqual([2, 4, 1])
  })

  it('test_trends_aggregation_mau_long_interval: monthly active by month', async () => {
    const [row] = await trends({
      dateRange: { date_from: '2019-12-31', date_to: '2020-02-01' },
      interval: 'month',
      series: [{ ...pageview, math: 'monthly_active' }],
    })
    expect(row.data).toEqual([0, 4, 0])
  })

  it('test_trends_display_aggregate and test_trends_display_aggregate_interval: one total whatever the interval', async () => {
    for (const interval of ['day', 'month']) {
      const [row, ...rest] = await trends({ dateRange: ninthTo20th, interval, trendsFilter: { display: 'BoldNumber' } })
      expect(rest).toEqual([])
      expect([row.data, row.days, row.count, row.aggregated_value]).toEqual([[], [], 0, 10])
    }
  })

  it('test_trends_display_cumulative', async () => {
    const [row] = await trends({ dateRange: ninthTo20th, trendsFilter: { display: 'ActionsLineGraphCumulative' } })
    expect(row.count).toBe(10)
    expect(row.data).toEqual([1, 1, 2, 5, 6, 6, 8, 8, 9, 9, 10, 10])
  })

  it('test_previous_period_with_number_display: a total for each period', async () => {
    const results = await trends({ dateRange: ninthTo20th, trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } })
    expect(results).toHaveLength(2)
  })

  describe('thirty persons, each with their own value of breakdown_value', () => {
    let thirty: CaseProject | undefined
    const thirtyValues = async () =>
      (thirty ??= await projectWith(
        Array.from({ length: 30 }, (_, value) => ({
          event: '$pageview',
          distinct_id: `person_${value}`,
          timestamp: '2020-01-11T12:00:00Z',
          properties: { breakdown_value: `${value}` },
        })),
      ))
    const rows = async (display: string, breakdownFilter: Record<string, unknown>) =>
      (await trends({ dateRange: ninthTo20th, trendsFilter: { display }, breakdownFilter }, await thirtyValues())).length

    it('test_breakdown_values_limit: 25 values and Other by default, the limit and Other, Other hidden on request', async () => {
      const single = { breakdown: 'breakdown_value', breakdown_type: 'event' }
      expect(await rows('ActionsLineGraph', single)).toBe(26)
      expect(await rows('ActionsLineGraph', { ...single, breakdown_limit: 10 })).toBe(11)
      expect(await rows('ActionsLineGraph', { ...single, breakdown_limit: 10, breakdown_hide_other_aggregation: true })).toBe(10)
      expect(await rows('ActionsTable', { ...single, breakdown_limit: 10 })).toBe(11)
      expect(await rows('ActionsTable', { ...single, breakdown_limit: 10, breakdown_hide_other_aggregation: true })).toBe(10)
    })

    it('test_multiple_breakdowns_values_limit: the same with a list of one breakdown', async () => {
      const listed = { breakdowns: [{ property: 'breakdown_value', type: 'event' }] }
      expect(await rows('ActionsLineGraph', listed)).toBe(26)
      expect(await rows('ActionsLineGraph', { ...listed, breakdown_limit: 10 })).toBe(11)
      expect(await rows('ActionsLineGraph', { ...listed, breakdown_limit: 10, breakdown_hide_other_aggregation: true })).toBe(10)
      expect(await rows('ActionsTable', { ...listed, breakdown_limit: 10 })).toBe(11)
      expect(await rows('ActionsTable', { ...listed, breakdown_limit: 10, breakdown_hide_other_aggregation: true })).toBe(10)
    })
  })

  it('test_trends_multiple_event_breakdowns: two and three properties, each row labelled with its values joined by ::', async () => {
    const two = await trends({
      dateRange: ninthTo20th,
      breakdownFilter: {
        breakdowns: [
          { type: 'event', property: '$browser' },
          { type: 'event', property: 'prop' },
        ],
      },
    })
    expect(pick(two, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: ['Chrome', '10'], label: 'Chrome::10', count: 6 },
      { breakdown_value: ['Firefox', '20'], label: 'Firefox::20', count: 2 },
      { breakdown_value: ['Edge', '30'], label: 'Edge::30', count: 1 },
      { breakdown_value: ['Safari', '40'], label: 'Safari::40', count: 1 },
    ])
    const three = await trends({
      dateRange: ninthTo20th,
      breakdownFilter: {
        breakdowns: [
          { type: 'event', property: '$browser' },
          { type: 'event', property: 'prop' },
          { type: 'event', property: 'bool_field' },
        ],
      },
    })
    expect(pick(three, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: ['Chrome', '10', 'true'], label: 'Chrome::10::true', count: 6 },
      { breakdown_value: ['Firefox', '20', 'false'], label: 'Firefox::20::false', count: 2 },
      { breakdown_value: ['Edge', '30', 'true'], label: 'Edge::30::true', count: 1 },
      { breakdown_value: ['Safari', '40', 'false'], label: 'Safari::40::false', count: 1 },
    ])
  })

  it('test_trends_event_and_person_breakdowns: an event and a person property together', async () => {
    const results = await trends({
      dateRange: ninthTo20th,
      breakdownFilter: {
        breakdowns: [
          { type: 'event', property: '$browser' },
          { type: 'person', property: 'name' },
        ],
      },
    })
    expect(pick(results, ['breakdown_value', 'label', 'count'])).toEqual([
      { breakdown_value: ['Chrome', 'p1'], label: 'Chrome::p1', count: 6 },
      { breakdown_value: ['Firefox', 'p2'], label: 'Firefox::p2', count: 2 },
      { breakdown_value: ['Edge', 'p3'], label: 'Edge::p3', count: 1 },
      { breakdown_value: ['Safari', 'p4'], label: 'Safari::p4', count: 1 },
    ])
  })

  /** Its `_create_events` of four persons whose events carry only `properties` (the persons' own, in order). */
  const fourPersonsWith = (properties: Array<Record<string, unknown>>, extra: SentEvent[] = []) =>
    projectWith([
      ...trendsTestEvents()
        .filter((e) => ['p1', 'p2', 'p3', 'p4'].indexOf(e.distinct_id) < properties.length)
        .map((e) => ({ ...e, properties: properties[Number(e.distinct_id.slice(1)) - 1]! })),
      ...extra,
    ])

  it('test_trends_event_multiple_breakdowns_normalizes_url: with normalize_url a trailing slash, ? or # is no other value', async () => {
    const project = await fourPersonsWith([
      { $url: 'https://posthog.com/?' },
      { $url: 'https://posthog.com' },
      { $url: 'https://posthog.com/foo/bar/#' },
      { $url: 'https://posthog.com/foo/bar/' },
    ])
    const byUrl = (normalize_url?: boolean) =>
      trends(
        {
          dateRange: ninthTo20th,
          breakdownFilter: { breakdowns: [{ property: '$url', ...(normalize_url === undefined ? {} : { normalize_url }) }] },
        },
        project,
      )
    expect((await byUrl(true)).map((r) => r.breakdown_value)).toEqual([['https://posthog.com'], ['https://posthog.com/foo/bar']])
    expect(await byUrl(false)).toHaveLength(4)
    expect(await byUrl()).toHaveLength(4)
  })

  it('test_trends_event_multiple_numeric_breakdowns: numbers as text, ties in text order', async () => {
    const p5p6 = (bin: number, distinct_id: string) => [
      { event: '$pageview', distinct_id, timestamp: '2020-01-15T12:00:00Z', properties: { $bin: bin } },
      { event: '$pageleave', distinct_id, timestamp: '2020-01-16T12:00:00Z', properties: { $bin: bin } },
    ]
    const project = await fourPersonsWith([{ $bin: 4 }, { $bin: 8 }, { $bin: 16 }, { $bin: 32 }], [...p5p6(64, 'p5'), ...p5p6(128, 'p6')])
    const results = await trends({ dateRange: ninthTo20th, breakdownFilter: { breakdowns: [{ property: '$bin' }] } }, project)
    expect(results.map((r) => r.breakdown_value)).toEqual([['4'], ['8'], ['128'], ['16'], ['32'], ['64']])
  })

  it('test_formula_rounding: a ratio is not rounded', async () => {
    const at = '2020-01-11T12:00:00Z'
    const project = await projectWith([
      { event: '$pageleave', distinct_id: 'person_1', timestamp: at, properties: {} },
      ...['person_2', 'person_3', 'person_4'].map((distinct_id) => ({ event: '$pageview', distinct_id, timestamp: at, properties: {} })),
    ])
    const results = await trends(
      {
        series: bothSeries,
        dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-11T23:59:59Z' },
        trendsFilter: { formula: 'B/A' },
      },
      project,
    )
    expect(results).toHaveLength(1)
    expect(results[0].data).toEqual([1 / 3])
  })
})

/** Events at the times given (PostHog's `_create_event` with a timestamp, read as UTC). */
const at = (rows: Array<[event: string, distinctId: string, time: string, properties?: Record<string, unknown>]>): SentEvent[] =>
  rows.map(([event, distinct_id, time, properties = {}]) => ({
    event,
    distinct_id,
    timestamp: `${time.replace(' ', 'T')}Z`,
    properties,
  }))

const steps = (...events: string[]) => events.map((event) => ({ kind: 'EventsNode', event }))
/** A step's name, count and average conversion time. */
const stepSummary = (results: any[]) => results.map((s) => [s.name, s.count, s.average_conversion_time])

// PostHog's tests create these events without a time (each at "now", in order): here a minute apart,
// inside a range of their own.
const NOW = '2024-03-01T10:00:00Z'
const aroundNow = { date_from: '2024-02-25', date_to: '2024-03-05' }

describe('trends/test/test_trends_query_runner.py: histogram breakdowns', () => {
  /** _create_test_events with a `$bin` per person (none where `bins` names none). */
  const withBins = (bins: Record<string, number>) =>
    projectWith(
      trendsTestEvents().map((e) => ({
        ...e,
        properties: { ...e.properties, ...(bins[e.distinct_id] !== undefined ? { $bin: bins[e.distinct_id] } : {}) },
      })),
    )
  const histogram = (project: CaseProject, binCount: number) =>
    project.query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
      interval: 'day',
      breakdownFilter: { breakdown: '$bin', breakdown_histogram_bin_count: binCount },
    })

  it('test_trends_event_histogram_breakdowns_return_equal_result: bins of equal width, empty ones left out, no value as null', async () => {
    const results = ok(await histogram(await withBins({ p1: 4, p2: 8, p3: 16 }), 5))
    expect(pick(results, ['breakdown_value', 'count'])).toEqual([
      { breakdown_value: '[4,6.4]', count: 6 },
      { breakdown_value: '[6.4,8.8]', count: 2 },
      { breakdown_value: '[13.6,16.01]', count: 1 },
      { breakdown_value: '$$_posthog_breakdown_null_$$', count: 1 },
    ])
  })

  it('test_trends_event_breakdowns_handle_null: one value makes one bin, and the rest is null', async () => {
    const results = ok(await histogram(await withBins({ p1: 4 }), 10))
    expect(results.map((r) => r.breakdown_value)).toEqual(['[4,4.01]', '$$_posthog_breakdown_null_$$'])
    expect(results.reduce((sum, r) => sum + r.count, 0)).toBe(10)
  })
})

describe('funnels/test/test_funnel_strict.py', () => {
  const strict = (series: unknown[], extra: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    series,
    dateRange: aroundNow,
    funnelsFilter: { funnelOrderType: 'strict' },
    ...extra,
  })

  it('test_basic_strict_funnel: each step must come right after the one before', async () => {
    const project = await projectWith(
      inOrder(NOW, [
        ['user signed up', 'stopped_after_signup1', { $set: { test: 'okay' } }],
        ['$pageview', 'stopped_after_pageview1'],
        ['user signed up', 'stopped_after_pageview1'],
        ['user signed up', 'stopped_after_insightview'],
        ['$pageview', 'stopped_after_insightview'],
        ['blaah blaa', 'stopped_after_insightview'],
        ['insight viewed', 'stopped_after_insightview'],
        ['insight viewed', 'stopped_after_insightview2'],
        ['blaah blaa', 'stopped_after_insightview2'],
        ['$pageview', 'stopped_after_insightview2'],
        ['user signed up', 'stopped_after_insightview2'],
        ['$pageview', 'stopped_after_insightview3'],
        ['user signed up', 'stopped_after_insightview3'],
        ['blaah blaa', 'stopped_after_insightview3'],
        ['$pageview', 'stopped_after_insightview3'],
        ['insight viewed', 'stopped_after_insightview3'],
        ['blaah blaa', 'person6'],
        ['user signed up', 'person6'],
        ['blaah blaa', 'person6'],
        ['$pageview', 'person6'],
        ['blaah blaa', 'person7'],
        ['user signed up', 'person7'],
        ['$pageview', 'person7'],
        ['insight viewed', 'person7'],
        ['blaah blaa', 'person7'],
        ['insight viewed', 'stopped_after_insightview6'],
        ['$pageview', 'stopped_after_insightview6'],
      ]),
    )
    const results = ok(await project.query(strict(steps('user signed up', '$pageview', 'insight viewed'))))
    expect(results.map((s) => [s.name, s.count])).toEqual([
      ['user signed up', 7],
      ['$pageview', 2],
      ['insight viewed', 1],
    ])
  })

  it('test_advanced_strict_funnel: events and actions with property filters as steps', async () => {
    const project = await projectWith(
      inOrder(NOW, [
        ['user signed up', 'stopped_after_signup1'],
        ['user signed up', 'stopped_after_pageview1'],
        ['$pageview', 'stopped_after_pageview1'],
        ['user signed up', 'stopped_after_insightview'],
        ['sign up', 'stopped_after_insightview', { key: 'val' }],
        ['sign up', 'stopped_after_insightview', { key: 'val2' }],
        ['$pageview', 'stopped_after_insightview'],
        ['blaah blaa', 'stopped_after_insightview'],
        ['insight viewed', 'stopped_after_insightview'],
        ['blaah blaa', 'person4'],
        ['user signed up', 'person4'],
        ['sign up', 'person4', { key: 'val' }],
        ['$pageview', 'person4', { key: 'val' }],
        ['blaah blaa', 'person4'],
        ['blaah blaa', 'person5'],
        ['user signed up', 'person5'],
        ['sign up', 'person5', { key: 'val' }],
        ['$pageview', 'person5'],
        ['blaah blaa', 'person5'],
        ['blaah blaa', 'person6'],
        ['user signed up', 'person6'],
        ['sign up', 'person6', { key: 'val' }],
        ['$pageview', 'person6'],
        ['pageview', 'person6', { key: 'val1' }],
        ['blaah blaa', 'person7'],
        ['user signed up', 'person7'],
        ['sign up', 'person7', { key: 'val' }],
        ['$pageview', 'person7'],
        ['user signed up', 'person7'],
        ['pageview', 'person7', { key: 'val' }],
        ['blaah blaa', 'person8'],
        ['user signed up', 'person8'],
        ['user signed up', 'person8'],
        ['sign up', 'person8', { key: 'val' }],
        ['$pageview', 'person8'],
        ['pageview', 'person8', { key: 'val' }],
      ]),
    )
    const action = async (name: string) => {
      const res = await cases.service.api(project.account, `/api/projects/${project.account.projectId}/actions/`, {
        method: 'POST',
        body: JSON.stringify({
          name,
          steps: [{ event: name, properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] }],
        }),
      })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: number }).id
    }
    const signUp = await action('sign up')
    const view = await action('pageview')
    const results = ok(
      await project.query(
        strict([
          { kind: 'EventsNode', event: 'user signed up' },
          { kind: 'ActionsNode', id: signUp },
          { kind: 'EventsNode', event: '$pageview' },
          { kind: 'ActionsNode', id: view },
        ]),
      ),
    )
    expect(results.map((s) => [s.name, s.count])).toEqual([
      ['user signed up', 8],
      ['sign up', 6],
      ['$pageview', 5],
      ['pageview', 1],
    ])
  })

  it('test_basic_strict_funnel_conversion_times: the average time from the step before', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'stopped_after_signup1', '2021-05-02 00:00:00'],
        ['user signed up', 'stopped_after_pageview1', '2021-05-02 00:00:00'],
        ['$pageview', 'stopped_after_pageview1', '2021-05-02 01:00:00'],
        ['user signed up', 'stopped_after_insightview', '2021-05-02 00:00:00'],
        ['$pageview', 'stopped_after_insightview', '2021-05-02 02:00:00'],
        ['insight viewed', 'stopped_after_insightview', '2021-05-02 04:00:00'],
      ]),
    )
    const results = ok(
      await project.query(
        strict(steps('user signed up', '$pageview', 'insight viewed'), {
          dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' },
        }),
      ),
    )
    expect(stepSummary(results)).toEqual([
      ['user signed up', 3, null],
      ['$pageview', 2, 5400],
      ['insight viewed', 1, 7200],
    ])
  })

  it('test_strict_breakdown_events_with_multiple_properties: an event between two steps breaks a strict funnel', async () => {
    const browser = (b: string) => ({ $browser: b })
    const project = await projectWith(
      at([
        ['sign up', 'person1', '2020-01-01 12:00:00', browser('Chrome')],
        ['blah', 'person1', '2020-01-01 13:00:00', browser('Chrome')],
        ['play movie', 'person1', '2020-01-01 14:00:00', browser('Chrome')],
        ['sign up', 'person2', '2020-01-02 13:00:00', browser('Safari')],
        ['play movie', 'person2', '2020-01-02 14:00:00', browser('Safari')],
      ]),
    )
    const results = ok(
      await project.query(
        strict(steps('sign up', 'play movie'), {
          dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
          funnelsFilter: { funnelOrderType: 'strict', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
          breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
        }),
      ),
    )
    const fields = ['name', 'count', 'average_conversion_time', 'median_conversion_time', 'breakdown', 'breakdown_value']
    expect(results.map((r) => pick(r, fields))).toEqual([
      [
        {
          name: 'sign up',
          count: 1,
          average_conversion_time: null,
          median_conversion_time: null,
          breakdown: ['Safari'],
          breakdown_value: ['Safari'],
        },
        {
          name: 'play movie',
          count: 1,
          average_conversion_time: 3600,
          median_conversion_time: 3600,
          breakdown: ['Safari'],
          breakdown_value: ['Safari'],
        },
      ],
      [
        {
          name: 'sign up',
          count: 1,
          average_conversion_time: null,
          median_conversion_time: null,
          breakdown: ['Chrome'],
          breakdown_value: ['Chrome'],
        },
        {
          name: 'play movie',
          count: 0,
          average_conversion_time: null,
          median_conversion_time: null,
          breakdown: ['Chrome'],
          breakdown_value: ['Chrome'],
        },
      ],
    ])
  })
})

describe('funnels/test/test_funnel_unordered.py', () => {
  const unordered = (series: unknown[], extra: Record<string, unknown> = {}, funnelsFilter: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    series,
    dateRange: aroundNow,
    funnelsFilter: { funnelOrderType: 'unordered', ...funnelsFilter },
    ...extra,
  })
  // The persons of test_basic_unordered_funnel and test_big_multi_step_unordered_funnel, the second's events in brackets.
  const persons = (big: boolean) =>
    inOrder(NOW, [
      ['user signed up', 'stopped_after_signup1'],
      ['$pageview', 'stopped_after_pageview1'],
      [big ? 'crying' : 'user signed up', 'stopped_after_pageview1'],
      ['user signed up', 'stopped_after_insightview'],
      ['$pageview', 'stopped_after_insightview'],
      ['blaah blaa', 'stopped_after_insightview'],
      ['insight viewed', 'stopped_after_insightview'],
      ['insight viewed', 'stopped_after_insightview2'],
      [big ? 'crying' : '$pageview', 'stopped_after_insightview2'],
      ['user signed up', 'stopped_after_insightview2'],
      ['$pageview', 'stopped_after_insightview3'],
      ['user signed up', 'stopped_after_insightview3'],
      [big ? 'crying' : 'blaah blaa', 'stopped_after_insightview3'],
      ['insight viewed', 'stopped_after_insightview3'],
      ['blaah blaa', 'stopped_after_insightview4'],
      ['insight viewed', 'stopped_after_insightview4'],
      ['$pageview', 'stopped_after_insightview5'],
      ['blaah blaa', 'stopped_after_insightview5'],
      ['insight viewed', 'stopped_after_insightview6'],
      ['$pageview', 'stopped_after_insightview6'],
    ])

  it('test_basic_unordered_funnel: steps in any order, named by how many were completed', async () => {
    const project = await projectWith(persons(false))
    const results = ok(await project.query(unordered(steps('user signed up', '$pageview', 'insight viewed'))))
    expect(results.map((s) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 8],
      ['Completed 2 steps', 5],
      ['Completed 3 steps', 3],
    ])
  })

  it('test_big_multi_step_unordered_funnel', async () => {
    const project = await projectWith(persons(true))
    const results = ok(await project.query(unordered(steps('user signed up', '$pageview', 'insight viewed', 'crying'))))
    expect(results.map((s) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 8],
      ['Completed 2 steps', 5],
      ['Completed 3 steps', 3],
      ['Completed 4 steps', 1],
    ])
  })

  it('test_basic_unordered_funnel_conversion_times: a person’s first completion within a day', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'stopped_after_signup1', '2021-05-02 00:00:00'],
        ['$pageview', 'stopped_after_pageview1', '2021-05-02 00:00:00'],
        ['user signed up', 'stopped_after_pageview1', '2021-05-02 01:00:00'],
        ['insight viewed', 'stopped_after_insightview', '2021-05-02 00:00:00'],
        ['user signed up', 'stopped_after_insightview', '2021-05-02 02:00:00'],
        ['$pageview', 'stopped_after_insightview', '2021-05-02 04:00:00'],
        ['$pageview', 'stopped_after_insightview', '2021-05-03 00:00:00'],
        ['insight viewed', 'stopped_after_insightview', '2021-05-03 03:00:00'],
        ['user signed up', 'stopped_after_insightview', '2021-05-03 06:00:00'],
      ]),
    )
    const results = ok(
      await project.query(
        unordered(
          steps('user signed up', '$pageview', 'insight viewed'),
          { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' } },
          { funnelWindowInterval: 1 },
        ),
      ),
    )
    // PostHog's current (UDF) funnels: each person's first completion, 1 h and 2 h to step 2, 2 h to step 3.
    expect(stepSummary(results)).toEqual([
      ['Completed 1 step', 3, null],
      ['Completed 2 steps', 2, 5400],
      ['Completed 3 steps', 1, 7200],
    ])
  })

  it('test_funnel_exclusions_full_window: an excluded event between the steps drops the conversion', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'person1', '2021-05-01 01:00:00'],
        ['paid', 'person1', '2021-05-01 02:00:00'],
        ['user signed up', 'person2', '2021-05-01 03:00:00'],
        ['x', 'person2', '2021-05-01 03:30:00'],
        ['paid', 'person2', '2021-05-01 04:00:00'],
        ['user signed up', 'person3', '2021-05-01 05:00:00'],
        ['paid', 'person3', '2021-05-01 06:00:00'],
      ]),
    )
    const results = ok(
      await project.query(
        unordered(
          steps('user signed up', 'paid'),
          { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' } },
          {
            funnelWindowInterval: 14,
            funnelWindowIntervalUnit: 'day',
            exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }],
          },
        ),
      ),
    )
    expect(results.map((s) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 3],
      ['Completed 2 steps', 2],
    ])
  })
})

describe('funnels/test/test_funnel_unordered.py: exclusions, entity filters and windows', () => {
  const unordered = async (
    project: CaseProject,
    events: Array<string | Record<string, unknown>>,
    fields: Record<string, unknown>,
    funnelsFilter: Record<string, unknown> = {},
  ) => {
    const series = events.map((e) => (typeof e === 'string' ? { kind: 'EventsNode', event: e } : { kind: 'EventsNode', ...e }))
    const res = await project.query({
      kind: 'FunnelsQuery',
      series,
      ...fields,
      funnelsFilter: { funnelOrderType: 'unordered', ...funnelsFilter },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.results as any[]
  }
  const firstFortnightOfMay = { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' } }
  /** Exclusions from the first step to `toStep`. */
  const excluded = (toStep: number, ...events: string[]) =>
    events.map((event) => ({ kind: 'EventsNode', event, funnelFromStep: 0, funnelToStep: toStep }))

  it('test_unordered_exclusion_after_completion: an excluded event after the funnel is complete changes nothing', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'person1', '2021-05-01 01:00:00'],
        ['paid', 'person1', '2021-05-01 02:00:00'],
        ['left', 'person1', '2021-05-01 03:00:00'],
        ['x', 'person1', '2021-05-01 04:00:00'],
        ['left', 'person1', '2021-05-01 05:00:00'],
      ]),
    )
    const results = await unordered(project, ['user signed up', 'paid', 'left'], firstFortnightOfMay, {
      funnelWindowInterval: 14,
      funnelWindowIntervalUnit: 'day',
      exclusions: excluded(2, 'x'),
    })
    expect(results.map((s) => s.count)).toEqual([1, 1, 1])
  })

  it('test_advanced_funnel_multiple_exclusions_between_steps: either of two excluded events drops the conversion', async () => {
    const person = (id: string, events: Array<[string, string]>) => at(events.map(([event, time]) => [event, id, `2021-05-01 ${time}:00`]))
    const project = await projectWith([
      ...person('person1', [
        ['user signed up', '01:00'],
        ['x', '02:00'],
        ['$pageview', '03:00'],
        ['insight viewed', '04:00'],
        ['y', '04:30'],
        ['invite teammate', '05:00'],
        ['pageview2', '06:00'],
      ]),
      ...person('person2', [
        ['user signed up', '01:00'],
        ['y', '01:30'],
        ['$pageview', '02:00'],
        ['insight viewed', '04:00'],
        ['y', '04:30'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
      ...person('person3', [
        ['user signed up', '01:00'],
        ['x', '01:30'],
        ['$pageview', '02:00'],
        ['insight viewed', '04:00'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
      ...person('person4', [
        ['user signed up', '01:00'],
        ['$pageview', '02:00'],
        ['insight viewed', '04:00'],
        ['invite teammate', '05:00'],
        ['pageview2', '06:00'],
      ]),
      ...person('person5', [
        ['user signed up', '01:00'],
        ['x', '01:30'],
        ['$pageview', '02:00'],
        ['x', '02:30'],
        ['insight viewed', '04:00'],
        ['y', '04:30'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
    ])
    const results = await unordered(
      project,
      ['user signed up', '$pageview', 'insight viewed', 'invite teammate', 'pageview2'],
      firstFortnightOfMay,
      {
        exclusions: excluded(4, 'x', 'y'),
      },
    )
    expect(results[0].name).toBe('Completed 1 step')
    expect(results.map((s) => s.count)).toEqual([5, 2, 1, 1, 1])
  })

  it('test_funnel_unordered_all_events_with_properties: a step of every event with a boolean property', async () => {
    const project = await projectWith(
      inOrder(NOW, [
        ['user signed up', 'user'],
        ['added to card', 'user', { is_saved: true }],
      ]),
    )
    const results = await unordered(
      project,
      ['user signed up', { event: null, properties: [{ key: 'is_saved', value: ['true'], operator: 'exact', type: 'event' }] }],
      { dateRange: aroundNow },
      { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
    )
    expect(results.map((s) => s.count)).toEqual([1, 1])
  })

  it('test_funnel_unordered_entity_filters: one event name, each step with its own filter', async () => {
    const project = await projectWith(
      inOrder(NOW, [
        ['user signed up', 'user', { prop_a: 'some value' }],
        ['user signed up', 'user', { prop_b: 'another value' }],
      ]),
    )
    const results = await unordered(
      project,
      [
        { event: 'user signed up', properties: [{ key: 'prop_a', value: ['some value'], operator: 'exact', type: 'event' }] },
        { event: 'user signed up', properties: [{ key: 'prop_b', value: 'another', operator: 'icontains', type: 'event' }] },
      ],
      { dateRange: aroundNow },
    )
    expect(results.map((s) => s.count)).toEqual([1, 1])
  })

  it.each(['UTC', 'US/Pacific'])(
    'test_funnel_window_ignores_dst_transition (%s): fourteen days are fourteen times 24 hours',
    async (timezone) => {
      const project = await projectWith(
        at([
          ['$pageview', 'user_1', '2024-03-01 15:10:00'],
          ['user signed up', 'user_1', '2024-03-15 14:27:00'],
        ]),
        { timezone },
      )
      const results = await unordered(project, ['$pageview', 'user signed up'], {
        dateRange: { date_from: '2024-02-17', date_to: '2024-03-18' },
      })
      expect(pick([results[1]], ['name', 'count', 'average_conversion_time', 'median_conversion_time'])).toEqual([
        { name: 'Completed 2 steps', count: 1, average_conversion_time: 1_207_020, median_conversion_time: 1_207_020 },
      ])
    },
  )
})

describe('lifecycle/test/test_lifecycle_query_runner.py', () => {
  /** Its `_create_events`: each person's page views, the person made at their first (as ingestion makes them). */
  const views = (rows: Array<[distinctId: string, days: string[]]>, event = '$pageview', properties: Record<string, unknown> = {}) =>
    rows.flatMap(([distinct_id, days]) =>
      days.map((day) => ({
        event,
        distinct_id,
        timestamp: `${day}T12:00:00Z`,
        properties: { ...properties, $set: { name: distinct_id } },
      })),
    )
  const fourPersons = (): Array<[string, string[]]> => [
    ['p1', ['2020-01-11', '2020-01-12', '2020-01-13', '2020-01-15', '2020-01-17', '2020-01-19']],
    ['p2', ['2020-01-09', '2020-01-12']],
    ['p3', ['2020-01-12']],
    ['p4', ['2020-01-15']],
  ]
  const twelfthTo19th = { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' }
  const lifecycle = async (project: CaseProject, fields: Record<string, unknown> = {}) =>
    ok(
      await project.query({
        kind: 'LifecycleQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: twelfthTo19th,
        interval: 'day',
        ...fields,
      }),
    )
  /** PostHog's assertLifecycleResults: each status's data, whatever the rows' order. */
  const byStatus = (results: any[]) => Object.fromEntries(results.map((r) => [r.status, r.data]))
  const theFourPersons = {
    dormant: [0, -2, -1, 0, -2, 0, -1, 0],
    new: [1, 0, 0, 1, 0, 0, 0, 0],
    resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
    returning: [1, 1, 0, 0, 0, 0, 0, 0],
  }
  let shared: CaseProject | undefined
  const fourPersonsProject = async () => (shared ??= await projectWith(views(fourPersons())))

  it('test_lifecycle_trend: new on a person’s first day, then returning, dormant, resurrecting', async () => {
    const results = await lifecycle(await fourPersonsProject())
    expect(results[0].label).toBe('$pageview - new')
    expect(byStatus(results)).toEqual(theFourPersons)
  })

  it('test_lifecycle_trend_all_events: a series of every event', async () => {
    const project = await projectWith([...views(fourPersons().slice(0, 2)), ...views(fourPersons().slice(2), '$other')])
    const results = await lifecycle(project, { series: [{ kind: 'EventsNode', event: null }] })
    expect(results[0].label).toBe('All events - new')
    expect(byStatus(results)).toEqual(theFourPersons)
  })

  it('test_lifecycle_trend_action: an action of the page views', async () => {
    const project = await fourPersonsProject()
    const res = await cases.service.api(project.account, `/api/projects/${project.account.projectId}/actions/`, {
      method: 'POST',
      body: JSON.stringify({ name: '$pageview', steps: [{ event: '$pageview' }] }),
    })
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: number }
    expect(byStatus(await lifecycle(project, { series: [{ kind: 'ActionsNode', id }] }))).toEqual(theFourPersons)
  })

  it('test_lifecycle_trend_all_time: from the first event to now (17 January)', async () => {
    const results = await lifecycle(await fourPersonsProject(), { dateRange: { date_from: 'all', date_to: '2020-01-17' } })
    expect(byStatus(results)).toEqual({
      dormant: [0, -1, 0, 0, -2, -1, 0, -2, 0],
      new: [1, 0, 1, 1, 0, 0, 1, 0, 0],
      returning: [0, 0, 0, 1, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0, 1, 0, 1],
    })
  })

  describe('only p1’s events have $number', () => {
    let numbered: CaseProject | undefined
    const numberedProject = async () =>
      (numbered ??= await projectWith([...views(fourPersons().slice(0, 1), '$pageview', { $number: 1 }), ...views(fourPersons().slice(1))]))
    // p1's first page view is before the range: never new in it.
    const onlyP1 = {
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    }
    const numberIsOne = [{ key: '$number', value: '1', operator: 'exact', type: 'event' }]

    it('test_lifecycle_trend_prop_filtering: an event property filter on the query or on the series', async () => {
      const project = await numberedProject()
      expect(byStatus(await lifecycle(project, { properties: numberIsOne }))).toEqual(onlyP1)
      expect(byStatus(await lifecycle(project, { series: [{ kind: 'EventsNode', event: '$pageview', properties: numberIsOne }] }))).toEqual(
        onlyP1,
      )
    })

    it('test_lifecycle_trend_person_prop_filtering', async () => {
      const properties = [{ key: 'name', value: 'p1', operator: 'exact', type: 'person' }]
      const results = await lifecycle(await numberedProject(), { series: [{ kind: 'EventsNode', event: '$pageview', properties }] })
      expect(byStatus(results)).toEqual(onlyP1)
    })
  })

  it('test_lifecycle_trends_distinct_id_repeat: a person’s two distinct ids are one person', async () => {
    const project = await projectWith([
      {
        event: '$identify',
        distinct_id: 'p1',
        timestamp: '2020-01-12T12:00:00Z',
        properties: { $anon_distinct_id: 'another_p1', $set: { name: 'p1' } },
      },
      ...at([
        ['$pageview', 'p1', '2020-01-12 12:00:00'],
        ['$pageview', 'another_p1', '2020-01-14 12:00:00'],
        ['$pageview', 'p1', '2020-01-15 12:00:00'],
        ['$pageview', 'p1', '2020-01-17 12:00:00'],
        ['$pageview', 'p1', '2020-01-19 12:00:00'],
      ]),
    ])
    await cases.service.personOf(project.account, 'another_p1', (p) => (p.distinct_ids as string[]).includes('p1'))
    expect(byStatus(await lifecycle(project))).toEqual({
      dormant: [0, -1, 0, 0, -1, 0, -1, 0],
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
      returning: [0, 0, 0, 1, 0, 0, 0, 0],
    })
  })

  it('test_lifecycle_trend_weeks_sunday and test_lifecycle_trend_weeks_monday: weeks from the project’s first day of the week', async () => {
    const events = views([
      ['p1', ['2020-02-01', '2020-02-05', '2020-02-10', '2020-02-15', '2020-02-27', '2020-03-02']],
      ['p2', ['2020-02-11', '2020-02-18']],
      ['p3', ['2020-02-12']],
      ['p4', ['2020-02-27']],
    ])
    const expected = {
      dormant: [0, 0, -2, -1, -1, -1],
      new: [0, 2, 0, 1, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      returning: [1, 1, 1, 0, 1, 0],
    }
    const weeks = { interval: 'week', dateRange: { date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' } }
    const sunday = await lifecycle(await projectWith(events, { week_start_day: 0 }), weeks)
    expect(sunday[0].days).toEqual(['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23', '2020-03-01', '2020-03-08'])
    expect(byStatus(sunday)).toEqual(expected)
    const monday = await lifecycle(await projectWith(events, { week_start_day: 1 }), weeks)
    expect(monday[0].days).toEqual(['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09'])
    expect(byStatus(monday)).toEqual(expected)
  })
})

describe('retention/test/test_retention_query_runner.py', () => {
  /** Its `_date(day, hour, month)`: 10 June 2020 moved by `month` months and `day` days, at `hour` (UTC). */
  const date = (day: number, hour = 5, month = 0) => new Date(Date.UTC(2020, 5 + month, 10 + day, hour)).toISOString()
  const pageviews = (rows: Array<[string, string]>): SentEvent[] =>
    rows.map(([distinct_id, timestamp]) => ({ event: '$pageview', distinct_id, timestamp, properties: {} }))
  const retention = async (project: CaseProject, date_to: string, retentionFilter: Record<string, unknown>) =>
    ok(await project.query({ kind: 'RetentionQuery', dateRange: { date_to }, retentionFilter }))
  const counts = (results: any[]) => results.map((r) => r.values.map((v: any) => v.count))
  const pad = (rows: number[][]) => rows.map((row) => [...row, ...new Array<number>(rows[0]!.length - row.length).fill(0)])
  const utc = (...days: string[]) => days.map((d) => `${d}T00:00:00.000Z`)

  // test_week_interval's and test_interval_rounding's persons.
  const weeklyEvents = pageviews([
    ['person1', date(0)],
    ['person2', date(0)],
    ['person1', date(1)],
    ['person2', date(1)],
    ['person1', date(7)],
    ['person2', date(7)],
    ['person1', date(14)],
    ['person1', date(-6, 5, 1)],
    ['person2', date(-6, 5, 1)],
    ['person2', date(1, 5, 1)],
    ['person1', date(1, 5, 1)],
    ['person2', date(15, 5, 1)],
  ])
  const weeklyCounts = pad([[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]])
  const weeks = Array.from({ length: 7 }, (_, i) => `Week ${i}`)

  it('test_month_interval: cohorts by calendar month', async () => {
    const project = await projectWith(
      pageviews([
        ['person1', date(0, 5, -5)],
        ['person2', date(0, 5, -5)],
        ['person1', date(0, 5, -4)],
        ['person2', date(0, 5, -4)],
        ['person1', date(0, 5, -3)],
        ['person2', date(0, 5, -3)],
        ['person1', date(0, 5, -1)],
        ['person1', date(0, 5, 0)],
        ['person2', date(0, 5, 0)],
        ['person2', date(0, 5, 1)],
        ['person1', date(0, 5, 3)],
        ['person2', date(0, 5, 5)],
      ]),
    )
    const results = await retention(project, date(15, 0, 5), { period: 'Month', totalIntervals: 11 })
    expect(results.map((r) => r.label)).toEqual(Array.from({ length: 11 }, (_, i) => `Month ${i}`))
    expect(counts(results)).toEqual(
      pad([
        [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 0, 1, 2, 1, 0, 1, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 1, 0, 0],
        [2, 1, 0, 1, 0, 1],
        [1, 0, 0, 0, 1],
        [0, 0, 0, 0],
        [1, 0, 0],
        [0, 0],
        [1],
      ]),
    )
    expect(results.map((r) => r.date)).toEqual(
      utc(
        '2020-01-01',
        '2020-02-01',
        '2020-03-01',
        '2020-04-01',
        '2020-05-01',
        '2020-06-01',
        '2020-07-01',
        '2020-08-01',
        '2020-09-01',
        '2020-10-01',
        '2020-11-01',
      ),
    )
  })

  it('test_week_interval: weeks from Sunday, then from Monday once the project says so', async () => {
    const sunday = await retention(await projectWith(weeklyEvents), date(10, 0, 1), { period: 'Week', totalIntervals: 7 })
    expect(sunday.map((r) => r.label)).toEqual(weeks)
    expect(counts(sunday)).toEqual(weeklyCounts)
    expect(sunday.map((r) => r.date)).toEqual(
      utc('2020-06-07', '2020-06-14', '2020-06-21', '2020-06-28', '2020-07-05', '2020-07-12', '2020-07-19'),
    )
    const monday = await retention(await projectWith(weeklyEvents, { week_start_day: 1 }), date(10, 0, 1), {
      period: 'Week',
      totalIntervals: 7,
    })
    expect(counts(monday)).toEqual(weeklyCounts)
    expect(monday.map((r) => r.date)).toEqual(
      utc('2020-06-08', '2020-06-15', '2020-06-22', '2020-06-29', '2020-07-06', '2020-07-13', '2020-07-20'),
    )
  })

  it('test_interval_rounding: the first week is its whole week', async () => {
    const results = await retention(await projectWith(weeklyEvents), date(14, 0, 1), { period: 'Week', totalIntervals: 7 })
    expect(results.map((r) => r.label)).toEqual(weeks)
    expect(counts(results)).toEqual(weeklyCounts)
    expect(results.map((r) => r.date)).toEqual(
      utc('2020-06-07', '2020-06-14', '2020-06-21', '2020-06-28', '2020-07-05', '2020-07-12', '2020-07-19'),
    )
  })

  it('test_hour_interval: cohorts by hour up to the hour of date_to', async () => {
    const project = await projectWith(
      pageviews([
        ['person1', date(0, 6)],
        ['person2', date(0, 6)],
        ['person1', date(0, 7)],
        ['person2', date(0, 7)],
        ['person1', date(0, 8)],
        ['person2', date(0, 8)],
        ['person1', date(0, 10)],
        ['person1', date(0, 11)],
        ['person2', date(0, 11)],
        ['person2', date(0, 12)],
        ['person1', date(0, 14)],
        ['person2', date(0, 16)],
      ]),
    )
    const results = await retention(project, '2020-06-10T16:13:00Z', { period: 'Hour', totalIntervals: 11 })
    expect(results.map((r) => r.label)).toEqual(Array.from({ length: 11 }, (_, i) => `Hour ${i}`))
    expect(counts(results)).toEqual(
      pad([
        [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 0, 1, 2, 1, 0, 1, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 1, 0, 0],
        [2, 1, 0, 1, 0, 1],
        [1, 0, 0, 0, 1],
        [0, 0, 0, 0],
        [1, 0, 0],
        [0, 0],
        [1],
      ]),
    )
    expect(results.map((r) => r.date)).toEqual(
      Array.from({ length: 11 }, (_, h) => `2020-06-10T${String(6 + h).padStart(2, '0')}:00:00.000Z`),
    )
  })
})

describe('funnels/test/test_funnel_time_to_convert.py', () => {
  // Users a, b and c convert from step one to step two in 3,600 s, 2,220 s and 82,800 s.
  const threeUsers = (steps: [string, string, string] = ['step one', 'step two', 'step three']) =>
    at([
      [steps[0], 'user a', '2021-06-08 18:00:00'],
      [steps[1], 'user a', '2021-06-08 19:00:00'],
      [steps[2], 'user a', '2021-06-08 21:00:00'],
      [steps[0], 'user b', '2021-06-09 13:00:00'],
      [steps[1], 'user b', '2021-06-09 13:37:00'],
      [steps[0], 'user c', '2021-06-11 07:00:00'],
      [steps[1], 'user c', '2021-06-12 06:00:00'],
    ])
  const timeToConvert = async (
    project: CaseProject,
    funnelsFilter: Record<string, unknown> = {},
    events = ['step one', 'step two', 'step three'],
  ) => {
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: steps(...events),
      interval: 'day',
      dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
      funnelsFilter: {
        funnelVizType: 'time_to_convert',
        funnelFromStep: 0,
        funnelToStep: 1,
        funnelWindowInterval: 7,
        funnelWindowIntervalUnit: 'day',
        ...funnelsFilter,
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return pick([res.body.results], ['bins', 'average_conversion_time'])[0]
  }
  const autoBinned = {
    bins: [
      [2220, 2],
      [42510, 0],
      [82800, 1],
    ],
    average_conversion_time: 29540,
  }

  it('test_auto_bin_count_single_step: bins from the fastest and slowest conversion and how many there are', async () => {
    expect(await timeToConvert(await projectWith(threeUsers()))).toEqual(autoBinned)
  })

  it('test_auto_bin_count_single_step_duplicate_events: every step the same event', async () => {
    const project = await projectWith(threeUsers(['step one', 'step one', 'step one']))
    expect(await timeToConvert(project, {}, ['step one', 'step one', 'step one'])).toEqual(autoBinned)
  })

  it('test_custom_bin_count_single_step: seven bins and the end of the last', async () => {
    expect(await timeToConvert(await projectWith(threeUsers()), { binCount: 7 })).toEqual({
      bins: [
        [2220, 2],
        [13732, 0],
        [25244, 0],
        [36756, 0],
        [48268, 0],
        [59780, 0],
        [71292, 1],
        [82804, 0],
      ],
      average_conversion_time: 29540,
    })
  })

  it('test_basic_unordered: from the first of the steps, whichever it is', async () => {
    const project = await projectWith(
      at([
        ['step three', 'user a', '2021-06-08 18:00:00'],
        ['step one', 'user a', '2021-06-08 19:00:00'],
        ['step two', 'user a', '2021-06-08 21:00:00'],
        ['step one', 'user b', '2021-06-09 13:00:00'],
        ['step two', 'user b', '2021-06-09 13:37:00'],
        ['step two', 'user c', '2021-06-11 07:00:00'],
        ['step one', 'user c', '2021-06-12 06:00:00'],
      ]),
    )
    expect(await timeToConvert(project, { funnelOrderType: 'unordered' })).toEqual(autoBinned)
  })

  it('test_basic_strict: an event between the steps cancels the conversion', async () => {
    const project = await projectWith([
      ...threeUsers(),
      ...at([
        ['blah', 'user b', '2021-06-09 13:38:00'],
        ['step three', 'user b', '2021-06-09 13:39:00'],
        ['step one', 'user d', '2021-06-11 07:00:00'],
        ['blah', 'user d', '2021-06-12 07:00:00'],
        ['step two', 'user d', '2021-06-12 09:00:00'],
      ]),
    ])
    expect(await timeToConvert(project, { funnelOrderType: 'strict' })).toEqual(autoBinned)
  })
})

describe('funnels/test/test_funnel_trends.py', () => {
  /** Its `journeys_for`: each person's events at the given UTC times. */
  const journeys = (byPerson: Record<string, Array<[event: string, time: string]>>): SentEvent[] =>
    Object.entries(byPerson).flatMap(([person, events]) => at(events.map(([event, time]) => [event, person, time])))
  const oneCompleteRun = journeys({
    user_one: [
      ['step one', '2021-05-01 00:00:00'],
      ['step two', '2021-05-01 01:00:00'],
      ['step three', '2021-05-01 02:00:00'],
    ],
  })
  // _create_sample_data: five people through three steps.
  const sampleData = journeys({
    user_one: [
      ['step one', '2021-05-01 00:00:00'],
      ['step two', '2021-05-03 00:00:00'],
      ['step three', '2021-05-05 00:00:00'],
    ],
    user_two: [
      ['step one', '2021-05-02 00:00:00'],
      ['step two', '2021-05-04 00:00:00'],
    ],
    user_three: [['step one', '2021-05-06 00:00:00']],
    user_four: [['step none', '2021-05-06 00:00:00']],
    user_five: [
      ['step one', '2021-05-01 01:00:00'],
      ['step two', '2021-05-01 02:00:00'],
      ['step three', '2021-05-01 03:00:00'],
    ],
    user_six: [
      ['step one', '2021-05-01 00:00:00'],
      ['step two', '2021-05-03 00:00:00'],
      ['step three', '2021-05-05 00:00:00'],
    ],
    user_seven: [
      ['step one', '2021-05-02 00:00:00'],
      ['step two', '2021-05-04 00:00:00'],
    ],
  })
  /** The conversion rate per period (PostHog's `conversion_rate` of each summarized row) and the periods. */
  const funnelTrend = async (project: CaseProject, fields: Record<string, unknown>, funnelsFilter: Record<string, unknown> = {}) => {
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: steps('step one', 'step two', 'step three'),
      interval: 'day',
      funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...funnelsFilter },
      ...fields,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(1)
    return res.body.results[0] as { data: number[]; days: string[] }
  }
  const firstWeekOfMay = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }

  it('test_no_event_in_period: a period for each day of the range though no one entered', async () => {
    const project = await projectWith(journeys({ 'user a': [['Step one', '2021-06-06 21:00:00']] }))
    const row = await funnelTrend(project, { dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' } })
    expect(row.days).toHaveLength(7)
    expect(row.days[0]).toBe('2021-06-07')
  })

  it.each(['US/Pacific', 'UTC'])('test_only_one_user_reached_one_step (%s): nothing converted on any day', async (timezone) => {
    const project = await projectWith(journeys({ 'user a': [['step one', '2021-06-07 19:00:00']] }), { timezone })
    const row = await funnelTrend(project, { dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' } })
    expect(row.days).toEqual(['2021-06-07', '2021-06-08', '2021-06-09', '2021-06-10', '2021-06-11', '2021-06-12', '2021-06-13'])
    expect(row.data).toEqual([0, 0, 0, 0, 0, 0, 0])
  })

  it('test_hour_interval: a period for every hour up to now (6 May, 23:40)', async () => {
    const row = await funnelTrend(await projectWith([]), {
      interval: 'hour',
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-06 23:40:59' },
    })
    expect(row.days).toHaveLength(144)
  })

  it('test_day_interval and test_week_interval: one complete run on the first day, in the first week', async () => {
    const project = await projectWith(oneCompleteRun)
    const days = await funnelTrend(project, { dateRange: firstWeekOfMay })
    expect(days.data).toEqual([100, 0, 0, 0, 0, 0, 0])
    const weeks = await funnelTrend(project, { interval: 'week', dateRange: firstWeekOfMay })
    expect(weeks.days).toEqual(['2021-04-25', '2021-05-02'])
    expect(weeks.data).toEqual([100, 0])
  })

  it.each([
    ['UTC', [0, 0, 0, 0, 100, 0, 0]],
    ['US/Pacific', [0, 0, 0, 100, 0, 0, 0]],
  ])('test_month_interval (%s): a run at midnight UTC on 1 May is in April in California', async (timezone, data) => {
    const project = await projectWith(
      journeys({
        user_one: [
          ['step one', '2020-05-01 00:00:00'],
          ['step two', '2020-05-01 01:00:00'],
          ['step three', '2020-05-01 02:00:00'],
        ],
      }),
      { timezone },
    )
    const row = await funnelTrend(project, {
      interval: 'month',
      dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' },
    })
    expect(row.data).toEqual(data)
    expect(row.days[0]).toBe('2020-01-01')
  })

  it('test_all_date_range: from the first event to now (20 May)', async () => {
    const row = await funnelTrend(await projectWith(oneCompleteRun), { dateRange: { date_from: 'all', date_to: '2021-05-20' } })
    expect(row.days).toHaveLength(20)
    expect(row.data[0]).toBe(100)
  })

  it('test_all_results_for_day_interval: each day the share of those who entered then who completed within the window', async () => {
    const row = await funnelTrend(await projectWith(sampleData), { dateRange: firstWeekOfMay })
    expect(row.data).toEqual([100, 0, 0, 0, 0, 0, 0])
  })

  it('test_window_size_one_day: one of the three who entered on the first day completed within a day', async () => {
    const row = await funnelTrend(await projectWith(sampleData), { dateRange: firstWeekOfMay }, { funnelWindowInterval: 1 })
    expect(row.data).toEqual([33.33, 0, 0, 0, 0, 0, 0])
  })

  it('test_two_runs_by_single_user_in_one_period and test_steps_performed_in_period_but_in_reverse', async () => {
    const oneDay = { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-01 23:59:59' } }
    const twice = await projectWith(
      journeys({
        user_one: [
          ['step one', '2021-05-01 00:00:00'],
          ['step two', '2021-05-01 01:00:00'],
          ['step three', '2021-05-01 02:00:00'],
          ['step one', '2021-05-01 13:00:00'],
          ['step two', '2021-05-01 14:00:00'],
          ['step three', '2021-05-01 15:00:00'],
        ],
      }),
    )
    expect((await funnelTrend(twice, oneDay, { funnelWindowInterval: 1 })).data).toEqual([100])
    const reversed = await projectWith(
      journeys({
        user_one: [
          ['step three', '2021-05-01 01:00:00'],
          ['step two', '2021-05-01 02:00:00'],
          ['step one', '2021-05-01 03:00:00'],
        ],
      }),
    )
    expect((await funnelTrend(reversed, oneDay, { funnelWindowInterval: 1 })).data).toEqual([0])
  })

  it('test_one_person_in_multiple_periods_and_windows: each day its own entrants', async () => {
    const project = await projectWith(
      journeys({
        user_one: [
          ['step one', '2021-05-01 01:00:00'],
          ['step two', '2021-05-01 02:00:00'],
          ['step three', '2021-05-01 03:00:00'],
          ['step one', '2021-05-03 01:00:00'],
          ['step two', '2021-05-03 02:00:00'],
          ['step one', '2021-05-04 11:00:00'],
          ['step two', '2021-05-04 12:00:00'],
          ['step three', '2021-05-04 13:00:00'],
        ],
        user_two: [['step one', '2021-05-04 18:00:00']],
      }),
    )
    const row = await funnelTrend(
      project,
      { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-04 23:59:59' } },
      { funnelWindowInterval: 1 },
    )
    expect(row.data).toEqual([100, 0, 0, 50])
  })
})

describe('paths/test/test_paths_query_runner.py', () => {
  /** A person with two distinct ids, as its `_create_person` makes one: identified long before the range. */
  const merge = (into: string, from: string): SentEvent => ({
    event: '$identify',
    distinct_id: into,
    timestamp: '2011-01-01T00:00:00Z',
    properties: { $anon_distinct_id: from },
  })
  const merged = (project: CaseProject, into: string, from: string) =>
    cases.service.personOf(project.account, from, (p) => (p.distinct_ids as string[]).includes(into))
  const paths = async (project: CaseProject, fields: Record<string, unknown>) => {
    const res = await project.query({ kind: 'PathsQuery', dateRange: aroundNow, pathsFilter: {}, ...fields })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return pick(res.body.results, ['source', 'target', 'value'])
  }
  const url = (u: string) => ({ $current_url: u })
  const fourPersonsPaths = [
    { source: '1_/', target: '2_/pricing', value: 2 },
    { source: '1_/', target: '2_/about', value: 1 },
    { source: '1_/pricing', target: '2_/', value: 1 },
    { source: '2_/pricing', target: '3_/about', value: 1 },
  ]

  it('test_current_url_paths_and_logic: page views by URL, in the range, without test accounts', async () => {
    const view = (distinctId: string, time: string, u: string): SentEvent => ({
      event: '$pageview',
      distinct_id: distinctId,
      timestamp: `${time.replace(' ', 'T')}Z`,
      properties: url(u),
    })
    const project = await projectWith(
      [
        merge('person_2a', 'person_2b'),
        view('fake', '2012-01-01 03:21:34', '/'),
        view('fake', '2012-01-01 03:21:34', '/about'),
        { ...view('person_1', '2012-01-14 03:21:34', '/'), properties: { ...url('/'), $set: { email: 'test@posthog.com' } } },
        view('person_1', '2012-01-14 03:28:34', '/about'),
        view('person_2a', '2012-01-14 03:21:34', '/'),
        view('person_2b', '2012-01-14 03:28:34', '/pricing'),
        view('person_2a', '2012-01-14 03:29:34', '/about'),
        view('person_3', '2012-01-14 03:21:34', '/pricing'),
        view('person_3', '2012-01-14 03:28:34', '/'),
        view('person_4', '2012-01-14 03:21:34', '/'),
        view('person_4', '2012-01-14 03:28:34', '/pricing'),
      ],
      {
        test_account_filters: [
          { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' },
          { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' },
        ],
      },
    )
    await merged(project, 'person_2a', 'person_2b')
    // Now is 15 January 2012: the last seven days.
    expect(await paths(project, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-15' } })).toEqual(fourPersonsPaths)
    expect(await paths(project, { dateRange: { date_from: '2012-01-22', date_to: '2012-01-22' } })).toEqual([])
    expect(await paths(project, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-22' } })).toHaveLength(4)
    expect(await paths(project, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-22' }, filterTestAccounts: true })).toHaveLength(
      3,
    )
  })

  it('test_custom_event_paths: custom events only, by name', async () => {
    const project = await projectWith(
      inOrder(NOW, [
        ['custom_event_1', 'person_1'],
        ['custom_event_3', 'person_1'],
        ['$pageview', 'person_1', url('/')],
        ['custom_event_1', 'person_2'],
        ['custom_event_2', 'person_2'],
        ['custom_event_3', 'person_2'],
        ['custom_event_2', 'person_3'],
        ['custom_event_1', 'person_3'],
        ['custom_event_1', 'person_4'],
        ['custom_event_2', 'person_4'],
      ]),
    )
    expect(await paths(project, { pathsFilter: { includeEventTypes: ['custom_event'] } })).toEqual([
      { source: '1_custom_event_1', target: '2_custom_event_2', value: 2 },
      { source: '1_custom_event_1', target: '2_custom_event_3', value: 1 },
      { source: '1_custom_event_2', target: '2_custom_event_1', value: 1 },
      { source: '2_custom_event_2', target: '3_custom_event_3', value: 1 },
    ])
  })

  it('test_screen_paths: screens by name', async () => {
    const screen = (name: string) => ({ $screen_name: name })
    const project = await projectWith([
      merge('person_2a', 'person_2b'),
      ...inOrder(NOW, [
        ['$screen', 'person_1', screen('/')],
        ['$screen', 'person_1', screen('/about')],
        ['$screen', 'person_2b', screen('/')],
        ['$screen', 'person_2a', screen('/pricing')],
        ['$screen', 'person_2b', screen('/about')],
        ['$screen', 'person_3', screen('/pricing')],
        ['$screen', 'person_3', screen('/')],
        ['$screen', 'person_4', screen('/')],
        ['$screen', 'person_4', screen('/pricing')],
      ]),
    ])
    await merged(project, 'person_2a', 'person_2b')
    expect(await paths(project, { pathsFilter: { includeEventTypes: ['$screen'] } })).toEqual(fourPersonsPaths)
  })

  it('test_paths_properties_filter: only the events matching the query’s property filter', async () => {
    const chrome = (u: string) => ({ ...url(u), $browser: 'Chrome' })
    const project = await projectWith(
      inOrder(NOW, [
        ['$pageview', 'person_1', chrome('/')],
        ['$pageview', 'person_1', chrome('/about')],
        ['$pageview', 'person_2', chrome('/')],
        ['$pageview', 'person_2', chrome('/pricing')],
        ['$pageview', 'person_2', chrome('/about')],
        ['$pageview', 'person_3', url('/pricing')],
        ['$pageview', 'person_3', url('/')],
        ['$pageview', 'person_4', url('/')],
        ['$pageview', 'person_4', url('/pricing')],
      ]),
    )
    const properties = {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }] }],
    }
    expect(await paths(project, { properties })).toEqual([
      { source: '1_/', target: '2_/about', value: 1 },
      { source: '1_/', target: '2_/pricing', value: 1 },
      { source: '2_/pricing', target: '3_/about', value: 1 },
    ])
  })

  it('test_paths_start: paths from a start point, a trailing slash no other page', async () => {
    const project = await projectWith([
      merge('person_5a', 'person_5b'),
      ...inOrder(NOW, [
        ['$pageview', 'person_1', url('/')],
        ['$pageview', 'person_1', url('/about/')],
        ['$pageview', 'person_2', url('/')],
        ['$pageview', 'person_2', url('/pricing/')],
        ['$pageview', 'person_2', url('/about')],
        ['$pageview', 'person_3', url('/pricing')],
        ['$pageview', 'person_3', url('/')],
        ['$pageview', 'person_3', url('/about/')],
        ['$pageview', 'person_4', url('/')],
        ['$pageview', 'person_4', url('/pricing/')],
        ['$pageview', 'person_5a', url('/pricing')],
        ['$pageview', 'person_5b', url('/about')],
        ['$pageview', 'person_5a', url('/pricing/')],
        ['$pageview', 'person_5b', url('/help')],
      ]),
    ])
    await merged(project, 'person_5a', 'person_5b')
    const fromPricing = [
      { source: '1_/pricing', target: '2_/about', value: 2 },
      { source: '1_/pricing', target: '2_/', value: 1 },
      { source: '2_/', target: '3_/about', value: 1 },
      { source: '2_/about', target: '3_/pricing', value: 1 },
      { source: '3_/pricing', target: '4_/help', value: 1 },
    ]
    expect(await paths(project, { pathsFilter: { startPoint: '/pricing' } })).toEqual(fromPricing)
    expect(await paths(project, { pathsFilter: { startPoint: '/pricing/' } })).toEqual(fromPricing)
    expect(await paths(project, { pathsFilter: { startPoint: '/' } })).toEqual([
      { source: '1_/', target: '2_/about', value: 2 },
      { source: '1_/', target: '2_/pricing', value: 2 },
      { source: '2_/pricing', target: '3_/about', value: 1 },
    ])
  })
})

describe('test/test_events_query_runner.py', () => {
  /** Its `_create_events`: page views, each person named after their distinct id. */
  const pageviews = (rows: Array<[distinctId: string, time: string, properties: Record<string, unknown>]>): SentEvent[] =>
    rows.map(([distinct_id, time, properties]) => ({
      event: '$pageview',
      distinct_id,
      timestamp: time.endsWith('Z') ? time : `${time}Z`,
      properties: { ...properties, $set: { name: distinct_id } },
    }))
  const events = async (project: CaseProject, fields: Record<string, unknown>) => {
    const res = await project.query({ kind: 'EventsQuery', event: '$pageview', orderBy: ['timestamp ASC'], select: ['*'], ...fields })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return (res.body.results as Array<[Record<string, any>]>).map(([event]) => event)
  }
  // Now is 11 January 2020, 12:01: `after: -24h`.
  const lastDay = { after: '2020-01-10T12:01:00Z', before: '2020-01-11T12:01:00Z' }
  let booleans: CaseProject | undefined
  const booleanFieldProject = async () =>
    (booleans ??= await projectWith(
      pageviews([
        ['p_true', '2020-01-11T12:00:01Z', { boolean_field: true }],
        ['p_false', '2020-01-11T12:00:02Z', { boolean_field: false }],
        ['p_notset', '2020-01-11T12:00:04Z', {}],
        ['p_null', '2020-01-11T12:00:04Z', { boolean_field: null }],
      ]),
    ))
  const withBooleanField = async (operator: string) =>
    new Set(
      (
        await events(await booleanFieldProject(), {
          ...lastDay,
          properties: [{ type: 'event', key: 'boolean_field', operator, value: operator }],
        })
      ).map((e) => e.distinct_id),
    )

  it('test_is_not_set_boolean: a null value is not set', async () => {
    expect(await withBooleanField('is_not_set')).toEqual(new Set(['p_notset', 'p_null']))
  })

  it('test_is_set_boolean: false is set', async () => {
    expect(await withBooleanField('is_set')).toEqual(new Set(['p_true', 'p_false']))
  })

  it('test_absolute_date_range: after a date and before the end of that day, in the project’s zone', async () => {
    const rows: Array<[string, string, Record<string, unknown>]> = [
      ['p17', '2020-01-11T22:00:00', {}],
      ['p2', '2020-01-12T01:00:00', {}],
      ['p3', '2020-01-12T12:00:00', {}],
      ['p1', '2020-01-12T23:00:00', {}],
      ['p3', '2020-01-13T02:00:00', {}],
    ]
    const project = await projectWith(pageviews(rows))
    const found = await events(project, { after: '2020-01-12', before: '2020-01-12T23:59:59' })
    expect(found.map((e) => Date.parse(e.timestamp))).toEqual(
      ['2020-01-12T01:00:00Z', '2020-01-12T12:00:00Z', '2020-01-12T23:00:00Z'].map(Date.parse),
    )
  })
})

describe('trends/test/test_trends.py', () => {
  /** Its `_create_events`: sign ups of one person with two distinct ids, at midnight on the days frozen. */
  const createEvents = (): SentEvent[] => {
    const signUp = (distinct_id: string, day: string, properties: Record<string, unknown> = {}, event = 'sign up'): SentEvent => ({
      event,
      distinct_id,
      timestamp: `${day}T00:00:00Z`,
      properties,
    })
    return [
      { event: '$identify', distinct_id: 'blabla', timestamp: '2019-01-01T00:00:00Z', properties: { $anon_distinct_id: 'anonymous_id' } },
      signUp('blabla', '2019-12-24', { $some_property: 'value', $bool_prop: true }),
      signUp('blabla', '2020-01-01', { $some_property: 'value', $bool_prop: false }),
      signUp('anonymous_id', '2020-01-01', { $bool_prop: false }),
      signUp('blabla', '2020-01-01'),
      signUp('blabla', '2020-01-02', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      signUp('blabla', '2020-01-02', {}, 'no events'),
    ]
  }
  // `-7d` at 4 January 2020, 13:00: from 28 December.
  const lastWeek = { date_from: '2019-12-28', date_to: '2020-01-04' }
  const trend = async (project: CaseProject, fields: Record<string, unknown>) =>
    ok(await project.query({ kind: 'TrendsQuery', dateRange: lastWeek, ...fields }))

  it('test_trends_per_day: each day’s sign ups, a series of no events beside them', async () => {
    const project = await projectWith(createEvents())
    const [row] = await trend(project, {
      series: [
        { kind: 'EventsNode', event: 'sign up' },
        { kind: 'EventsNode', event: 'no events' },
      ],
    })
    expect(row.label).toBe('sign up')
    expect([row.labels[4], row.data[4], row.labels[5], row.data[5]]).toEqual(['1-Jan-2020', 3, '2-Jan-2020', 1])
  })

  it('test_trends_single_aggregate_dau: one person in the table, by week or by day', async () => {
    const project = await projectWith(createEvents())
    await cases.service.personOf(project.account, 'anonymous_id', (p) => (p.distinct_ids as string[]).includes('blabla'))
    for (const interval of ['week', 'day']) {
      const [row] = await trend(project, {
        interval,
        series: [{ kind: 'EventsNode', event: 'sign up', math: 'dau' }],
        trendsFilter: { display: 'ActionsTable' },
      })
      expect(row.aggregated_value, interval).toBe(1)
    }
  })

  it('test_trends_single_aggregate_math: the median of the range’s values, by week or by day', async () => {
    const project = await projectWith(
      [1, 1, 1, 2, 3, 4, 4].map((value, i) => ({
        event: 'sign up',
        distinct_id: 'blabla',
        timestamp: i < 5 ? '2020-01-01T00:06:34Z' : '2020-01-02T00:06:34Z',
        properties: { $math_prop: value },
      })),
    )
    for (const interval of ['week', 'day']) {
      const [row] = await trend(project, {
        interval,
        series: [{ kind: 'EventsNode', event: 'sign up', math: 'median', math_property: '$math_prop' }],
        trendsFilter: { display: 'ActionsTable' },
      })
      expect(row.aggregated_value, interval).toBe(2)
    }
  })
})

// PostHog runs these for ordered funnels (test_funnel.py) and unordered ones (test_funnel_unordered.py).
describe.each(['ordered', 'unordered'])('funnels/test/conversion_time_cases.py, %s', (funnelOrderType) => {
  const funnel = async (
    project: CaseProject,
    events: string[],
    fields: Record<string, unknown>,
    funnelsFilter: Record<string, unknown>,
  ) => {
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: steps(...events),
      ...fields,
      funnelsFilter: { funnelOrderType, ...funnelsFilter },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.results as any[]
  }

  it('test_funnel_with_multiple_incomplete_tries: the complete try’s time, the incomplete ones disregarded', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'person1', '2021-05-01 01:00:00'],
        ['$pageview', 'person1', '2021-05-01 02:00:00'],
        ['something else', 'person1', '2021-05-01 03:00:00'],
        ['user signed up', 'person1', '2021-05-03 04:00:00'],
        ['$pageview', 'person1', '2021-05-03 05:00:00'],
        ['user signed up', 'person1', '2021-05-04 07:00:00'],
        ['$pageview', 'person1', '2021-05-04 10:00:00'],
      ]),
    )
    const results = await funnel(
      project,
      ['user signed up', '$pageview', 'something else'],
      { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' } },
      { funnelWindowInterval: 1 },
    )
    expect(results[0].count).toBe(1)
    expect([results[1].average_conversion_time, results[1].median_conversion_time]).toEqual([3600, 3600])
  })

  it('test_funnel_step_conversion_times: average and median time of each step from the one before', async () => {
    const project = await projectWith(
      at([
        ['sign up', 'person1', '2020-01-01 12:00:00'],
        ['play movie', 'person1', '2020-01-01 13:00:00'],
        ['buy', 'person1', '2020-01-01 15:00:00'],
        ['sign up', 'person2', '2020-01-02 14:00:00'],
        ['play movie', 'person2', '2020-01-02 16:00:00'],
        ['sign up', 'person3', '2020-01-02 14:00:00'],
        ['play movie', 'person3', '2020-01-02 16:00:00'],
        ['buy', 'person3', '2020-01-02 17:00:00'],
      ]),
    )
    const results = await funnel(
      project,
      ['sign up', 'play movie', 'buy'],
      { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } },
      { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
    )
    expect(results.map((s) => [s.average_conversion_time, s.median_conversion_time])).toEqual([
      [null, null],
      [6000, 7200],
      [5400, 5400],
    ])
  })

  it('test_funnel_times_with_different_conversion_windows: fourteen days, then five minutes', async () => {
    const project = await projectWith(
      at([
        ['user signed up', 'stopped_after_signup1', '2020-01-02 14:00:00'],
        ['pageview', 'stopped_after_signup1', '2020-01-02 14:05:00'],
        ['user signed up', 'stopped_after_signup2', '2020-01-02 14:03:00'],
        ['user signed up', 'stopped_after_signup3', '2020-01-02 12:00:00'],
        ['pageview', 'stopped_after_signup3', '2020-01-02 12:15:00'],
      ]),
    )
    const within = async (funnelWindowInterval: number, funnelWindowIntervalUnit: string) =>
      (
        await funnel(
          project,
          ['user signed up', 'pageview'],
          { dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
          { funnelWindowInterval, funnelWindowIntervalUnit },
        )
      ).map((s) => [s.count, s.average_conversion_time])
    expect(await within(14, 'day')).toEqual([
      [3, null],
      [2, 600],
    ])
    expect(await within(5, 'minute')).toEqual([
      [3, null],
      [1, 300],
    ])
  })
})
