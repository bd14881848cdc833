import { describe, expect, it } from 'vitest'
import {
  DEFAULT_FORM,
  formOf,
  parseQueryParam,
  queryOf,
  sourceOfInsight,
  undrawnInsight,
  withDateRange,
  withPropertyFilter,
  type BuilderForm,
} from './insightQuery'

const form = (patch: Partial<BuilderForm>): BuilderForm => ({ ...DEFAULT_FORM, ...patch })

describe("the insight builder's query", () => {
  it('makes a trend of each series with its math, a breakdown, the dates, the interval, the display and a comparison', () => {
    const query = queryOf(
      form({
        series: [
          { event: 'order placed', math: 'sum', property: 'total' },
          { event: '', math: 'dau', property: 'ignored' },
          { event: '$pageview', math: 'total', property: '' },
        ],
        breakdowns: [{ property: ' plan ', type: 'event' }],
        dateFrom: '-30d',
        interval: 'week',
        display: 'ActionsBar',
        compare: true,
      }),
    )
    expect(query).toEqual({
      kind: 'TrendsQuery',
      series: [
        { kind: 'EventsNode', event: 'order placed', name: 'order placed', math: 'sum', math_property: 'total' },
        { kind: 'EventsNode', event: null, name: 'All events', math: 'dau' },
        { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
      ],
      interval: 'week',
      dateRange: { date_from: '-30d' },
      trendsFilter: { display: 'ActionsBar' },
      breakdownFilter: { breakdown_type: 'event', breakdown: 'plan' },
      compareFilter: { compare: true },
    })
  })

  it('adds a formula and the cumulative display to a trend, and reads them back from the query', () => {
    const patch = {
      display: 'ActionsLineGraphCumulative' as const,
      formula: ' A/B ',
      series: [DEFAULT_FORM.series[0]!, DEFAULT_FORM.series[0]!],
    }
    const query = queryOf(form(patch))
    expect(query.trendsFilter).toEqual({ display: 'ActionsLineGraphCumulative', formula: 'A/B' })
    expect(formOf(query)).toMatchObject({ display: 'ActionsLineGraphCumulative', formula: 'A/B' })
    // No formula asks for none.
    expect(queryOf(form({ formula: '  ' })).trendsFilter).toEqual({ display: 'ActionsLineGraph' })
  })

  it('makes a funnel of the steps with its conversion window, order and breakdown, and no math', () => {
    const query = queryOf(
      form({
        kind: 'FunnelsQuery',
        series: [
          { event: 'signed up', math: 'dau', property: '' },
          { event: 'order placed', math: 'total', property: '' },
        ],
        windowInterval: 3,
        windowUnit: 'hour',
        order: 'strict',
        breakdowns: [{ property: '$browser', type: 'event' }],
      }),
    )
    expect(query).toEqual({
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: 'signed up', name: 'signed up' },
        { kind: 'EventsNode', event: 'order placed', name: 'order placed' },
      ],
      dateRange: { date_from: '-7d' },
      funnelsFilter: { funnelWindowInterval: 3, funnelWindowIntervalUnit: 'hour', funnelOrderType: 'strict', funnelVizType: 'steps' },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    })
  })

  it('breaks a trend down by several properties, event or person, as `breakdowns`', () => {
    const query = queryOf(
      form({
        breakdowns: [
          { property: ' $browser ', type: 'event' },
          { property: '', type: 'event' },
          { property: 'plan', type: 'person' },
          { property: '$pathname', type: 'event' },
        ],
        normalizeUrl: true,
        // Bins are for one breakdown alone: PostHog takes none with several.
        histogramBins: 10,
      }),
    )
    expect(query.breakdownFilter).toEqual({
      breakdowns: [
        { property: '$browser', type: 'event' },
        { property: 'plan', type: 'person' },
        { property: '$pathname', type: 'event', normalize_url: true },
      ],
    })
    expect(formOf(JSON.parse(JSON.stringify(query)))).toMatchObject({
      breakdowns: [
        { property: '$browser', type: 'event' },
        { property: 'plan', type: 'person' },
        { property: '$pathname', type: 'event' },
      ],
      normalizeUrl: true,
      histogramBins: 0,
    })
  })

  it('breaks a trend down by cohorts (and all users) alone, or by a HogQL expression, and a funnel by an expression only', () => {
    const byCohort = form({
      breakdowns: [
        { property: '', type: 'cohort', cohorts: [3, 'all'] },
        { property: 'plan', type: 'event' },
      ],
      histogramBins: 10,
    })
    const cohortTrend = queryOf(byCohort)
    expect(cohortTrend.breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [3, 'all'] })
    expect(formOf(JSON.parse(JSON.stringify(cohortTrend))).breakdowns).toEqual([{ property: '', type: 'cohort', cohorts: [3, 'all'] }])
    expect(formOf({ kind: 'TrendsQuery', breakdownFilter: { breakdown_type: 'cohort', breakdown: 5 } }).breakdowns).toEqual([
      { property: '', type: 'cohort', cohorts: [5] },
    ])
    // No cohort chosen asks for no breakdown.
    expect(queryOf(form({ breakdowns: [{ property: '', type: 'cohort', cohorts: [] }] })).breakdownFilter).toBeUndefined()

    const expression = "if(toFloat(properties.amount) > 50, 'large', 'small')"
    const hogqlTrend = queryOf(
      form({ breakdowns: [{ property: ` ${expression} `, type: 'hogql' }], histogramBins: 10, normalizeUrl: true }),
    )
    expect(hogqlTrend.breakdownFilter).toEqual({ breakdown_type: 'hogql', breakdown: expression })
    expect(formOf(hogqlTrend).breakdowns).toEqual([{ property: expression, type: 'hogql' }])
    expect(
      queryOf(
        form({
          breakdowns: [
            { property: 'properties.$browser', type: 'hogql' },
            { property: 'plan', type: 'person' },
          ],
        }),
      ).breakdownFilter,
    ).toEqual({
      breakdowns: [
        { property: 'properties.$browser', type: 'hogql' },
        { property: 'plan', type: 'person' },
      ],
    })

    expect(queryOf({ ...byCohort, kind: 'FunnelsQuery' }).breakdownFilter).toBeUndefined()
    expect(queryOf(form({ kind: 'FunnelsQuery', breakdowns: [{ property: 'properties.x', type: 'hogql' }] })).breakdownFilter).toEqual({
      breakdown_type: 'hogql',
      breakdown: 'properties.x',
    })
  })

  it('bins one numeric breakdown, normalizes a URL one, and asks neither of a funnel', () => {
    const binned = queryOf(form({ breakdowns: [{ property: 'total', type: 'event' }], histogramBins: 5, normalizeUrl: true }))
    // `total` is no URL: nothing to normalize.
    expect(binned.breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: 'total', breakdown_histogram_bin_count: 5 })
    expect(formOf(binned)).toMatchObject({ breakdowns: [{ property: 'total', type: 'event' }], histogramBins: 5 })
    const url = queryOf(form({ breakdowns: [{ property: '$current_url', type: 'person' }], normalizeUrl: true }))
    expect(url.breakdownFilter).toEqual({ breakdown_type: 'person', breakdown: '$current_url', breakdown_normalize_url: true })
    expect(formOf(url)).toMatchObject({ normalizeUrl: true, histogramBins: 0 })
    const funnel = queryOf(
      form({
        kind: 'FunnelsQuery',
        breakdowns: [
          { property: 'plan', type: 'person' },
          { property: '$browser', type: 'event' },
        ],
        histogramBins: 5,
        normalizeUrl: true,
      }),
    )
    expect(funnel.breakdownFilter).toEqual({ breakdown_type: 'person', breakdown: 'plan' })
  })

  it('smooths a daily trend over 7 or 28 days, and no other interval', () => {
    expect(queryOf(form({ smoothing: 7 })).trendsFilter).toEqual({ display: 'ActionsLineGraph', smoothingIntervals: 7 })
    expect(formOf(queryOf(form({ smoothing: 28 }))).smoothing).toBe(28)
    expect(queryOf(form({ smoothing: 1 })).trendsFilter).toEqual({ display: 'ActionsLineGraph' })
    expect(queryOf(form({ smoothing: 7, interval: 'week' })).trendsFilter).toEqual({ display: 'ActionsLineGraph' })
    // A query's own length (from the API) is kept.
    const three = { kind: 'TrendsQuery', series: [], interval: 'day', trendsFilter: { smoothingIntervals: 3 } }
    expect(queryOf(formOf(three)).trendsFilter).toEqual({ display: 'ActionsLineGraph', smoothingIntervals: 3 })
  })

  it('makes retention of a start and a return event by period', () => {
    expect(queryOf(form({ kind: 'RetentionQuery', startEvent: 'signed up', returnEvent: '', period: 'Week', totalIntervals: 5 }))).toEqual({
      kind: 'RetentionQuery',
      dateRange: { date_from: '-7d' },
      retentionFilter: {
        targetEntity: { id: 'signed up', name: 'signed up', type: 'events' },
        returningEntity: { id: null, name: 'All events', type: 'events' },
        period: 'Week',
        totalIntervals: 5,
        retentionType: 'retention_first_time',
      },
    })
  })

  it("makes a series or a funnel step of one of the project's actions, with its math, and reads it back", () => {
    const series = [
      { event: '', math: 'dau' as const, property: '', actionId: 12 },
      { event: 'purchase', math: 'total' as const, property: '' },
    ]
    const trend = queryOf(form({ series }))
    expect(trend.series).toEqual([
      { kind: 'ActionsNode', id: 12, math: 'dau' },
      { kind: 'EventsNode', event: 'purchase', name: 'purchase' },
    ])
    expect(formOf(JSON.parse(JSON.stringify(trend))).series).toEqual([series[0], series[1]])
    expect(queryOf(form({ kind: 'FunnelsQuery', series })).series).toEqual([
      { kind: 'ActionsNode', id: 12 },
      { kind: 'EventsNode', event: 'purchase', name: 'purchase' },
    ])
    expect(queryOf(form({ kind: 'StickinessQuery', series })).series).toMatchObject([{ kind: 'ActionsNode', id: 12 }, {}])
    // An ActionsNode without a numeric id is no action: the series falls back to every event.
    expect(formOf({ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: 'x' }] }).series[0]!.actionId).toBeUndefined()
  })

  it("makes retention of one of the project's actions as its start or return, and reads it back", () => {
    const retention = queryOf(form({ kind: 'RetentionQuery', startEvent: 'ignored', startActionId: 8, returnEvent: 'paid' }))
    expect(retention.retentionFilter).toMatchObject({
      targetEntity: { id: 8, type: 'actions' },
      returningEntity: { id: 'paid', name: 'paid', type: 'events' },
    })
    const back = formOf(JSON.parse(JSON.stringify(retention)))
    expect(back).toMatchObject({ startActionId: 8, startEvent: '$pageview', returnEvent: 'paid' })
    expect(back.returnActionId).toBeUndefined()
  })

  it('makes lifecycle of the first series only, and stickiness of every series', () => {
    const series = [
      { event: 'a', math: 'total' as const, property: '' },
      { event: 'b', math: 'total' as const, property: '' },
    ]
    const lifecycle = queryOf(form({ kind: 'LifecycleQuery', series, interval: 'month' }))
    expect(lifecycle).toMatchObject({ kind: 'LifecycleQuery', interval: 'month', series: [{ event: 'a' }] })
    expect(lifecycle.series).toHaveLength(1)
    expect(queryOf(form({ kind: 'StickinessQuery', series }))).toMatchObject({
      kind: 'StickinessQuery',
      series: [{ event: 'a' }, { event: 'b' }],
    })
  })

  it('makes paths of the chosen event types, a start and an end point, and a step limit kept within 2 to 20', () => {
    expect(
      queryOf(
        form({ kind: 'PathsQuery', pathEventTypes: ['$pageview', 'custom_event'], startPoint: ' /home ', stepLimit: 7, dateFrom: '-30d' }),
      ),
    ).toEqual({
      kind: 'PathsQuery',
      dateRange: { date_from: '-30d' },
      pathsFilter: { includeEventTypes: ['$pageview', 'custom_event'], startPoint: '/home', stepLimit: 7 },
    })
    expect(queryOf(form({ kind: 'PathsQuery', endPoint: 'order placed', stepLimit: 50 })).pathsFilter).toEqual({
      includeEventTypes: ['$pageview'],
      endPoint: 'order placed',
      stepLimit: 20,
    })
    // A cleared step limit asks PostHog's default; no event type chosen asks every event.
    expect(queryOf(form({ kind: 'PathsQuery', pathEventTypes: [], stepLimit: 0 })).pathsFilter).toEqual({
      includeEventTypes: [],
      stepLimit: 5,
    })
    expect(formOf({ kind: 'PathsQuery', pathsFilter: { includeEventTypes: ['$screen', 'hogql'], stepLimit: 1 } })).toMatchObject({
      pathEventTypes: ['$screen'],
      stepLimit: 2,
    })
  })

  it('reads back every kind from its query, so a link (or a saved insight) redraws the same form', () => {
    const forms: BuilderForm[] = [
      form({
        series: [{ event: 'x', math: 'median', property: 'price' }],
        breakdowns: [{ property: 'plan', type: 'person' }],
        compare: true,
        display: 'BoldNumber',
        interval: 'hour',
      }),
      form({
        kind: 'FunnelsQuery',
        series: [
          { event: 'a', math: 'total', property: '' },
          { event: 'b', math: 'total', property: '' },
        ],
        windowInterval: 2,
        windowUnit: 'week',
        order: 'unordered',
        breakdowns: [{ property: 'plan', type: 'event' }],
      }),
      form({
        breakdowns: [
          { property: '$current_url', type: 'event' },
          { property: 'plan', type: 'person' },
        ],
        normalizeUrl: true,
        smoothing: 7,
        display: 'ActionsLineGraphCumulative',
      }),
      form({ breakdowns: [{ property: 'total', type: 'event' }], histogramBins: 20, smoothing: 28 }),
      form({ breakdowns: [{ property: '$pathname', type: 'person' }], normalizeUrl: true, display: 'ActionsPie' }),
      form({ kind: 'RetentionQuery', startEvent: 'a', returnEvent: 'b', period: 'Month', totalIntervals: 3, dateFrom: '-90d' }),
      form({ kind: 'StickinessQuery', dateFrom: 'all', interval: 'week' }),
      form({ kind: 'PathsQuery', pathEventTypes: ['$screen', 'custom_event'], startPoint: 'a', endPoint: '/b', stepLimit: 12 }),
    ]
    for (const f of forms) {
      const query = queryOf(f)
      expect(queryOf(formOf(JSON.parse(JSON.stringify(query)))), f.kind).toEqual(query)
      expect(parseQueryParam(JSON.parse(JSON.stringify(query)))).toEqual(query)
    }
  })

  it('takes nothing but a served kind from a URL or an insight', () => {
    expect(parseQueryParam('not a query')).toBeUndefined()
    expect(parseQueryParam({ kind: 'HogQLQuery', query: 'select 1' })).toBeUndefined()
    expect(formOf('nonsense')).toEqual(DEFAULT_FORM)
    const trend = queryOf(DEFAULT_FORM)
    expect(sourceOfInsight({ kind: 'InsightVizNode', source: trend })).toEqual(trend)
    expect(sourceOfInsight({ kind: 'HogQLQuery', query: 'select 1' })).toBeUndefined()
  })

  it("puts a dashboard's date filter over the insight's own dates", () => {
    const trend = queryOf(form({ dateFrom: '-7d', dateTo: '-1d' }))
    expect(withDateRange(trend, '-30d').dateRange).toEqual({ date_from: '-30d' })
    expect(withDateRange(trend, undefined)).toBe(trend)
  })
})

