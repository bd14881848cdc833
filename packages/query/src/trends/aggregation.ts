import { eventPropertiesSql, SqlParams, type PropertyExpression } from '@burrow/clickhouse'
import type { Interval, SeriesMath as CommonMath } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import { bucketKeyOfStartSql, bucketStartSql, utcText } from '../dates'
import { EVENT_EXPRESSION_COLUMNS, type EventExpression } from '../eventExpression'
import { TEAM } from '../sql'
import {
  ACTOR_SQL,
  BREAKDOWN_NULL,
  breakdownValueSql,
  eventsSql,
  numericPropertySql,
  ownColumnSql,
  personJoinSql,
  personPropertiesJoinSql,
  type EventSelection,
  type PropertyColumns,
} from '../events'

export interface SeriesStatement {
  sql: string
  params: Record<string, unknown>
}

/** How many days back a rolling active-users math looks. */
/** A trend's maths: every kind's, and the distinct groups of one type (`unique_group`). */
export type SeriesMath = CommonMath | 'unique_group' | 'hogql'

export const ACTIVE_WINDOW_DAYS: Partial<Record<SeriesMath, number>> = { weekly_active: 7, monthly_active: 30 }

/** PostHog counts weekly actives per day only below a week, monthly actives below a month: otherwise they are the interval's actives. */
export function effectiveMath(math: SeriesMath, interval: Interval, totalValue: boolean): SeriesMath {
  if (totalValue) return math
  if (math === 'weekly_active' && (interval === 'week' || interval === 'month')) return 'dau'
  if (math === 'monthly_active' && interval === 'month') return 'dau'
  return math
}

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }

/**
 * A count-per-actor math (`avg_count_per_actor`, …) as PostHog computes it: the statistic of the
 * per-person event counts of a bucket, `total` being one person's count; 0 without persons.
 */
function perActorSql(math: SeriesMath): string | undefined {
  const stat = /^(avg|min|max|median|p75|p90|p95|p99)_count_per_actor$/.exec(math)?.[1]
  if (stat === undefined) return undefined
  const q = QUANTILES[stat]
  return `ifNull(${q === undefined ? stat : `quantile(${q})`}(toFloat64(total)), 0)`
}

function aggregateSql(shape: SeriesShape, params: SqlParams): string {
  const { math, mathProperty } = shape
  switch (math) {
    case 'hogql':
      // Whatever the expression answers, as a number: PostHog charts numbers, and shows 0 for none.
      return `ifNotFinite(coalesce(toFloat64OrNull(toString(${shape.mathExpression!.sql})), 0), 0)`
    case 'total':
      return 'count()'
    case 'unique_group':
      return 'count(DISTINCT e.group_key)'
    case 'dau':
    case 'weekly_active':
    case 'monthly_active':
      return `count(DISTINCT ${ACTOR_SQL})`
    case 'unique_session':
      // Events without a session are one more session, '' (PostHog's $session_id column holds '' for them).
      return `count(DISTINCT JSONExtractString(e.properties, '$session_id'))`
    default: {
      const value = numericPropertySql('e.properties', mathProperty ?? '', params)
      const q = QUANTILES[math]
      const agg = q === undefined ? `${math}(${value})` : `quantile(${q})(${value})`
      // No values at all: PostHog shows 0, not NaN or null.
      return `ifNotFinite(coalesce(${agg}, 0), 0)`
    }
  }
}

/** One property a series is broken down by. */
export interface BreakdownPart {
  property: string
  type: 'event' | 'person' | 'hogql' | 'cohort' | 'group'
  /** A `group` breakdown's group type: the property is read from the event's group of that type. */
  groupIndex?: number
  /** A `hogql` breakdown's expression, printed. */
  expression?: EventExpression
  /** A `cohort` breakdown's cohorts: each one's value (its id, or `all`) and, but for `all`, who its members are. */
  cohorts?: Array<{ value: string; members?: PropertyExpression }>
  /** PostHog's URL normalisation: the value without its trailing `/`, `?` and `#`, `/` when nothing is left. */
  normalizeUrl?: boolean
}

/** Between the values of a breakdown by several properties: sorts before every character, so keys sort as their lists do. */
export const BREAKDOWN_PART_SEPARATOR = '\u0000'

