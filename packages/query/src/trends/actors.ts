import type { SqlParams } from '@burrow/clickhouse'
import { problems, type TrendsQuery } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { dayKey } from '../dates'
import { ACTOR_SQL } from '../events'
import { BREAKDOWN_PART_SEPARATOR, seriesSource } from './aggregation'
import { seriesShapeOf, seriesValuesOf, shownBreakdown, trendsPlanOf } from './index'

/** The point of a trend whose persons are asked for (PostHog's InsightActorsQuery on a TrendsQuery). */
export interface TrendsPoint {
  day?: string | number | null | undefined
  series?: number | null | undefined
  breakdown?: string | number | Array<string | number> | null | undefined
  compare?: 'current' | 'previous' | null | undefined
}

/** How many of a person's distinct ids of the point's events are answered, as PostHog's `event_distinct_ids`. */
const EVENT_DISTINCT_IDS = 100

const ATTR = 'query__source'

/** The bucket a point's `day` names: its key as the trend answers it (`days`), or a time within it. */
function bucketIndexOf(day: string | number, keys: string[], interval: string): number {
  const text = String(day)
  const exact = keys.indexOf(text)
  if (exact >= 0) return exact
  // A date with a time (`2024-01-02T00:00:00Z`, `2024-01-02 10:00:00`) names the bucket of its day or hour.
  const prefix = (t: string) => (interval === 'hour' ? t.replace('T', ' ').slice(0, 13) : t.slice(0, 10))
  return keys.findIndex((key) => prefix(key) === prefix(text))
}

/**
 * The persons a point of a trend counts, as PostHog's trends actors query finds them: the
 * persons of the series' events in the point's interval (the window before its end for weekly and
 * monthly actives; from the start of the range for the cumulative display; the whole range for a
 * total) with the point's breakdown value, each with how many of those events they did.
 */
export async function trendsActorsSql(ctx: QueryContext, query: TrendsQuery, point: TrendsPoint, params: SqlParams): Promise<string> {
  const plan = await trendsPlanOf(ctx, query)
  if (plan.histogramBins !== undefined) {
    throw problems.validation(
      `${ATTR}__source__breakdownFilter__breakdown_histogram_bin_count`,
      'The persons of a histogram bin are not supported.',
    )
  }
  const seriesIndex = point.series ?? 0
  const node = query.series[seriesIndex]
  if (!node) throw problems.validation(`${ATTR}__series`, `The trend has no series ${seriesIndex}.`)
  if (node.math === 'unique_group') {
    throw problems.validation(`${ATTR}__series`, 'The groups behind a point are not supported; only persons are.')
  }
  if (point.compare === 'previous' && plan.periods.length < 2) {
    throw problems.validation(`${ATTR}__compare`, 'The trend is not compared to a previous period.')
  }
  const period = point.compare === 'previous' ? plan.periods[1]! : plan.periods[0]!
  const { range } = period
  const shape = await seriesShapeOf(ctx, plan, node, range)
  const keys = range.buckets.map((b) => dayKey(b, plan.interval))

  // The point's interval: the events the number counts.
  if (!plan.totalValue) {
    if (point.day === undefined || point.day === null) throw problems.validation(`${ATTR}__day`, 'Say which day of the trend: day.')
    const i = bucketIndexOf(point.day, keys, plan.interval)
    if (i < 0) throw problems.validation(`${ATTR}__day`, `${point.day} is not a day of the trend.`)
    const end = earlier(range.buckets[i]!.plus({ [`${plan.interval}s`]: 1 }), shape.toExclusive)
    if (shape.bucketEnds !== undefined) {
      shape.bucketEnds = [shape.bucketEnds[i]!]
      shape.from = shape.bucketEnds[0]!
      shape.toExclusive = shape.bucketEnds[0]!
    } else {
      if (!plan.cumulative && range.buckets[i]! > shape.from) shape.from = range.buckets[i]!
      shape.toExclusive = end
    }
  } else if (shape.bucketEnds !== undefined) {
    shape.from = shape.toExclusive
  }

  const conditions: string[] = []
  const { source, breakdown } = seriesSource(shape, params, true, true)
  if (plan.parts) {
    if (point.breakdown === undefined || point.breakdown === null) {
      throw problems.validation(`${ATTR}__breakdown`, 'The trend is broken down: say which value, breakdown.')
    }
    const value = Array.isArray(point.breakdown) ? point.breakdown.map(String).join(BREAKDOWN_PART_SEPARATOR) : String(point.breakdown)
    if (value === plan.otherValue) {
      // Other: every value the chart does not show on its own.
      const whole = await seriesShapeOf(ctx, plan, node, range)
      const { series } = await seriesValuesOf(ctx, plan, whole, range)
      const shown = shownBreakdown(plan, series)
        .series.map((s) => s.value)
        .filter((v) => v !== plan.otherValue)
      conditions.push(`breakdown_value NOT IN ${params.add('Array(String)', shown)}`)
    } else conditions.push(`breakdown_value = ${params.add('String', value)}`)
  } else if (point.breakdown !== undefined && point.breakdown !== null && point.breakdown !== '') {
    throw problems.validation(`${ATTR}__breakdown`, 'The trend is not broken down.')
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''

  if (shape.math === 'first_time_for_user' || shape.math === 'first_matching_event_for_user') {
    // Those whose first event of the series (or first matching one) is in the point's interval, as the series counts them.
    const firstOf = shape.math === 'first_matching_event_for_user' ? 'minIf(e.timestamp, e.matches_filters)' : 'min(e.timestamp)'
    return `SELECT actor_id, event_count, event_distinct_ids FROM (
        SELECT ${ACTOR_SQL} AS actor_id, ${firstOf} AS first, minIf(e.timestamp, e.matches) AS first_matching,
          argMin(${breakdown}, e.timestamp) AS breakdown_value, countIf(e.matches) AS event_count,
          groupUniqArrayIf(${EVENT_DISTINCT_IDS})(e.distinct_id, e.matches) AS event_distinct_ids
        FROM ${source} GROUP BY actor_id
        HAVING first = first_matching AND first != fromUnixTimestamp64Micro(0)
      ) ${where}`
  }
  return `SELECT actor_id, count() AS event_count, groupUniqArray(${EVENT_DISTINCT_IDS})(distinct_id) AS event_distinct_ids FROM (
      SELECT ${ACTOR_SQL} AS actor_id, e.distinct_id AS distinct_id, ${breakdown} AS breakdown_value FROM ${source}
    ) ${where} GROUP BY actor_id`
}

function earlier(a: DateTime, b: DateTime): DateTime {
  return a < b ? a : b
}
