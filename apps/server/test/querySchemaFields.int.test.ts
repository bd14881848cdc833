import { beforeAll, describe, expect, it } from 'vitest'
import { postQuery, QUERY_LIMITS, sendAll, type SentEvent } from './queryFixture'
import { useTestService, type TestService } from './service'
import type { TestAccount } from '@burrow/testing'

/**
 * Every field of PostHog's query schema (frontend/src/queries/schema/schema-general.ts), for each
 * kind `/query/` serves, is either applied (setting it changes the answer), refused (a 400 naming
 * it), or one PostHog's own runners do not read either (the answer is the same with it). No field
 * may be accepted and then ignored when PostHog would apply it.
 *
 * The field names and their nesting are PostHog's; the samples and what each is expected to do are
 * this service's.
 */

type Expect = 'applied' | 'refused' | 'client'

interface FieldCase {
  /** The field's path in the query, `.`-separated (array items by index). */
  path: string
  /** The value the field is set to. */
  sample: unknown
  expect: Expect
  /** What the query needs beside the field for the field to matter (merged into the kind's base). */
  given?: Record<string, unknown>
  /** The `attr` of the refusal, when it names a field inside the sample. */
  attr?: string
}

/** A time in January 2024 (UTC); hours may have a fraction. */
const DAY = (d: number, h = 12) => new Date(Date.UTC(2024, 0, d) + h * 3_600_000).toISOString()

function event(name: string, distinctId: string, day: number, hour: number, properties: Record<string, unknown> = {}): SentEvent {
  return { event: name, distinct_id: distinctId, timestamp: DAY(day, hour), properties }
}

/** A few persons over ten days of January 2024 (UTC), so that each applied field has something to change. */
const EVENTS: SentEvent[] = [
  event('pageview', 'p1', 1, 10, { $browser: 'Chrome', $session_id: 's1', plan: 'free' }),
  event('signup', 'p1', 1, 11, { $browser: 'Chrome', $session_id: 's1', plan: 'pro' }),
  event('pageview', 'p1', 3, 10, { $browser: 'Chrome', $session_id: 's2' }),
  event('pageview', 'p1', 3, 15, { $browser: 'Chrome', $session_id: 's2' }),
  event('purchase', 'p1', 5, 10, { amount: 10 }),
  event('pageview', 'p2', 2, 9, { $browser: 'Firefox' }),
  event('purchase', 'p2', 2, 9.5, { amount: 4 }),
  event('signup', 'p2', 2, 10, { $browser: 'Firefox' }),
  event('pageview', 'p2', 4, 12, { $browser: 'Firefox' }),
  event('pageview', 'p3', 4, 8, { $browser: 'Safari' }),
  event('pageview', 'p3', 5, 8, { $browser: 'Safari' }),
  event('signup', 'p3', 5, 9, { $browser: 'Safari' }),
  event('pageview', 'tester', 6, 10, { $browser: 'Chrome', $host: 'localhost' }),
  event('signup', 'tester', 6, 11, { $browser: 'Chrome', $host: 'localhost' }),
  event('pageview', 'p4', 10, 8, { $browser: 'Edge' }),
  // Web analytics count $pageview events by their sessions.
  event('$pageview', 'p1', 2, 10, { $session_id: 'w1', $pathname: '/', $current_url: 'https://example.com/', $browser: 'Chrome' }),
  event('$pageview', 'p1', 2, 10.1, {
    $session_id: 'w1',
    $pathname: '/pricing',
    $current_url: 'https://example.com/pricing',
    $browser: 'Chrome',
  }),
  event('$pageview', 'p2', 7, 9, { $session_id: 'w2', $pathname: '/', $current_url: 'https://example.com/', $browser: 'Firefox' }),
  event('$pageview', 'tester', 8, 10, { $session_id: 'w3', $pathname: '/', $host: 'localhost', $browser: 'Chrome' }),
]

const RANGE = { date_from: '2024-01-01', date_to: '2024-01-10' }

