import { materializedColumns } from '@burrow/clickhouse'
import type { PropertyExpression } from '@burrow/clickhouse'
import type { Interval, TrendsQuery } from '@burrow/contracts'
import { problems, PROPERTY_MATHS, TOTAL_VALUE_DISPLAYS } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { eventExpressionOf } from '../eventExpression'
import { dayKey, dayLabel, isoInZone, previousPeriod, resolveRange, type ResolvedRange } from '../dates'
import { BREAKDOWN_OTHER, type PropertyColumns } from '../events'
import type { RunnerOutput } from '../runnerOutput'
import { entityOf, queryFiltersOf, rangeOptionsOf, selectionOf } from '../series'
import { num, select } from '../sql'
import {
  ACTIVE_WINDOW_DAYS,
  BREAKDOWN_PART_SEPARATOR,
  effectiveMath,
  histogramBoundsStatement,
  seriesStatement,
  FIRST_TIME_MATHS,
  type BreakdownPart,
  type SeriesShape,
} from './aggregation'

/** A cohort breakdown, with how each of its values is shown: its label, and the value answered. */
type CohortPart = BreakdownPart & { shown: ReadonlyMap<string, { label: string; value: string | number }> }
import { applyFormula, parseFormula } from './formula'
import { breakdownLabel, DEFAULT_BREAKDOWN_LIMIT, limitBreakdown, orderBreakdown, type ValueSeries } from './breakdownLimit'

type Period = { range: ResolvedRange; compareLabel?: 'current' | 'previous' }

/** What every series of a trend shares: its interval, periods, filters and breakdown. */
export interface TrendsPlan {
  totalValue: boolean
  interval: Interval
  current: ResolvedRange
  /** The range asked for, and with a compare filter the previous one after it. */
  periods: Period[]
  filters: PropertyExpression | undefined
  columns: PropertyColumns
  parts: BreakdownPart[] | undefined
  breakdown: TrendsQuery['breakdownFilter'] | undefined
  /** The breakdown value is answered as a list (PostHog's multiple breakdowns). */
  asList: boolean
  otherValue: string
  limit: number
  histogramBins: number | undefined
  cumulative: boolean
  /** With a cohort breakdown: each value's label and answered value. */
  cohortShown: CohortPart['shown'] | undefined
  /** Each series' place in the query, to name it in a refusal. */
  seriesIndex: ReadonlyMap<TrendsQuery['series'][number], number>
  /** Each series' events and HogQL math, read once for all its periods (filters, cohorts, actions, parsing). */
  seriesInputs: Map<TrendsQuery['series'][number], Promise<SeriesInputs>>
}

/** What a series reads before it is counted: its events and, with `math: hogql`, its expression. */
interface SeriesInputs {
  selection: SeriesShape['selection']
  mathExpression: SeriesShape['mathExpression']
}