export interface SeriesShape {
  selection: EventSelection
  columns: PropertyColumns
  math: SeriesMath
  mathProperty?: string | null | undefined
  interval: Interval
  zone: string
  weekStartDay: 0 | 1
  from: DateTime
  toExclusive: DateTime
  /** The properties the series is broken down by (several: their values joined by BREAKDOWN_PART_SEPARATOR). */
  breakdown?: BreakdownPart[] | undefined
  /** One value over the whole range instead of one per interval. */
  totalValue: boolean
  /** For rolling actives: the end (exclusive) of each bucket, or of the range for a total. */
  bucketEnds?: DateTime[]
  /** Count each person in the first bucket they appear in only (PostHog's cumulative unique users). */
  firstBucketOnly?: boolean
  /** With `unique_group`: the group type whose groups are counted (the events' `$group_N`). */
  groupIndex?: number | undefined
  /** A histogram breakdown: the bins' bounds, as `histogramBoundsStatement` answered them. */
  histogramBounds?: number[]
  /** With `hogql`: the aggregate expression each bucket's value is. */
  mathExpression?: EventExpression | undefined
}

/** PostHog's first-time maths: each person once, at their first event of the series (or first matching one). */
export const FIRST_TIME_MATHS: readonly SeriesMath[] = ['first_time_for_user', 'first_matching_event_for_user']

/** The HogQL expressions a series prints: its math's and its breakdown's. */
function expressionsOf(shape: SeriesShape): EventExpression[] {
  const parts = (shape.breakdown ?? []).flatMap((part) => (part.expression ? [part.expression] : []))
  return shape.mathExpression ? [shape.mathExpression, ...parts] : parts
}

function needsPersons(shape: SeriesShape): boolean {
  return (
    ['dau', 'weekly_active', 'monthly_active', ...FIRST_TIME_MATHS].includes(shape.math) ||
    perActorSql(shape.math) !== undefined ||
    (shape.breakdown ?? []).some((part) => part.type === 'person') ||
    expressionsOf(shape).some((e) => e.needsPersonId || e.needsPerson)
  )
}

/** Whether a series reads the properties of each event's person (`pp`). */
function needsPersonProperties(shape: SeriesShape): boolean {
  return (shape.breakdown ?? []).some((part) => part.type === 'person') || expressionsOf(shape).some((e) => e.needsPerson)
}

/**
 * The events of a series with the joins its math and breakdown need (with `withPersons`, the
 * person of each event as ACTOR_SQL whatever the math), and its breakdown value's SQL.
 */
export function seriesSource(
  shape: SeriesShape,
  params: SqlParams,
  withBreakdown = true,
  withPersons = false,
): { source: string; breakdown: string } {
  const window = ACTIVE_WINDOW_DAYS[shape.math]
  const from = window !== undefined ? shape.from.minus({ days: window }) : shape.from
  const firstTime = FIRST_TIME_MATHS.includes(shape.math)
  const grouped = shape.groupIndex !== undefined
  const groupColumn = grouped ? `, \`$group_${Math.trunc(shape.groupIndex!)}\` AS group_key` : ''
  const expressions = expressionsOf(shape)
  for (const expression of expressions) Object.assign(params.values, expression.params)
  const parts = shape.breakdown ?? []
  // Whether each event's person is in each cohort broken down by, tested where the events are read.
  const cohorts = parts.find((part) => part.type === 'cohort')?.cohorts ?? []
  const cohortColumns = cohorts
    .map((c, i) => (c.members ? `, (${eventPropertiesSql(c.members, TEAM, params, shape.columns)}) AS cohort_member_${i}` : ''))
    .join('')
  // The group types broken down by: each event's group of the type, joined with its latest properties.
  const groupTypes = [...new Set(parts.flatMap((part) => (part.type === 'group' ? [Math.trunc(part.groupIndex ?? 0)] : [])))]
  const groupKeyColumns = groupTypes.map((t) => `, \`$group_${t}\` AS breakdown_group_${t}`).join('')
  const events = eventsSql(
    params,
    shape.selection,
    from,
    shape.toExclusive,
    shape.columns,
    `${groupColumn}${expressions.length ? EVENT_EXPRESSION_COLUMNS : ''}${cohortColumns}${groupKeyColumns}`,
    firstTime ? { matchesAs: 'matches' } : {},
  )
  const joins = withPersons || needsPersons(shape) ? [personJoinSql()] : []
  if (needsPersonProperties(shape)) joins.push(personPropertiesJoinSql(ACTOR_SQL))
  for (const t of groupTypes) {
    joins.push(`LEFT JOIN (
      SELECT group_key, argMax(group_properties, version) AS properties FROM groups
      WHERE team_id = ${TEAM} AND group_type_index = ${t} GROUP BY group_key
    ) AS gp_${t} ON gp_${t}.group_key = e.breakdown_group_${t}`)
  }
  const valueOf = (part: BreakdownPart) => {
    // An event counts once for each cohort its person is in (and for `all`), none when in none.
    if (part.type === 'cohort') {
      const values = cohorts.map((c, i) =>
        c.members ? `if(e.cohort_member_${i}, ${params.add('String', c.value)}, '')` : params.add('String', c.value),
      )
      return `arrayJoin(arrayFilter(x -> x != '', [${values.join(', ')}]))`
    }
    // As PostHog breaks down by an expression: its value as text, '' and null being no value.
    if (part.expression) return `ifNull(nullIf(toString(${part.expression.sql}), ''), '${BREAKDOWN_NULL}')`
    const column = propertiesColumnOf(part)
    if (shape.histogramBounds) return histogramBinSql(numericPropertySql(column, part.property, params), shape.histogramBounds, params)
    const value =
      part.type === 'person' || part.type === 'group'
        ? breakdownValueSql(column, part.property, params)
        : breakdownValueSql(column, part.property, params, BREAKDOWN_NULL, ownColumnSql(shape.columns, part.property))
    return part.normalizeUrl
      ? `if(${value} = '${BREAKDOWN_NULL}', ${value}, if(empty(trimRight(${value}, '/?#')), '/', trimRight(${value}, '/?#')))`
      : value
  }
  const breakdown =
    !withBreakdown || parts.length === 0
      ? "''"
      : parts.length === 1
        ? valueOf(parts[0]!)
        : `concat(${parts.map(valueOf).join(', char(0), ')})`
  // Events without a group of the type belong to no group, as PostHog leaves them out.
  const where = grouped ? " WHERE e.group_key != ''" : ''
  return { source: `(${events}) AS e ${joins.join(' ')}${where}`, breakdown }
}