/** The fields of PostHog's InsightsQueryBase, and Node's `version`. */
const insightBase = (kind: string): FieldCase[] => [
  { path: 'version', sample: 2, expect: 'client' },
  { path: 'tags', sample: { productKey: 'product_analytics', scene: 'Insight' }, expect: 'client' },
  { path: 'dateRange', sample: { date_from: '2024-01-04', date_to: '2024-01-05' }, expect: 'applied' },
  { path: 'dateRange.date_from', sample: '2024-01-04', expect: 'applied' },
  { path: 'dateRange.date_to', sample: '2024-01-03', expect: 'applied' },
  {
    path: 'dateRange.explicitDate',
    sample: true,
    expect: kind === 'RetentionQuery' ? 'refused' : 'applied',
    given: { dateRange: { date_from: '2024-01-01 12:00:00', date_to: '2024-01-10 00:00:00' } },
  },
  // The tester's events (on $host localhost) are the project's test account's; retention's base range ends before them.
  {
    path: 'filterTestAccounts',
    sample: true,
    expect: 'applied',
    ...(kind === 'RetentionQuery' ? { given: { dateRange: { date_to: '2024-01-07' } } } : {}),
  },
  { path: 'properties', sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], expect: 'applied' },
  // Nobody's events name a group: counting groups answers zeros.
  { path: 'aggregation_group_type_index', sample: 0, expect: kind === 'LifecycleQuery' ? 'applied' : 'refused' },
  { path: 'samplingFactor', sample: 0.1, expect: 'refused' },
  { path: 'dataColorTheme', sample: 3, expect: 'client' },
  {
    path: 'modifiers',
    sample: { personsOnEventsMode: 'person_id_override_properties_joined' },
    expect: 'refused',
    attr: 'modifiers__personsOnEventsMode',
  },
]