/** The parts of a trend every series shares, its options checked. */
export async function trendsPlanOf(ctx: QueryContext, query: TrendsQuery): Promise<TrendsPlan> {
  const totalValue = (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(query.trendsFilter?.display ?? '')
  const interval = totalValue ? 'day' : (query.interval ?? 'day')
  const rangeOptions = rangeOptionsOf(
    ctx,
    query.series.map((s) => s.event ?? null),
  )
  const current = await resolveRange(query.dateRange, interval, rangeOptions)
  const periods: Period[] = [{ range: current }]
  if (query.compareFilter?.compare) {
    periods[0]!.compareLabel = 'current'
    periods.push({ range: previousPeriod(current, query.compareFilter.compare_to ?? undefined), compareLabel: 'previous' })
  }
  const parts = await breakdownPartsOf(ctx, query)
  const breakdown = parts ? query.breakdownFilter! : undefined
  // Several properties answer their values as a list, also when `breakdowns` names one, as PostHog does.
  const asList = Boolean(query.breakdownFilter?.breakdowns?.length)
  const histogramBins = breakdown?.breakdown_histogram_bin_count ?? undefined
  if (histogramBins !== undefined && parts?.some((part) => part.type === 'hogql' || part.type === 'cohort')) {
    throw problems.validation(
      'query__breakdownFilter__breakdown_histogram_bin_count',
      'breakdown_histogram_bin_count bins a numeric property; a HogQL or cohort breakdown is not binned.',
    )
  }
  const cohortPart = parts?.find((part): part is CohortPart => part.type === 'cohort')
  const firstTime = query.series.findIndex((node) => (FIRST_TIME_MATHS as readonly string[]).includes(node.math ?? 'total'))
  if (cohortPart && firstTime >= 0) {
    throw problems.validation(`query__series__${firstTime}__math`, 'A first-time math broken down by cohort is not supported.')
  }
  if (asList && histogramBins !== undefined) {
    throw problems.validation(
      'query__breakdownFilter__breakdown_histogram_bin_count',
      'breakdown_histogram_bin_count bins `breakdown`; with `breakdowns` it is not supported.',
    )
  }
  for (const [i, node] of query.series.entries()) {
    if ((PROPERTY_MATHS as readonly string[]).includes(node.math ?? 'total') && !node.math_property) {
      throw problems.validation('series', `Series ${i} counts the ${node.math} of a property: it needs math_property.`)
    }
  }
  return {
    totalValue,
    interval,
    current,
    periods,
    filters: await queryFiltersOf(ctx, query),
    columns: materializedColumns(ctx.ch),
    parts,
    breakdown,
    asList,
    otherValue: (parts ?? []).map(() => BREAKDOWN_OTHER).join(BREAKDOWN_PART_SEPARATOR),
    // Every cohort is shown, as PostHog shows them: none is summed into Other.
    limit: cohortPart ? (cohortPart.cohorts?.length ?? 1) : (breakdown?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT),
    cohortShown: cohortPart?.shown,
    histogramBins,
    cumulative: query.trendsFilter?.display === 'ActionsLineGraphCumulative',
    seriesIndex: new Map(query.series.map((node, i) => [node, i])),
    seriesInputs: new Map(),
  }
}

async function seriesInputsOf(ctx: QueryContext, plan: TrendsPlan, node: TrendsQuery['series'][number]): Promise<SeriesInputs> {
  const at = plan.seriesIndex.get(node) ?? 0
  const selection = await selectionOf(ctx, node, plan.filters, 'series', `series__${at}`)
  const mathExpression =
    node.math === 'hogql'
      ? await eventExpressionOf(ctx, node.math_hogql ?? '', {
          attr: `query__series__${at}__math_hogql`,
          what: 'math_hogql',
          aggregate: true,
          prefix: 'hogql_math_',
        })
      : undefined
  return { selection, mathExpression }
}

/** How one series of the trend is counted over `range`. */
export async function seriesShapeOf(
  ctx: QueryContext,
  plan: TrendsPlan,
  node: TrendsQuery['series'][number],
  range: ResolvedRange,
): Promise<SeriesShape> {
  const { interval, totalValue } = plan
  let inputs = plan.seriesInputs.get(node)
  if (!inputs) plan.seriesInputs.set(node, (inputs = seriesInputsOf(ctx, plan, node)))
  const { selection, mathExpression } = await inputs
  const math = effectiveMath(node.math ?? 'total', interval, totalValue)
  const toExclusive = range.to.plus({ milliseconds: 1 })
  const bucketEnds = ACTIVE_WINDOW_DAYS[math] === undefined ? undefined : totalValue ? [toExclusive] : bucketEndsOf(range, toExclusive)
  const shape: SeriesShape = {
    selection,
    columns: plan.columns,
    math,
    mathProperty: node.math_property,
    interval,
    zone: ctx.timezone,
    weekStartDay: ctx.weekStartDay,
    from: range.from,
    toExclusive,
    breakdown: plan.parts,
    totalValue,
    // PostHog's cumulative unique users and groups count each one once, in their first interval.
    firstBucketOnly: plan.cumulative && (math === 'dau' || math === 'unique_group'),
    groupIndex: math === 'unique_group' ? (node.math_group_type_index ?? undefined) : undefined,
    ...(bucketEnds ? { bucketEnds } : {}),
    mathExpression,
  }
  if (plan.histogramBins !== undefined) {
    const bounds = histogramBoundsStatement(shape, plan.histogramBins, plan.limit)
    const [answer] = await select<{ bounds: Array<number | string> }>(ctx, bounds.sql, bounds.params)
    shape.histogramBounds = (answer?.bounds ?? []).map(Number).filter(Number.isFinite)
  }
  return shape
}

/** A series' numbers over `range`: one list (a number per bucket, or one for a total) per breakdown value, every value. */
export async function seriesValuesOf(
  ctx: QueryContext,
  plan: TrendsPlan,
  shape: SeriesShape,
  range: ResolvedRange,
): Promise<{ keys: string[]; series: ValueSeries[] }> {
  const { interval, totalValue } = plan
  const statement = seriesStatement(shape)
  const rows = await select<{ bucket: string; breakdown_value: string; value: number | string }>(ctx, statement.sql, statement.params)
  const keys = range.buckets.map((b) => dayKey(b, interval))
  // Rolling actives answer bucket numbers (1-based); the others answer the bucket's key.
  const indexOf =
    shape.bucketEnds !== undefined
      ? (bucket: string) => Number(bucket) - 1
      : totalValue
        ? () => 0
        : (() => {
            const byKey = new Map(keys.map((k, i) => [k, i]))
            return (bucket: string) => byKey.get(bucket) ?? -1
          })()
  const width = totalValue ? 1 : keys.length
  const byValue = new Map<string, number[]>()
  for (const row of rows) {
    const i = indexOf(row.bucket)
    if (i < 0 || i >= width) continue
    let data = byValue.get(row.breakdown_value)
    if (!data) byValue.set(row.breakdown_value, (data = new Array<number>(width).fill(0)))
    data[i] = num(row.value)
  }
  const series = [...byValue].map(([value, data]) => ({ value, data }))
  return { keys, series: plan.breakdown ? series : [{ value: '', data: series[0]?.data ?? new Array<number>(width).fill(0) }] }
}

/** The breakdown values a chart shows of `series`: the first `limit`, the rest as Other (or all of a histogram's bins). */
export function shownBreakdown(plan: TrendsPlan, series: ValueSeries[]): { series: ValueSeries[]; other: boolean } {
  if (!plan.breakdown) return { series, other: false }
  // A histogram's bins are all shown, as PostHog shows them, in its order of breakdown values.
  if (plan.histogramBins !== undefined) return { series: orderBreakdown(series), other: false }
  const limited = limitBreakdown(series, plan.limit, plan.otherValue)
  return { series: limited, other: limited.some((s) => s.value === plan.otherValue) }
}

/** PostHog's TrendsQuery: each series counted per interval (or in total), broken down, compared. */
export async function runTrends(ctx: QueryContext, query: TrendsQuery): Promise<RunnerOutput> {
  const plan = await trendsPlanOf(ctx, query)
  const { totalValue, interval, current, periods, breakdown, cumulative } = plan
  const formulas = formulasOf(query).map((node) => ({ ...node, parsed: parseFormula(node.formula, query.series.length) }))
  const smoothing = totalValue ? 1 : (query.trendsFilter?.smoothingIntervals ?? 1)
  const results: Array<Record<string, unknown>> = []
  let hasMore = false
  for (const period of periods) {
    for (const [order, node] of query.series.entries()) {
      const { range } = period
      const shape = await seriesShapeOf(ctx, plan, node, range)
      const { keys, series } = await seriesValuesOf(ctx, plan, shape, range)
      const shown = shownBreakdown(plan, series)
      let valueSeries = shown.series
      if (shown.other) {
        hasMore = true
        if (breakdown?.breakdown_hide_other_aggregation) valueSeries = valueSeries.filter((s) => s.value !== plan.otherValue)
      }
      for (const s of valueSeries) {
        if (smoothing > 1) s.data = movingAverage(s.data, smoothing)
        if (cumulative) s.data = runningTotal(s.data)
      }
      // The cumulative display orders its rows by the totals it shows, as PostHog's does.
      if (breakdown && cumulative) valueSeries = orderBreakdown(valueSeries)
      for (const s of valueSeries) {
        results.push(
          seriesRow({
            node,
            order,
            interval,
            range,
            keys,
            data: s.data,
            cumulative,
            totalValue,
            breakdownValue: breakdown ? s.value : undefined,
            asList: plan.asList,
            seriesCount: query.series.length,
            compareLabel: period.compareLabel,
            filter: legacyFilter(query, interval),
            weekStartDay: ctx.weekStartDay,
            cohortShown: plan.cohortShown,
            entity: entityOf(shape.selection),
          }),
        )
      }
    }
  }
  return {
    results: formulas.length
      ? formulas.flatMap((f) => applyFormula(results, f.parsed, f.custom_name || `Formula (${f.formula})`, totalValue))
      : results,
    extra: breakdown ? { hasMore } : {},
    resolvedDateRange: { date_from: isoInZone(current.from), date_to: isoInZone(current.to) },
  }
}

/**
 * What a trend is broken down by: `breakdowns` when given (PostHog reads them first), else
 * `breakdown`; a `hogql` one is an expression over each event, parsed and printed here.
 */
async function breakdownPartsOf(ctx: QueryContext, query: TrendsQuery): Promise<BreakdownPart[] | undefined> {
  const filter = query.breakdownFilter
  if (filter?.breakdown_type === 'cohort' && !filter.breakdowns?.length) return [await cohortPartOf(ctx, filter)]
  const given = filter?.breakdowns?.length
    ? filter.breakdowns.map((b, i) => ({
        property: String(b.property),
        type: b.type ?? 'event',
        normalizeUrl: b.normalize_url === true,
        attr: `query__breakdownFilter__breakdowns__${i}__property`,
      }))
    : filter?.breakdown === undefined || filter.breakdown === null
      ? undefined
      : [
          {
            property: String(filter.breakdown),
            type: filter.breakdown_type ?? 'event',
            normalizeUrl: filter.breakdown_normalize_url === true,
            attr: 'query__breakdownFilter__breakdown',
            ...(filter.breakdown_type === 'group' ? { groupIndex: filter.breakdown_group_type_index ?? 0 } : {}),
          },
        ]
  if (!given) return undefined
  return Promise.all(
    given.map(async ({ attr, ...part }, i): Promise<BreakdownPart> => {
      if (part.type !== 'hogql') return part
      const expression = await eventExpressionOf(ctx, part.property, {
        attr,
        what: 'breakdown',
        aggregate: false,
        prefix: `hogql_breakdown_${i}_`,
      })
      return { ...part, expression }
    }),
  )
}

const COHORT_ATTR = 'query__breakdownFilter__breakdown'

/** A cohort breakdown: the cohorts named (or `all`), each of this project, with their names as labels. */
async function cohortPartOf(ctx: QueryContext, filter: NonNullable<TrendsQuery['breakdownFilter']>): Promise<CohortPart> {
  const given = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown]
  if (given.some((v) => v !== 'all' && typeof v !== 'number'))
    throw problems.validation(COHORT_ATTR, 'A cohort breakdown names cohorts by id, or all.')
  const values = [...new Set(given as Array<number | 'all'>)]
  const ids = values.filter((v): v is number => v !== 'all')
  if (ids.length > 0 && !ctx.cohorts) throw problems.validation(COHORT_ATTR, 'Cohorts cannot be broken down by here.')
  const found = new Map((ids.length ? await ctx.cohorts!(ids) : []).map((c) => [c.id, c]))
  const missing = ids.find((id) => !found.has(id))
  if (missing !== undefined) throw problems.validation(COHORT_ATTR, `Cohort ${missing} does not exist in this project.`)
  return {
    property: '',
    type: 'cohort',
    cohorts: values.map((v) => (v === 'all' ? { value: 'all' } : { value: String(v), members: found.get(v)!.members })),
    // PostHog labels a cohort's rows by its name, and answers its id as the breakdown value; `all` is "all users".
    shown: new Map(
      values.map((v) => [String(v), v === 'all' ? { label: 'all users', value: 'all' } : { label: found.get(v)!.name, value: v }]),
    ),
  }
}