/** Where a property breakdown reads its property: the event's, its person's (`pp`) or its group's (`gp_N`, see seriesSource). */
function propertiesColumnOf(part: BreakdownPart): string {
  if (part.type === 'person') return 'pp.properties'
  if (part.type === 'group') return `gp_${Math.trunc(part.groupIndex ?? 0)}.properties`
  return 'e.properties'
}

/** The histogram breakdown's value for events whose property is no number or in no bin. */
const HISTOGRAM_NO_BIN = '["",""]'

/**
 * PostHog's histogram bins from the bounds: each pair of neighbours, the last one's top raised by
 * 0.01 (the bounds are floored to two decimals) so that the largest value falls in it; one bound
 * makes one bin. Labelled `[lower,upper]`.
 */
function histogramBins(bounds: number[]): Array<{ lower: number; upper: number; label: string }> {
  const points = bounds.length === 1 ? [bounds[0]!, bounds[0]!] : bounds
  return points.slice(0, -1).map((lower, i) => {
    const upper = i === points.length - 2 ? points[i + 1]! + 0.01 : points[i + 1]!
    return { lower, upper, label: `[${lower},${upper}]` }
  })
}

function histogramBinSql(value: string, bounds: number[], params: SqlParams): string {
  const branches = histogramBins(bounds).flatMap(({ lower, upper, label }) => [
    `${value} >= ${params.add('Float64', lower)} AND ${value} < ${params.add('Float64', upper)}`,
    params.add('String', label),
  ])
  const binned = branches.length ? `multiIf(${branches.join(', ')}, '${HISTOGRAM_NO_BIN}')` : `'${HISTOGRAM_NO_BIN}'`
  // No number at all (the property missing, or not a number) is PostHog's null value, as in any breakdown.
  return `if(${value} IS NULL, '${BREAKDOWN_NULL}', ${binned})`
}

/**
 * The bounds of a histogram breakdown's bins, as PostHog finds them: `bins` bins of equal width
 * from the smallest to the largest of the property's values (over the `limit + 1` values with the
 * most events), each bound floored to two decimals, repeats dropped. One row, `bounds`.
 */
export function histogramBoundsStatement(shape: SeriesShape, bins: number, limit: number): SeriesStatement {
  const params = new SqlParams()
  const part = shape.breakdown![0]!
  const { source } = seriesSource(shape, params, false)
  const value = numericPropertySql(propertiesColumnOf(part), part.property, params)
  const count = Math.max(1, Math.trunc(bins))
  const sql = `SELECT if(isNull(lowest), [], arrayCompact(arrayMap(i -> floor(lowest + i / ${count} * (highest - lowest), 2), range(${count + 1})))) AS bounds
    FROM (
      SELECT min(value) AS lowest, max(value) AS highest FROM (
        SELECT ${value} AS value, count() AS events FROM ${source}
        GROUP BY value ORDER BY events DESC, value DESC LIMIT ${Math.trunc(limit) + 1}
      )
    )`
  return { sql, params: params.values }
}