/** The fields of PostHog's EntityNode and EventsNode on the first series, with what they do in `kind`. */
function seriesNode(kind: 'trends' | 'funnels' | 'lifecycle' | 'stickiness'): FieldCase[] {
  const trends = kind === 'trends'
  const stickiness = kind === 'stickiness'
  return [
    { path: 'series.0.kind', sample: 'DataWarehouseNode', expect: 'refused' },
    // An ActionsNode names its action by id; this series names none (see queryActions for actions applied).
    { path: 'series.0.kind', sample: 'ActionsNode', expect: 'refused', attr: 'series.0.id' },
    { path: 'series.0.version', sample: 1, expect: 'client' },
    { path: 'series.0.event', sample: 'signup', expect: 'applied' },
    { path: 'series.0.name', sample: 'Something else', expect: 'client' },
    { path: 'series.0.custom_name', sample: 'Views', expect: 'applied' },
    // Funnels count persons at each step and lifecycle persons per status, whatever the math.
    { path: 'series.0.math', sample: 'dau', expect: trends ? 'applied' : 'client' },
    // Stickiness counts groups with a group type, persons without one, as PostHog's.
    // Trends count the groups of a type, and need the type.
    trends
      ? { path: 'series.0.math', sample: 'unique_group', expect: 'refused', attr: 'series__0__math_group_type_index' }
      : { path: 'series.0.math', sample: 'unique_group', expect: stickiness ? 'client' : 'refused' },
    {
      path: 'series.0.math_property',
      sample: 'no_such_property',
      expect: trends ? 'applied' : 'client',
      ...(trends ? { given: { series: [{ kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' }] } } : {}),
    },
    { path: 'series.0.math_multiplier', sample: 2, expect: 'refused' },
    { path: 'series.0.math_property_type', sample: 'person_properties', expect: 'refused' },
    { path: 'series.0.math_property_revenue_currency', sample: { static: 'USD' }, expect: 'refused' },
    trends
      ? {
          path: 'series.0.math_hogql',
          sample: 'sum(properties.amount)',
          expect: 'applied',
          given: { series: [{ kind: 'EventsNode', event: 'purchase', math: 'hogql', math_hogql: 'count()' }] },
        }
      : { path: 'series.0.math_hogql', sample: 'count()', expect: 'refused' },
    {
      path: 'series.0.math_group_type_index',
      sample: 0,
      // Trends apply it with unique_group (which needs it, above); with other maths PostHog reads it not.
      expect: stickiness ? 'applied' : trends ? 'client' : 'refused',
      ...(stickiness ? { given: { series: [{ kind: 'EventsNode', event: 'pageview', math: 'unique_group' }] } } : {}),
    },
    // PostHog counts groups with the actives' maths and a group type; that is not served.
    ...(trends
      ? ([
          {
            path: 'series.0.math_group_type_index',
            sample: 0,
            expect: 'refused',
            given: { series: [{ kind: 'EventsNode', event: 'pageview', math: 'dau' }] },
          },
        ] satisfies FieldCase[])
      : []),
    { path: 'series.0.properties', sample: [{ key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }], expect: 'applied' },
    {
      path: 'series.0.fixedProperties',
      sample: [{ key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }],
      expect: 'applied',
    },
    { path: 'series.0.optionalInFunnel', sample: true, expect: 'refused' },
    { path: 'series.0.limit', sample: 1, expect: 'client' },
    { path: 'series.0.orderBy', sample: ['timestamp DESC'], expect: 'client' },
  ]
}

/** The fields of PostHog's BreakdownFilter as `kind` takes them. */
function breakdownFilter(kind: 'trends' | 'funnels'): FieldCase[] {
  const by = { breakdownFilter: { breakdown: '$browser' } }
  return [
    { path: 'breakdownFilter.breakdown', sample: '$browser', expect: 'applied' },
    { path: 'breakdownFilter.breakdown', sample: ['$browser'], expect: kind === 'funnels' ? 'applied' : 'refused' },
    // Persons take $browser from their events; plan is on events only.
    { path: 'breakdownFilter.breakdown_type', sample: 'person', expect: 'applied', given: { breakdownFilter: { breakdown: 'plan' } } },
    // Read as a property, `all` names none; as cohorts, it is every person ("all users").
    kind === 'trends'
      ? { path: 'breakdownFilter.breakdown_type', sample: 'cohort', expect: 'applied', given: { breakdownFilter: { breakdown: 'all' } } }
      : { path: 'breakdownFilter.breakdown_type', sample: 'cohort', expect: 'refused', given: by },
    // Read as a property's name, the expression names none; as HogQL, it is each event's browser.
    {
      path: 'breakdownFilter.breakdown_type',
      sample: 'hogql',
      expect: 'applied',
      given: { breakdownFilter: { breakdown: "concat(properties.$browser, '!')" } },
    },
    { path: 'breakdownFilter.breakdown_limit', sample: 1, expect: 'applied', given: by },
    {
      path: 'breakdownFilter.breakdown_hide_other_aggregation',
      sample: true,
      expect: kind === 'trends' ? 'applied' : 'refused',
      given: { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } },
    },
    kind === 'trends'
      ? {
          path: 'breakdownFilter.breakdown_normalize_url',
          sample: true,
          expect: 'applied',
          given: { series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$current_url' } },
        }
      : { path: 'breakdownFilter.breakdown_normalize_url', sample: true, expect: 'refused', given: by },
    { path: 'breakdownFilter.breakdown_path_cleaning', sample: true, expect: 'refused', given: by },
    {
      path: 'breakdownFilter.breakdowns',
      sample: [{ property: '$browser', type: 'event' }],
      expect: kind === 'trends' ? 'applied' : 'refused',
    },
    ...(kind === 'trends'
      ? ([
          { path: 'breakdownFilter.breakdowns', sample: ['a', 'b', 'c', 'd'].map((property) => ({ property })), expect: 'refused' },
          {
            path: 'breakdownFilter.breakdowns',
            sample: [{ property: 'plan', histogram_bin_count: 3 }],
            expect: 'refused',
            attr: 'breakdownFilter__breakdowns__0__histogram_bin_count',
          },
        ] satisfies FieldCase[])
      : []),
    { path: 'breakdownFilter.breakdown_group_type_index', sample: 0, expect: 'refused', given: by },
    {
      path: 'breakdownFilter.breakdown_histogram_bin_count',
      sample: 3,
      expect: kind === 'trends' ? 'applied' : 'refused',
      given: by,
    },
  ]
}

const TRENDS_FILTER_CLIENT: Record<string, unknown> = {
  showLegend: true,
  legendPosition: 'right',
  showAlertThresholdLines: true,
  aggregationAxisFormat: 'percentage',
  aggregationAxisPrefix: '$',
  aggregationAxisPostfix: ' req',
  decimalPlaces: 2,
  minDecimalPlaces: 1,
  xAxisLabel: 'Day',
  yAxisLabel: 'Views',
  showValuesOnSeries: true,
  showLabelsOnSeries: true,
  showPercentStackView: true,
  stackBreakdownValues: true,
  yAxisScaleType: 'log10',
  showMultipleYAxes: true,
  hiddenLegendIndexes: [0],
  resultCustomizationBy: 'position',
  resultCustomizations: { 0: { assignmentBy: 'position', color: 'preset-2' } },
  goalLines: [{ label: 'Goal', value: 3 }],
  showConfidenceIntervals: true,
  confidenceLevel: 90,
  showTrendLines: true,
  showMovingAverage: true,
  movingAverageIntervals: 3,
  detailedResultsAggregationType: 'median',
  excludeBoxPlotOutliers: false,
  hideWeekends: true,
  showAnnotations: false,
  metricShowChange: false,
  metricChangeIncreaseColor: 'red',
  metricChangeDecreaseColor: 'green',
  metricColorByDirection: true,
  metricLineIncreaseColor: 'red',
  metricLineDecreaseColor: 'green',
  metricSummary: 'latest',
}

const TRENDS: FieldCase[] = [
  ...insightBase('TrendsQuery'),
  ...seriesNode('trends'),
  { path: 'interval', sample: 'week', expect: 'applied' },
  { path: 'trendsFilter.display', sample: 'BoldNumber', expect: 'applied' },
  { path: 'trendsFilter.display', sample: 'ActionsBar', expect: 'client' },
  { path: 'trendsFilter.display', sample: 'ActionsLineGraphCumulative', expect: 'applied' },
  { path: 'trendsFilter.display', sample: 'ActionsLineGraphCumulativeX', expect: 'refused' },
  { path: 'trendsFilter.smoothingIntervals', sample: 3, expect: 'applied' },
  { path: 'trendsFilter.smoothingIntervals', sample: 100_000, expect: 'refused' },
  { path: 'trendsFilter.formula', sample: 'A * 2', expect: 'applied' },
  { path: 'trendsFilter.formulas', sample: ['A * 2'], expect: 'applied' },
  { path: 'trendsFilter.formulas', sample: ['A * 2', 'A + 1'], expect: 'applied' },
  { path: 'trendsFilter.formulas', sample: new Array(11).fill('A'), expect: 'refused' },
  { path: 'trendsFilter.formulaNodes', sample: [{ formula: 'A * 2', custom_name: 'Doubled' }], expect: 'applied' },
  { path: 'trendsFilter.breakdown_histogram_bin_count', sample: 4, expect: 'refused' },
  ...Object.entries(TRENDS_FILTER_CLIENT).map(([field, sample]): FieldCase => ({
    path: `trendsFilter.${field}`,
    sample,
    expect: 'client',
  })),
  { path: 'calendarHeatmapFilter', sample: { bucketBySessionStart: true }, expect: 'client' },
  ...breakdownFilter('trends'),
  { path: 'compareFilter.compare', sample: true, expect: 'applied' },
  { path: 'compareFilter.compare_to', sample: '-1d', expect: 'applied', given: { compareFilter: { compare: true } } },
  { path: 'conversionGoal', sample: { customEventName: 'signup' }, expect: 'refused' },
]

const FUNNELS: FieldCase[] = [
  ...insightBase('FunnelsQuery'),
  ...seriesNode('funnels'),
  { path: 'interval', sample: 'week', expect: 'applied', given: { funnelsFilter: { funnelVizType: 'trends' } } },
  {
    path: 'funnelsFilter.exclusions',
    sample: [{ kind: 'EventsNode', event: 'purchase', funnelFromStep: 0, funnelToStep: 1 }],
    expect: 'applied',
  },
  { path: 'funnelsFilter.binCount', sample: 1, expect: 'applied', given: { funnelsFilter: { funnelVizType: 'time_to_convert' } } },
  {
    path: 'funnelsFilter.breakdownAttributionType',
    sample: 'last_touch',
    expect: 'applied',
    given: { breakdownFilter: { breakdown: 'plan' } },
  },
  {
    path: 'funnelsFilter.breakdownAttributionValue',
    sample: 1,
    expect: 'applied',
    given: { breakdownFilter: { breakdown: 'plan' }, funnelsFilter: { breakdownAttributionType: 'step' } },
  },
  {
    path: 'funnelsFilter.funnelFromStep',
    sample: 1,
    expect: 'applied',
    given: { series: threeSteps(), funnelsFilter: { funnelVizType: 'time_to_convert' } },
  },
  {
    path: 'funnelsFilter.funnelToStep',
    sample: 1,
    expect: 'applied',
    given: { series: threeSteps(), funnelsFilter: { funnelVizType: 'time_to_convert' } },
  },
  // p2 purchases between its pageview and its signup.
  { path: 'funnelsFilter.funnelOrderType', sample: 'strict', expect: 'applied' },
  { path: 'funnelsFilter.funnelVizType', sample: 'trends', expect: 'applied' },
  {
    path: 'funnelsFilter.funnelWindowInterval',
    sample: 90,
    expect: 'applied',
    given: { funnelsFilter: { funnelWindowIntervalUnit: 'minute' } },
  },
  {
    path: 'funnelsFilter.funnelWindowIntervalUnit',
    sample: 'minute',
    expect: 'applied',
    given: { funnelsFilter: { funnelWindowInterval: 30 } },
  },
  { path: 'funnelsFilter.funnelAggregateByHogQL', sample: 'properties.$session_id', expect: 'refused' },
  { path: 'funnelsFilter.customAggregationTarget', sample: true, expect: 'refused' },
  { path: 'funnelsFilter.hideIncompleteConversionWindowPeriods', sample: true, expect: 'refused' },
  ...Object.entries({
    layout: 'horizontal',
    hiddenLegendBreakdowns: ['Chrome'],
    funnelStepReference: 'previous',
    useUdf: true,
    resultCustomizations: { Chrome: { assignmentBy: 'value', color: 'preset-3' } },
    goalLines: [{ label: 'Goal', value: 50 }],
    showTrendLines: true,
    showLegend: true,
    legendPosition: 'top',
    showValuesOnSeries: true,
    breakdownSorting: '-count',
    showAnnotations: false,
  }).map(([field, sample]): FieldCase => ({ path: `funnelsFilter.${field}`, sample, expect: 'client' })),
  ...breakdownFilter('funnels'),
  { path: 'compareFilter.compare', sample: true, expect: 'refused' },
]

function threeSteps() {
  return ['pageview', 'signup', 'pageview'].map((event) => ({ kind: 'EventsNode', event }))
}

function entityFields(which: 'targetEntity' | 'returningEntity'): FieldCase[] {
  // The returning entity is the target's unless given: each case starts from one given as pageview.
  const given = { retentionFilter: { [which]: { id: 'pageview', type: 'events' } } }
  return [
    { path: `retentionFilter.${which}.id`, sample: 'signup', expect: 'applied' },
    // An action's entity names the action by its id: `pageview` names none (see queryActions for actions applied).
    { path: `retentionFilter.${which}.type`, sample: 'actions', expect: 'refused', attr: `retentionFilter.${which}.id` },
    { path: `retentionFilter.${which}.kind`, sample: 'ActionsNode', expect: 'refused', attr: `retentionFilter.${which}.id` },
    {
      path: `retentionFilter.${which}.properties`,
      sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }],
      expect: 'applied',
    },
    { path: `retentionFilter.${which}.name`, sample: 'Something', expect: 'client' },
    { path: `retentionFilter.${which}.custom_name`, sample: 'Something', expect: 'client' },
    { path: `retentionFilter.${which}.order`, sample: 3, expect: 'client' },
    { path: `retentionFilter.${which}.uuid`, sample: '0190b0e4-0000-0000-0000-000000000000', expect: 'client' },
  ].map((c) => ({ ...c, given }) as FieldCase)
}

const RETENTION: FieldCase[] = [
  ...insightBase('RetentionQuery'),
  ...entityFields('targetEntity'),
  ...entityFields('returningEntity'),
  { path: 'retentionFilter.period', sample: 'Week', expect: 'applied' },
  { path: 'retentionFilter.totalIntervals', sample: 3, expect: 'applied' },
  { path: 'retentionFilter.retentionType', sample: 'retention_first_time', expect: 'applied' },
  { path: 'retentionFilter.retentionType', sample: 'retention_first_ever_occurrence', expect: 'refused' },
  // p1 comes back two days after its first day; only p1 views a page twice in a day.
  { path: 'retentionFilter.cumulative', sample: true, expect: 'applied' },
  { path: 'retentionFilter.minimumOccurrences', sample: 2, expect: 'applied' },
  { path: 'retentionFilter.timeWindowMode', sample: '24_hour_windows', expect: 'refused' },
  { path: 'retentionFilter.retentionCustomBrackets', sample: [1, 3], expect: 'refused' },
  { path: 'retentionFilter.aggregationType', sample: 'sum', expect: 'refused' },
  { path: 'retentionFilter.aggregationProperty', sample: 'amount', expect: 'refused' },
  { path: 'retentionFilter.aggregationPropertyType', sample: 'person', expect: 'refused' },
  { path: 'retentionFilter.customAggregationTarget', sample: true, expect: 'refused' },
  ...Object.entries({
    retentionReference: 'previous',
    meanRetentionCalculation: 'weighted',
    display: 'ActionsBar',
    dashboardDisplay: 'table_only',
    showTrendLines: true,
    selectedInterval: 2,
    goalLines: [{ label: 'Goal', value: 50 }],
    cohortLabelStartIndex: 1,
  }).map(([field, sample]): FieldCase => ({ path: `retentionFilter.${field}`, sample, expect: 'client' })),
  { path: 'breakdownFilter.breakdown', sample: '$browser', expect: 'refused' },
]

const LIFECYCLE: FieldCase[] = [
  ...insightBase('LifecycleQuery'),
  ...seriesNode('lifecycle'),
  { path: 'interval', sample: 'week', expect: 'applied' },
  // PostHog answers every status; the toggles say which ones its chart draws.
  { path: 'lifecycleFilter.toggledLifecycles', sample: ['new'], expect: 'client' },
  ...Object.entries({
    showValuesOnSeries: true,
    showPercentagesOnSeries: true,
    showLegend: true,
    legendPosition: 'left',
    stacked: false,
  }).map(([field, sample]): FieldCase => ({ path: `lifecycleFilter.${field}`, sample, expect: 'client' })),
  { path: 'customAggregationTarget', sample: true, expect: 'refused' },
]

const STICKINESS: FieldCase[] = [
  ...insightBase('StickinessQuery'),
  ...seriesNode('stickiness'),
  { path: 'interval', sample: 'week', expect: 'applied' },
  { path: 'intervalCount', sample: 2, expect: 'applied' },
  // p1 views two pages on the 3rd.
  { path: 'stickinessFilter.stickinessCriteria', sample: { operator: 'gte', value: 2 }, expect: 'applied' },
  { path: 'stickinessFilter.computedAs', sample: 'cumulative', expect: 'applied' },
  ...Object.entries({
    display: 'ActionsBar',
    showLegend: true,
    showValuesOnSeries: true,
    showMultipleYAxes: true,
    hiddenLegendIndexes: [0],
    resultCustomizationBy: 'position',
    resultCustomizations: { 0: { assignmentBy: 'position', color: 'preset-2' } },
  }).map(([field, sample]): FieldCase => ({ path: `stickinessFilter.${field}`, sample, expect: 'client' })),
  { path: 'compareFilter.compare', sample: true, expect: 'applied' },
  { path: 'compareFilter.compare_to', sample: '-1d', expect: 'applied', given: { compareFilter: { compare: true } } },
  { path: 'breakdownFilter.breakdown', sample: '$browser', expect: 'refused' },
]

const EVENTS_QUERY: FieldCase[] = [
  { path: 'version', sample: 2, expect: 'client' },
  { path: 'tags', sample: { scene: 'Activity' }, expect: 'client' },
  { path: 'modifiers', sample: { personsOnEventsMode: 'disabled' }, expect: 'refused', attr: 'modifiers__personsOnEventsMode' },
  { path: 'source', sample: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [] } }, expect: 'refused' },
  { path: 'select', sample: ['event'], expect: 'applied' },
  { path: 'where', sample: ["event = 'signup'"], expect: 'applied' },
  { path: 'properties', sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], expect: 'applied' },
  { path: 'fixedProperties', sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], expect: 'applied' },
  { path: 'filterTestAccounts', sample: true, expect: 'applied' },
  { path: 'event', sample: 'signup', expect: 'applied' },
  { path: 'events', sample: ['signup', 'purchase'], expect: 'applied' },
  { path: 'limit', sample: 2, expect: 'applied' },
  { path: 'offset', sample: 2, expect: 'applied' },
  { path: 'actionId', sample: 1, expect: 'refused' },
  { path: 'actionSteps', sample: [{ event: 'signup' }], expect: 'refused' },
  { path: 'personId', sample: '0190b0e4-0000-0000-0000-000000000000', expect: 'applied' },
  { path: 'before', sample: '2024-01-04', expect: 'applied' },
  { path: 'after', sample: '2024-01-04', expect: 'applied' },
  { path: 'orderBy', sample: ['timestamp DESC'], expect: 'applied' },
]

