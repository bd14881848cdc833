import { describe, expect, it } from 'vitest'
import { legacyFiltersToQuery } from './insightFilters'

// Cases of PostHog's legacy_compatibility/test/test_filter_to_query.py: the legacy filters it
// converts and the query it asserts.

const source = (filters: Record<string, unknown>) => legacyFiltersToQuery(filters).source as Record<string, any>

describe('legacy insight filters as PostHog converts them (test_filter_to_query.py)', () => {
  it('wraps the query in an InsightVizNode, a trends query by default', () => {
    expect(legacyFiltersToQuery({ events: [{ id: '$pageview', type: 'events', order: 0 }] })).toEqual({
      kind: 'InsightVizNode',
      source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] },
    })
  })

  it('test_date_range and test_interval: dates, explicit_date and an hourly minute', () => {
    expect(source({ date_from: '-14d', date_to: '-7d', explicit_date: 'true', interval: 'minute' })).toMatchObject({
      dateRange: { date_from: '-14d', date_to: '-7d', explicitDate: true },
      interval: 'hour',
    })
  })

  it('test_series_order: actions and events in their order, math on trends', () => {
    const query = source({
      events: [
        { id: '$pageview', type: 'events', order: 1, math: 'dau', custom_name: 'Views' },
        { id: null, type: 'events', order: 2 },
      ],
      actions: [{ id: 1, type: 'actions', order: 0, name: 'Signed up' }],
    })
    expect(query.series).toEqual([
      { kind: 'ActionsNode', id: 1, name: 'Signed up' },
      { kind: 'EventsNode', event: '$pageview', custom_name: 'Views', math: 'dau' },
      { kind: 'EventsNode', event: null },
    ])
  })

  it('test_trends_filter: the trends filter, and compare as a compare filter', () => {
    const query = source({
      smoothing_intervals: 2,
      compare: true,
      aggregation_axis_format: 'duration_ms',
      aggregation_axis_prefix: 'pre',
      aggregation_axis_postfix: 'post',
      decimal_places: 5,
      formula: 'A + B',
      shown_as: 'Volume',
      display: 'ActionsAreaGraph',
      show_legend: true,
      show_percent_stack_view: true,
    })
    expect(query.trendsFilter).toEqual({
      smoothingIntervals: 2,
      aggregationAxisFormat: 'duration_ms',
      aggregationAxisPrefix: 'pre',
      aggregationAxisPostfix: 'post',
      formula: 'A + B',
      display: 'ActionsAreaGraph',
      decimalPlaces: 5,
      showLegend: true,
      showPercentStackView: true,
    })
    expect(query.compareFilter).toEqual({ compare: true })
  })

  it('test_funnels_filter', () => {
    const query = source({
      insight: 'FUNNELS',
      funnel_viz_type: 'steps',
      funnel_window_interval_unit: 'hour',
      funnel_window_interval: 13,
      breakdown_attribution_type: 'step',
      breakdown_attribution_value: 2,
      funnel_order_type: 'strict',
      funnel_aggregate_by_hogql: 'person_id',
      exclusions: [
        { id: '$pageview', type: 'events', order: 0, name: '$pageview', funnel_from_step: 1, funnel_to_step: 2 },
        { id: 3, type: 'actions', order: 1, name: 'Some action', funnel_from_step: 1, funnel_to_step: 2 },
      ],
      bin_count: 15,
      funnel_from_step: 1,
      funnel_to_step: 2,
    })
    expect(query.kind).toBe('FunnelsQuery')
    expect(query.funnelsFilter).toEqual({
      funnelVizType: 'steps',
      funnelFromStep: 1,
      funnelToStep: 2,
      funnelWindowIntervalUnit: 'hour',
      funnelWindowInterval: 13,
      breakdownAttributionType: 'step',
      breakdownAttributionValue: 2,
      funnelOrderType: 'strict',
      exclusions: [
        { kind: 'EventsNode', event: '$pageview', name: '$pageview', funnelFromStep: 1, funnelToStep: 2 },
        { kind: 'ActionsNode', id: 3, name: 'Some action', funnelFromStep: 1, funnelToStep: 2 },
      ],
      binCount: 15,
      funnelAggregateByHogQL: 'person_id',
    })
  })

  it('test_funnels_use_first_time_for_user_math: a funnel keeps only its first-time maths', () => {
    const query = source({
      insight: 'FUNNELS',
      events: [
        { id: 'signed_up', name: 'signed_up', type: 'events', order: 0, math: 'first_time_for_user' },
        { id: 'upgraded_plan', name: 'upgraded_plan', type: 'events', order: 1, math: 'dau' },
      ],
    })
    expect(query.series).toEqual([
      { kind: 'EventsNode', event: 'signed_up', name: 'signed_up', math: 'first_time_for_user' },
      { kind: 'EventsNode', event: 'upgraded_plan', name: 'upgraded_plan' },
    ])
  })

  it('test_funnels_multiple_breakdowns_no_breakdown_type: one breakdown of the list is the breakdown, an event property by default', () => {
    expect(source({ insight: 'FUNNELS', breakdowns: [{ property: 'prop' }] }).breakdownFilter).toEqual({
      breakdown: 'prop',
      breakdown_type: 'event',
    })
  })

  it('test_retention_filter', () => {
    const query = source({
      insight: 'RETENTION',
      retention_type: 'retention_first_time',
      total_intervals: 12,
      returning_entity: { id: '$pageview', name: '$pageview', type: 'events' },
      target_entity: { id: '$pageview', name: '$pageview', type: 'events' },
      period: 'Week',
      show_mean: true,
      mean_retention_calculation: 'simple',
      cumulative: true,
    })
    expect(query.kind).toBe('RetentionQuery')
    expect(query.series).toBeUndefined()
    expect(query.retentionFilter).toEqual({
      retentionType: 'retention_first_time',
      totalIntervals: 12,
      period: 'Week',
      returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
      targetEntity: { id: '$pageview', name: '$pageview', type: 'events' },
      meanRetentionCalculation: 'simple',
      cumulative: true,
    })
  })

  it('test_paths_filter', () => {
    const query = source({
      insight: 'PATHS',
      include_event_types: ['$pageview', 'hogql'],
      start_point: 'http://localhost:8000/events',
      end_point: 'http://localhost:8000/home',
      paths_hogql_expression: 'event',
      edge_limit: 50,
      min_edge_weight: 10,
      max_edge_weight: 20,
      local_path_cleaning_filters: [{ alias: 'merchant', regex: '\\/merchant\\/\\d+\\/dashboard$' }],
      path_replacements: true,
      exclude_events: ['http://localhost:8000/events'],
      step_limit: 5,
      path_groupings: ['/merchant/*/payment'],
      funnel_paths: 'funnel_path_between_steps',
      funnel_filter: { insight: 'FUNNELS', events: [{ type: 'events', id: '$pageview', order: 0 }], funnel_step: 2 },
    })
    expect(query.kind).toBe('PathsQuery')
    expect(query.series).toBeUndefined()
    expect(query.pathsFilter).toEqual({
      includeEventTypes: ['$pageview', 'hogql'],
      pathsHogQLExpression: 'event',
      startPoint: 'http://localhost:8000/events',
      endPoint: 'http://localhost:8000/home',
      edgeLimit: 50,
      minEdgeWeight: 10,
      maxEdgeWeight: 20,
      localPathCleaningFilters: [{ alias: 'merchant', regex: '\\/merchant\\/\\d+\\/dashboard$' }],
      pathReplacements: true,
      excludeEvents: ['http://localhost:8000/events'],
      stepLimit: 5,
      pathGroupings: ['/merchant/*/payment'],
    })
    // PostHog's funnelPathsFilter also holds the funnel as its source; paths around a funnel are refused here.
    expect(query.funnelPathsFilter).toMatchObject({ funnelPathType: 'funnel_path_between_steps', funnelStep: 2 })
  })

  it('test_lifecycle_filter and test_stickiness_filter: the kind of the insight', () => {
    const lifecycle = source({
      insight: 'LIFECYCLE',
      shown_as: 'Lifecycle',
      show_values_on_series: true,
      toggledLifecycles: ['new', 'dormant'],
    })
    expect(lifecycle.kind).toBe('LifecycleQuery')
    expect(lifecycle.lifecycleFilter).toEqual({ showValuesOnSeries: true, toggledLifecycles: ['new', 'dormant'] })
    expect(source({ insight: 'STICKINESS', show_legend: true }).kind).toBe('StickinessQuery')
  })
})