/** The statement of one series: rows of (bucket, breakdown_value, value). */
export function seriesStatement(shape: SeriesShape): SeriesStatement {
  const params = new SqlParams()
  const zone = params.add('String', shape.zone)
  const window = ACTIVE_WINDOW_DAYS[shape.math]
  const { source, breakdown } = seriesSource(shape, params)

  if (window !== undefined) {
    // Each event counts towards every bucket whose window [start, end) holds it; the windows are whole
    // days of the zone, so a window over a DST change is an hour longer or shorter.
    const ends = shape.bucketEnds ?? []
    const startsParam = params.add(
      'Array(String)',
      ends.map((end) => utcText(end.minus({ days: window }))),
    )
    const endsParam = params.add(
      'Array(String)',
      ends.map((end) => utcText(end)),
    )
    const asTimes = (p: string) => `arrayMap(x -> toDateTime64(x, 6, 'UTC'), ${p})`
    const sql = `SELECT toString(bucket_index) AS bucket, breakdown_value, count(DISTINCT actor) AS value FROM (
        SELECT ${ACTOR_SQL} AS actor, ${breakdown} AS breakdown_value,
          arrayJoin(arrayFilter((i, window_start, window_end) -> e.timestamp >= window_start AND e.timestamp < window_end,
            arrayEnumerate(${endsParam}), ${asTimes(startsParam)}, ${asTimes(endsParam)})) AS bucket_index
        FROM ${source}
      ) GROUP BY bucket, breakdown_value`
    return { sql, params: params.values }
  }
  // Grouped by the bucket's start, written as its key once per group rather than once per event.
  const start = shape.totalValue ? "''" : bucketStartSql(shape.interval, 'e.timestamp', zone, shape.weekStartDay)
  const key = shape.totalValue ? 'bucket_start' : bucketKeyOfStartSql(shape.interval, 'bucket_start', zone)
  const perActor = perActorSql(shape.math)
  // A person counts when their first event of the series (ever, up to the range's end) is one in the
  // range matching the filters; or, for the first matching event, their first such event is in the range.
  const firstOf = shape.math === 'first_matching_event_for_user' ? 'minIf(e.timestamp, e.matches_filters)' : 'min(e.timestamp)'
  const grouped = FIRST_TIME_MATHS.includes(shape.math)
    ? `SELECT ${shape.totalValue ? "''" : bucketStartSql(shape.interval, 'first', zone, shape.weekStartDay)} AS bucket_start, breakdown_value, count() AS value FROM (
        SELECT ${ACTOR_SQL} AS actor, ${firstOf} AS first, minIf(e.timestamp, e.matches) AS first_matching,
          argMin(${breakdown}, e.timestamp) AS breakdown_value
        FROM ${source} GROUP BY actor
        HAVING first = first_matching AND first != fromUnixTimestamp64Micro(0)
      ) GROUP BY bucket_start, breakdown_value`
    : shape.firstBucketOnly
      ? `SELECT bucket_start, breakdown_value, count() AS value FROM (
        SELECT min(${start}) AS bucket_start, ${breakdown} AS breakdown_value, ${shape.groupIndex !== undefined ? 'e.group_key' : ACTOR_SQL} AS actor
        FROM ${source} GROUP BY breakdown_value, actor
      ) GROUP BY bucket_start, breakdown_value`
      : perActor !== undefined
        ? `SELECT bucket_start, breakdown_value, ${perActor} AS value FROM (
        SELECT ${start} AS bucket_start, ${breakdown} AS breakdown_value, ${ACTOR_SQL} AS actor, count() AS total
        FROM ${source} GROUP BY bucket_start, breakdown_value, actor
      ) GROUP BY bucket_start, breakdown_value`
        : `SELECT ${start} AS bucket_start, ${breakdown} AS breakdown_value, ${aggregateSql(shape, params)} AS value
        FROM ${source} GROUP BY bucket_start, breakdown_value`
  const sql = `SELECT ${key} AS bucket, breakdown_value, value FROM (${grouped})`
  return { sql, params: params.values }
}