const HOGQL_QUERY: FieldCase[] = [
  { path: 'version', sample: 2, expect: 'client' },
  { path: 'tags', sample: { scene: 'SQLEditor' }, expect: 'client' },
  { path: 'modifiers', sample: { materializationMode: 'disabled' }, expect: 'refused', attr: 'modifiers__materializationMode' },
  { path: 'query', sample: 'SELECT count() FROM events', expect: 'applied' },
  { path: 'connectionId', sample: 'external', expect: 'refused' },
  { path: 'sendRawQuery', sample: true, expect: 'refused' },
  { path: 'filters.properties', sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], expect: 'applied' },
  { path: 'filters.dateRange', sample: { date_from: '2024-01-04', date_to: '2024-01-05' }, expect: 'applied' },
  {
    path: 'filters.dateRange.explicitDate',
    sample: true,
    expect: 'refused',
    given: { filters: { dateRange: { date_from: '2024-01-04' } } },
  },
  { path: 'filters.filterTestAccounts', sample: true, expect: 'applied' },
  { path: 'variables', sample: { v: { variableId: 'v', code_name: 'v', value: 1 } }, expect: 'refused' },
  {
    path: 'values',
    sample: { name: 'signup' },
    expect: 'applied',
    given: { query: 'SELECT count() FROM events WHERE event = {name} AND {filters}', values: { name: 'pageview' } },
  },
  { path: 'explain', sample: true, expect: 'refused' },
  { path: 'name', sample: 'My query', expect: 'client' },
]

