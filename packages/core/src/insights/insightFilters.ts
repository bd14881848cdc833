import { isJsonObject } from '@burrow/contracts'

// PostHog's legacy insight `filters` (the dict its older clients and API users still save) as
// the query PostHog converts them to (its filter_to_query), wrapped in an InsightVizNode.

type Filters = Record<string, unknown>
type Node = Record<string, unknown>

const KINDS: Record<string, string> = {
  TRENDS: 'TrendsQuery',
  FUNNELS: 'FunnelsQuery',
  RETENTION: 'RetentionQuery',
  LIFECYCLE: 'LifecycleQuery',
  STICKINESS: 'StickinessQuery',
  PATHS: 'PathsQuery',
}

/** The displays PostHog's charts know; another is left out, as PostHog leaves it out. */
const DISPLAYS = new Set([
  'ActionsLineGraph',
  'ActionsBar',
  'ActionsUnstackedBar',
  'ActionsStackedBar',
  'ActionsAreaGraph',
  'ActionsLineGraphCumulative',
  'BoldNumber',
  'ActionsPie',
  'ActionsBarValue',
  'ActionsTable',
  'WorldMap',
  'CalendarHeatmap',
])

/** `node` without the fields that are absent or null, as PostHog's stored queries leave them out. */
function compact(node: Node): Node {
  return Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined && v !== null))
}

/** A field that may come as JSON text (PostHog's old clients sent lists as strings). */
function parsedList(value: unknown): unknown[] {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown
    } catch {
      return []
    }
  }
  return Array.isArray(value) ? value : []
}

const asBoolean = (v: unknown) =>
  typeof v === 'string' ? ['true', '1', 'yes', 'on'].includes(v.toLowerCase()) : v === true ? true : undefined

function insightOf(filters: Filters): string {
  const insight = typeof filters.insight === 'string' ? filters.insight.toUpperCase() : 'TRENDS'
  if (insight === 'SESSIONS') return 'TRENDS'
  // Lifecycle was once a trends insight shown as a lifecycle.
  if (insight === 'TRENDS' && filters.shown_as === 'Lifecycle') return 'LIFECYCLE'
  return insight
}

/** A funnel step counts with no math but PostHog's first-time ones. */
const FUNNEL_MATHS = new Set(['first_time_for_user', 'first_time_for_user_with_filters'])

/** Series from `events` and `actions`, in their `order`: math only where the kind counts with it. */
function seriesOf(filters: Filters, withMath: boolean | 'funnel'): Node[] {
  // Events given as text are templates gone wrong, which PostHog leaves out.
  const entities: Node[] = [
    ...parsedList(filters.actions)
      .filter(isJsonObject)
      .map((e) => ({ ...e, type: 'actions' })),
    ...parsedList(filters.events)
      .filter(isJsonObject)
      .map((e) => ({ ...e, type: 'events' })),
  ].filter((e: Node) => !(e.type === 'actions' && (e.id === undefined || e.id === null)))
  entities.sort((a, b) => (typeof a.order === 'number' ? a.order : -1) - (typeof b.order === 'number' ? b.order : -1))
  return entities.map((e) => {
    const math =
      withMath === 'funnel'
        ? { math: FUNNEL_MATHS.has(String(e.math)) ? e.math : undefined }
        : withMath
          ? { math: e.math, math_property: e.math_property, math_hogql: e.math_hogql, math_group_type_index: e.math_group_type_index }
          : {}
    const shared = { name: e.name, custom_name: e.custom_name, properties: e.properties, ...math }
    // A node of every event keeps its event: null.
    return e.type === 'actions'
      ? compact({ kind: 'ActionsNode', id: e.id, ...shared })
      : { kind: 'EventsNode', event: e.id ?? null, ...compact(shared) }
  })
}

function breakdownFilterOf(filters: Filters, insight: string): Node | undefined {
  if (insight !== 'TRENDS' && insight !== 'FUNNELS') return undefined
  let type = filters.breakdown_type
  let breakdown = filters.breakdown
  if (type === 'events') type = 'event'
  const breakdowns = parsedList(filters.breakdowns)
  if (breakdowns.length === 1 && isJsonObject(breakdowns[0])) {
    type = breakdowns[0].type
    breakdown = breakdowns[0].property
  }
  if (Array.isArray(breakdown)) breakdown = breakdown.filter((b) => b !== null && b !== undefined)
  if (breakdown !== undefined && breakdown !== null && (type === undefined || type === null)) type = 'event'
  const node = compact({
    breakdown_type: type,
    breakdown,
    breakdown_normalize_url: filters.breakdown_normalize_url,
    breakdown_group_type_index: filters.breakdown_group_type_index,
    breakdown_hide_other_aggregation: filters.breakdown_hide_other_aggregation,
    breakdown_histogram_bin_count: insight === 'TRENDS' ? filters.breakdown_histogram_bin_count : undefined,
    breakdown_limit: filters.breakdown_limit,
    // Several properties at once: kept so that the query refuses them rather than drops them.
    breakdowns: breakdowns.length > 1 ? breakdowns : undefined,
  })
  return Object.keys(node).length > 0 ? node : undefined
}

const entityOf = (e: unknown) =>
  isJsonObject(e) ? compact({ type: e.type, id: e.id, name: e.name, custom_name: e.custom_name, order: e.order }) : undefined