/**
 * The formulas asked for, as PostHog reads them: `formulaNodes` when given, else each of
 * `formulas`, else `formula`; blank ones ask for nothing.
 */
function formulasOf(query: TrendsQuery): Array<{ formula: string; custom_name?: string | null | undefined }> {
  const filter = query.trendsFilter
  const given = (text: string | null | undefined) => Boolean(text?.trim())
  if (filter?.formulaNodes?.length) return filter.formulaNodes.filter((node) => given(node.formula))
  if (filter?.formulas?.length) return filter.formulas.filter(given).map((formula) => ({ formula }))
  return given(filter?.formula) ? [{ formula: filter!.formula! }] : []
}

/** PostHog's smoothing: each bucket the floor of the mean of itself and the `window - 1` buckets before it in the range. */
function movingAverage(data: number[], window: number): number[] {
  let sum = 0
  return data.map((value, i) => {
    sum += value
    if (i >= window) sum -= data[i - window]!
    return Math.floor(sum / Math.min(i + 1, window))
  })
}

/** The cumulative display: each bucket the total up to and including it. */
function runningTotal(data: number[]): number[] {
  let sum = 0
  return data.map((value) => (sum += value))
}

function bucketEndsOf(range: ResolvedRange, toExclusive: DateTime): DateTime[] {
  return range.buckets.map((start) => {
    const end = start.plus({ [`${range.interval}s`]: 1 })
    return end > toExclusive ? toExclusive : end
  })
}