/** The fields of PostHog's WebAnalyticsQueryBase, with what they do in the overview (`overview`) or the stats table. */
function webAnalyticsBase(overview: boolean): FieldCase[] {
  return [
    { path: 'version', sample: 2, expect: 'client' },
    { path: 'tags', sample: { productKey: 'web_analytics', scene: 'WebAnalytics' }, expect: 'client' },
    { path: 'dateRange', sample: { date_from: '2024-01-04', date_to: '2024-01-05' }, expect: 'applied' },
    { path: 'dateRange.date_from', sample: '2024-01-04', expect: 'applied' },
    { path: 'dateRange.date_to', sample: '2024-01-03', expect: 'applied' },
    // p1's session starts at 10:00 on 2 January.
    {
      path: 'dateRange.explicitDate',
      sample: true,
      expect: 'applied',
      given: { dateRange: { date_from: '2024-01-02 10:03:00', date_to: '2024-01-10 00:00:00' } },
    },
    { path: 'filterTestAccounts', sample: true, expect: 'applied' },
    { path: 'properties', sample: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], expect: 'applied' },
    { path: 'compareFilter.compare', sample: true, expect: 'applied' },
    { path: 'compareFilter.compare_to', sample: '-1d', expect: 'applied', given: { compareFilter: { compare: true } } },
    { path: 'conversionGoal', sample: { customEventName: 'signup' }, expect: 'refused' },
    { path: 'doPathCleaning', sample: true, expect: 'refused' },
    { path: 'sampling', sample: { enabled: true }, expect: 'refused' },
    { path: 'includeRevenue', sample: true, expect: 'refused' },
    { path: 'useSessionsTable', sample: true, expect: 'client' },
    { path: 'orderBy', sample: ['Visitors', 'ASC'], expect: overview ? 'client' : 'applied' },
    { path: 'modifiers', sample: { bounceRatePageViewMode: 'uniq_urls' }, expect: 'refused', attr: 'modifiers__bounceRatePageViewMode' },
  ]
}