function insightFilterOf(filters: Filters, insight: string): Node {
  const nonEmpty = (key: string, node: Node) => (Object.keys(compact(node)).length > 0 ? { [key]: compact(node) } : {})
  switch (insight) {
    case 'TRENDS':
      return nonEmpty('trendsFilter', {
        smoothingIntervals: filters.smoothing_intervals,
        showLegend: filters.show_legend,
        aggregationAxisFormat: filters.aggregation_axis_format,
        aggregationAxisPrefix: filters.aggregation_axis_prefix,
        aggregationAxisPostfix: filters.aggregation_axis_postfix,
        decimalPlaces: filters.decimal_places,
        formula: filters.formula,
        display: typeof filters.display === 'string' && DISPLAYS.has(filters.display) ? filters.display : undefined,
        showValuesOnSeries: filters.show_values_on_series,
        showPercentStackView: filters.show_percent_stack_view,
        showLabelsOnSeries: filters.show_label_on_series,
      })
    case 'FUNNELS': {
      // Funnel trends were once a funnel shown as a line graph.
      const vizType = filters.funnel_viz_type ?? (filters.display === 'ActionsLineGraph' ? 'trends' : undefined)
      const windowDays = filters.funnel_window_interval === undefined ? filters.funnel_window_days : undefined
      return nonEmpty('funnelsFilter', {
        funnelVizType: vizType,
        funnelOrderType: filters.funnel_order_type,
        funnelFromStep: filters.funnel_from_step,
        funnelToStep: filters.funnel_to_step,
        funnelWindowIntervalUnit: filters.funnel_window_interval_unit ?? (windowDays !== undefined ? 'day' : undefined),
        funnelWindowInterval: filters.funnel_window_interval ?? windowDays,
        funnelStepReference: filters.funnel_step_reference,
        breakdownAttributionType: filters.breakdown_attribution_type,
        breakdownAttributionValue: filters.breakdown_attribution_value,
        binCount: filters.bin_count,
        exclusions: parsedList(filters.exclusions)
          .filter(isJsonObject)
          .map((e) =>
            compact({
              ...seriesOf({ events: e.type === 'actions' ? [] : [e], actions: e.type === 'actions' ? [e] : [] }, false)[0],
              funnelFromStep: e.funnel_from_step,
              funnelToStep: e.funnel_to_step,
            }),
          ),
        layout: filters.layout,
        funnelAggregateByHogQL: filters.funnel_aggregate_by_hogql,
      })
    }
    case 'RETENTION':
      return nonEmpty('retentionFilter', {
        retentionType: filters.retention_type,
        retentionReference: filters.retention_reference,
        totalIntervals: filters.total_intervals,
        returningEntity: entityOf(filters.returning_entity),
        targetEntity: entityOf(filters.target_entity),
        period: filters.period,
        meanRetentionCalculation: filters.mean_retention_calculation,
        cumulative: asBoolean(filters.cumulative),
        minimumOccurrences: filters.minimum_occurrences,
      })
    case 'PATHS':
      return {
        ...nonEmpty('pathsFilter', {
          pathsHogQLExpression: filters.paths_hogql_expression,
          includeEventTypes: filters.include_event_types,
          startPoint: filters.start_point,
          endPoint: filters.end_point,
          pathGroupings: filters.path_groupings,
          excludeEvents: filters.exclude_events,
          stepLimit: filters.step_limit,
          pathReplacements: filters.path_replacements,
          localPathCleaningFilters: filters.local_path_cleaning_filters,
          edgeLimit: filters.edge_limit,
          minEdgeWeight: filters.min_edge_weight,
          maxEdgeWeight: filters.max_edge_weight,
        }),
        // Paths around a funnel's step, which are not served: kept, so that the insight is refused rather than shown without them.
        ...(filters.funnel_paths === undefined || filters.funnel_paths === null
          ? {}
          : nonEmpty('funnelPathsFilter', {
              funnelPathType: filters.funnel_paths,
              funnelStep: isJsonObject(filters.funnel_filter) ? filters.funnel_filter.funnel_step : undefined,
            })),
      }
    case 'LIFECYCLE':
      return nonEmpty('lifecycleFilter', {
        toggledLifecycles: filters.toggledLifecycles,
        showValuesOnSeries: filters.show_values_on_series,
      })
    default:
      return {}
  }
}

/**
 * The InsightVizNode PostHog stores for an insight saved with only legacy `filters`: the kind of
 * its `insight` (TRENDS by default), the series, dates, properties, breakdown and the kind's
 * own filter, as PostHog's filter_to_query maps them.
 */
export function legacyFiltersToQuery(filters: Filters): Record<string, unknown> {
  const insight = insightOf(filters)
  const kind = KINDS[insight] ?? 'TrendsQuery'
  const explicitDate = asBoolean(filters.explicit_date)
  const dateRange = compact({ date_from: filters.date_from, date_to: filters.date_to, explicitDate })
  const withSeries = insight !== 'RETENTION' && insight !== 'PATHS'
  const compare = asBoolean(filters.compare)
  const source = compact({
    kind,
    ...(Object.keys(dateRange).length > 0 ? { dateRange } : {}),
    interval: withSeries ? (filters.interval === 'minute' ? 'hour' : filters.interval) : undefined,
    ...(withSeries
      ? { series: seriesOf(filters, insight === 'FUNNELS' ? 'funnel' : insight === 'TRENDS' || insight === 'STICKINESS') }
      : {}),
    samplingFactor: typeof filters.sampling_factor === 'number' ? filters.sampling_factor : undefined,
    filterTestAccounts: asBoolean(filters.filter_test_accounts),
    properties: filters.properties,
    breakdownFilter: breakdownFilterOf(filters, insight),
    aggregation_group_type_index: insight === 'STICKINESS' || insight === 'LIFECYCLE' ? undefined : filters.aggregation_group_type_index,
    compareFilter: insight === 'TRENDS' && compare ? compact({ compare, compare_to: filters.compare_to }) : undefined,
    ...insightFilterOf(filters, insight),
  })
  return { kind: 'InsightVizNode', source }
}