describe("a dashboard's property filter", () => {
  const filter = { key: 'plan', value: 'pro', operator: 'exact', type: 'event' }
  it('is ANDed to the insight’s own filters, a list or a group, and asks nothing without a property', () => {
    const trend = queryOf(DEFAULT_FORM)
    expect(withPropertyFilter(trend, 'plan', 'pro').properties).toEqual([filter])
    const own = { key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }
    expect(withPropertyFilter({ ...trend, properties: [own] }, 'plan', 'pro').properties).toEqual([own, filter])
    const group = { type: 'OR', values: [{ type: 'AND', values: [own] }] }
    expect(withPropertyFilter({ ...trend, properties: group }, 'plan', 'pro').properties).toEqual({
      type: 'AND',
      values: [group, { type: 'AND', values: [filter] }],
    })
    expect(withPropertyFilter(trend, undefined, 'pro')).toBe(trend)
  })
})

describe('undrawnInsight', () => {
  it('sends a SQL insight to its rows and names any other kind the console does not draw', () => {
    expect(undrawnInsight({ kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'select 1' } })).toBe(
      'A SQL insight: open it to see its rows.',
    )
    expect(undrawnInsight({ kind: 'InsightVizNode', source: { kind: 'WebOverviewQuery' } })).toBe(
      'A WebOverview insight, which the console does not draw: its answer is at the query API.',
    )
    expect(undrawnInsight(null)).toBe('A SQL insight: open it to see its rows.')
  })
})