const WEB_STATS_TABLE: FieldCase[] = [
  ...webAnalyticsBase(false),
  { path: 'breakdownBy', sample: 'Browser', expect: 'applied' },
  { path: 'breakdownBy', sample: 'InitialChannelType', expect: 'refused' },
  { path: 'includeBounceRate', sample: true, expect: 'applied' },
  { path: 'includeScrollDepth', sample: true, expect: 'refused' },
  { path: 'includeAvgTimeOnPage', sample: true, expect: 'refused' },
  { path: 'limit', sample: 1, expect: 'applied' },
  { path: 'offset', sample: 1, expect: 'applied' },
]

const TREND_POINT = {
  kind: 'InsightActorsQuery',
  day: '2024-01-02',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'pageview' }], dateRange: RANGE },
}

const ACTORS_QUERY: FieldCase[] = [
  { path: 'version', sample: 2, expect: 'client' },
  { path: 'tags', sample: { scene: 'Persons' }, expect: 'client' },
  { path: 'response', sample: { results: [] }, expect: 'client' },
  { path: 'modifiers', sample: { personsArgMaxVersion: 'v2' }, expect: 'refused', attr: 'modifiers__personsArgMaxVersion' },
  { path: 'select', sample: ['created_at'], expect: 'applied' },
  { path: 'search', sample: 'p1', expect: 'applied' },
  { path: 'orderBy', sample: ['id DESC'], expect: 'applied' },
  { path: 'limit', sample: 1, expect: 'applied' },
  { path: 'offset', sample: 1, expect: 'applied' },
  { path: 'properties', sample: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }], expect: 'refused' },
  { path: 'fixedProperties', sample: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }], expect: 'refused' },
  { path: 'source', sample: TREND_POINT, expect: 'applied' },
  { path: 'source.day', sample: '2024-01-03', expect: 'applied', given: { source: TREND_POINT } },
  { path: 'source.includeRecordings', sample: true, expect: 'refused', given: { source: TREND_POINT } },
  { path: 'source.interval', sample: 0, expect: 'refused', given: { source: TREND_POINT } },
]