interface SeriesRowInput {
  node: TrendsQuery['series'][number]
  order: number
  interval: ResolvedRange['interval']
  range: ResolvedRange
  keys: string[]
  data: number[]
  /** The cumulative display counts the last bucket's total, not the sum of the buckets. */
  cumulative: boolean
  totalValue: boolean
  breakdownValue: string | undefined
  /** The breakdown value is answered as a list (PostHog's multiple breakdowns). */
  asList: boolean
  seriesCount: number
  compareLabel: 'current' | 'previous' | undefined
  filter: Record<string, unknown>
  weekStartDay: 0 | 1
  cohortShown?: CohortPart['shown'] | undefined
  /** What the series counts, as PostHog names it. */
  entity: ReturnType<typeof entityOf>
}

/** One row of the answer, with PostHog's fields. */
function seriesRow(input: SeriesRowInput): Record<string, unknown> {
  const { node, range, interval } = input
  const entity = input.entity
  const name = entity.name ?? 'All events'
  const row: Record<string, unknown> = {
    data: input.totalValue ? [] : input.data,
    labels: input.totalValue ? [] : range.buckets.map((b) => dayLabel(b, interval, range, input.weekStartDay)),
    days: input.totalValue ? [] : input.keys,
    count: input.totalValue ? 0 : input.cumulative ? (input.data.at(-1) ?? 0) : input.data.reduce((a, b) => a + b, 0),
    label: name,
    filter: input.filter,
    action: {
      days: input.keys,
      id: entity.id,
      type: entity.type,
      order: input.order,
      name,
      custom_name: node.custom_name ?? null,
      math: node.math ?? 'total',
      math_property: node.math_property ?? null,
      math_hogql: node.math_hogql ?? null,
      // The group type counted; a type beside another math counts nothing, and is not echoed as if it did.
      math_group_type_index: node.math === 'unique_group' ? (node.math_group_type_index ?? null) : null,
      properties: {},
    },
  }
  if (input.totalValue) row.aggregated_value = input.data[0] ?? 0
  if (input.compareLabel) {
    row.compare = true
    row.compare_label = input.compareLabel
  }
  if (input.breakdownValue !== undefined) {
    const cohort = input.cohortShown?.get(input.breakdownValue)
    const label = cohort?.label ?? breakdownLabel(input.breakdownValue)
    row.label = input.seriesCount > 1 ? `${name} - ${label}` : label
    row.breakdown_value = cohort ? cohort.value : input.asList ? input.breakdownValue.split(BREAKDOWN_PART_SEPARATOR) : input.breakdownValue
  }
  return row
}

/** PostHog's legacy filter of the query, which its clients still read from each row. */
function legacyFilter(query: TrendsQuery, interval: string): Record<string, unknown> {
  return {
    insight: 'TRENDS',
    interval,
    date_from: query.dateRange?.date_from ?? '-7d',
    date_to: query.dateRange?.date_to ?? null,
    display: query.trendsFilter?.display ?? 'ActionsLineGraph',
    ...(query.breakdownFilter?.breakdown !== undefined && query.breakdownFilter?.breakdown !== null
      ? { breakdown: query.breakdownFilter.breakdown, breakdown_type: query.breakdownFilter.breakdown_type ?? 'event' }
      : {}),
    ...(query.breakdownFilter?.breakdowns?.length ? { breakdowns: query.breakdownFilter.breakdowns } : {}),
  }
}