/** Each kind with a query every field is tried on. */
const KINDS: Array<{ kind: string; base: Record<string, unknown>; fields: FieldCase[] }> = [
  { kind: 'TrendsQuery', base: { series: [{ kind: 'EventsNode', event: 'pageview' }], dateRange: RANGE }, fields: TRENDS },
  {
    kind: 'FunnelsQuery',
    base: { series: ['pageview', 'signup'].map((event) => ({ kind: 'EventsNode', event })), dateRange: RANGE },
    fields: FUNNELS,
  },
  {
    kind: 'RetentionQuery',
    base: {
      dateRange: { date_to: '2024-01-05' },
      retentionFilter: {
        targetEntity: { id: 'pageview', type: 'events' },
        returningEntity: { id: 'pageview', type: 'events' },
        period: 'Day',
        totalIntervals: 5,
      },
    },
    fields: RETENTION,
  },
  { kind: 'LifecycleQuery', base: { series: [{ kind: 'EventsNode', event: 'pageview' }], dateRange: RANGE }, fields: LIFECYCLE },
  { kind: 'StickinessQuery', base: { series: [{ kind: 'EventsNode', event: 'pageview' }], dateRange: RANGE }, fields: STICKINESS },
  {
    kind: 'EventsQuery',
    base: { select: ['event', 'distinct_id', 'timestamp'], after: '2024-01-01', before: '2024-01-11', orderBy: ['timestamp ASC'] },
    fields: EVENTS_QUERY,
  },
  {
    kind: 'HogQLQuery',
    base: { query: 'SELECT event, count() FROM events WHERE {filters} GROUP BY event ORDER BY event' },
    fields: HOGQL_QUERY,
  },
  { kind: 'WebOverviewQuery', base: { dateRange: RANGE, properties: [] }, fields: webAnalyticsBase(true) },
  { kind: 'WebStatsTableQuery', base: { dateRange: RANGE, properties: [], breakdownBy: 'Page' }, fields: WEB_STATS_TABLE },
  { kind: 'ActorsQuery', base: { select: ['id'], orderBy: ['id ASC'] }, fields: ACTORS_QUERY },
]

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `over` laid on `base`: objects merged, anything else (arrays too) replaced. */
function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merged(out[k], v) : v
  return out
}

/** A copy of `query` with the field at `path` set to `value`, the objects on the way made as needed. */
function withField(query: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(query)
  const keys = path.split('.')
  let node: any = copy
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null) node[key] = {}
    node = node[key]
  }
  node[keys.at(-1)!] = value
  return copy
}

/** The answer as a chart shows it: the legacy `filter` each trends row echoes is left out, as it repeats the query. */
function shown(results: unknown): string {
  const strip = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(strip)
      : isObject(v)
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k]) => k !== 'filter')
              .map(([k, x]) => [k, strip(x)]),
          )
        : v
  return JSON.stringify(strip(results))
}

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
}, QUERY_LIMITS)
beforeAll(async () => {
  const res = await service.api(account, `/api/projects/${account.projectId}/`, {
    method: 'PATCH',
    body: JSON.stringify({ test_account_filters: [{ key: '$host', operator: 'is_not', value: ['localhost'], type: 'event' }] }),
  })
  if (res.status !== 200) throw new Error(`setting the test account filters answered ${res.status}`)
  await sendAll(service, account, EVENTS, 0, 0)
}, 120_000)

async function ask(query: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return postQuery(service, account, { query, refresh: 'force_blocking', ...extra })
}

describe.each(KINDS)('every field of PostHog’s $kind', ({ kind, base, fields }) => {
  it.each(fields.map((f) => [`${f.path} = ${JSON.stringify(f.sample)}`, f] as const))('%s', async (_name, field) => {
    const baseline = merged({ kind, ...base }, field.given ?? {})
    const before = await ask(baseline)
    expect(before.status, JSON.stringify(before.body)).toBe(200)
    const after = await ask(withField(baseline, field.path, field.sample))
    if (field.expect === 'refused') {
      expect(after.status, JSON.stringify(after.body)).toBe(400)
      expect(after.body.attr).toBe(`query__${(field.attr ?? field.path).replaceAll('.', '__')}`)
      return
    }
    expect(after.status, JSON.stringify(after.body)).toBe(200)
    if (field.expect === 'applied') expect(shown(after.body.results)).not.toBe(shown(before.body.results))
    else expect(shown(after.body.results)).toBe(shown(before.body.results))
  })
})

describe('the fields of PostHog’s QueryRequest around the query', () => {
  const query = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'pageview' }], dateRange: RANGE }

  it.each([
    ['filters_override', { date_from: '2024-01-04' }],
    ['variables_override', { v: { value: 1 } }],
    ['limit_context', 'posthog_ai'],
  ])('refuses %s, which is not applied', async (field, value) => {
    const res = await ask(query, { [field]: value })
    expect(res.status).toBe(400)
    expect(res.body.attr).toBe(field)
  })

  // Kinds of PostHog's schema (its NodeKind) that /query/ does not run, each as PostHog's clients send it.
  it.each([
    ['InsightActorsQuery', { source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'pageview' }] }, day: '2024-01-02' }],
    ['FunnelCorrelationQuery', { funnelCorrelationType: 'events', source: { kind: 'FunnelsActorsQuery' } }],
    ['SessionsTimelineQuery', { after: '2024-01-01' }],
    ['ErrorTrackingQuery', { dateRange: RANGE, orderBy: 'last_seen' }],
    ['CalendarHeatmapQuery', { series: [{ kind: 'EventsNode', event: 'pageview' }] }],
    ['NoSuchQuery', {}],
  ])('refuses %s as a kind it does not serve, naming it', async (kind, fields) => {
    const res = await ask({ kind, ...fields })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__kind', detail: `${kind} is not supported.` })
  })

  it('refuses a query without a kind as a malformed query, naming the field', async () => {
    const res = await ask({ series: [{ kind: 'EventsNode', event: 'pageview' }] })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__kind' })
  })
})
