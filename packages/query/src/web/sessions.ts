import type { SqlParams } from '@burrow/clickhouse'
import type { DateRange } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { isoInZone, previousPeriod, resolveRange, utcText, type ResolvedRange } from '../dates'
import { breakdownValueSql, type PropertyColumns } from '../events'
import { earliestOf } from '../series'
import { TEAM } from '../sql'

/**
 * Sessions as PostHog's web analytics count them, derived from the events that share a
 * `$session_id` (there is no sessions table here): a session starts at its first event of any
 * kind and lasts until its last; its pageviews are its `$pageview` events.
 */

/** The events PostHog's web analytics count as views: pageviews on the web, screens in apps. */
export const VIEW_EVENTS_SQL = `('$pageview', '$screen')`

/** PostHog's default bounce duration: a session of one pageview lasting this long is no bounce. */
export const BOUNCE_DURATION_SECONDS = 10

/**
 * How far either side of the queried periods a session's other events are read: PostHog's
 * sessions last at most a day (its SDK starts a new one after 24 hours), so a session that
 * started before a period shows an event within a day before it.
 */
const SESSION_REACH = { hours: 24 }

/** The periods of a web analytics query: the current one and, when compared, the previous one. */
export interface WebPeriods {
  current: ResolvedRange
  previous?: ResolvedRange
}

/**
 * The query's date range as PostHog's web analytics resolve it (whole days, `-7d` by default)
 * and, with `compareFilter.compare`, the period before it (or the one `compare_to` back).
 */
export async function webPeriodsOf(
  ctx: QueryContext,
  query: { dateRange?: DateRange | null; compareFilter?: { compare?: boolean | null; compare_to?: string | null } | null },
): Promise<WebPeriods> {
  const current = await resolveRange(query.dateRange, 'day', {
    zone: ctx.timezone,
    now: ctx.now,
    weekStartDay: ctx.weekStartDay,
    earliest: earliestOf(ctx, [null]),
  })
  const compare = query.compareFilter
  if (!compare?.compare) return { current }
  return { current, previous: previousPeriod(current, compare.compare_to ?? undefined) }
}

/** Whether the time `at` lies in the period, both ends included as PostHog's are. */
export function inPeriodSql(params: SqlParams, at: string, period: ResolvedRange | undefined): string {
  if (!period) return '0'
  const from = params.add('String', utcText(period.from))
  const to = params.add('String', utcText(period.to))
  return `(${at} >= toDateTime64(${from}, 6, 'UTC') AND ${at} <= toDateTime64(${to}, 6, 'UTC'))`
}

/** The first moment of the periods and the moment after the last. */
export function periodsSpan(periods: WebPeriods): { from: DateTime; toExclusive: DateTime } {
  const from = periods.previous && periods.previous.from < periods.current.from ? periods.previous.from : periods.current.from
  const to = periods.previous && periods.previous.to > periods.current.to ? periods.previous.to : periods.current.to
  return { from, toExclusive: to.plus({ milliseconds: 1 }) }
}

/** An event's session id ('' without one) in the events subquery or table aliased `e`. */
export function sessionIdSql(params: SqlParams, columns: PropertyColumns): string {
  const own = columns.get('$session_id')
  return breakdownValueSql('e.properties', '$session_id', params, '', own === undefined ? undefined : `e.\`${own}\``)
}

/**
 * A property of a session's first event ('' and missing alike are NULL), as PostHog's `$entry_…`
 * session properties; read from the property's own column where it has one.
 */
export function entryPropertySql(params: SqlParams, columns: PropertyColumns, key: string): string {
  const own = columns.get(key)
  const value = own === undefined ? `JSONExtractString(e.properties, ${params.add('String', key)})` : `ifNull(e.\`${own}\`, '')`
  return `nullIf(argMin(${value}, e.timestamp), '')`
}

/**
 * One row per session that has an event within a day of the periods: its id, `start` (its
 * first event), `duration` in seconds to its last event, and `is_bounce` as PostHog's sessions
 * define it: NULL without a pageview, else true unless it has more than one pageview, an
 * autocapture, or lasted BOUNCE_DURATION_SECONDS. `extra` adds columns (aggregates over `e`).
 */
export function sessionFactsSql(params: SqlParams, columns: PropertyColumns, periods: WebPeriods, extra = ''): string {
  const span = periodsSpan(periods)
  const from = params.add('String', utcText(span.from.minus(SESSION_REACH)))
  const to = params.add('String', utcText(span.toExclusive.plus(SESSION_REACH)))
  const sessionId = sessionIdSql(params, columns)
  return `SELECT ${sessionId} AS session_id,
      min(e.timestamp) AS start,
      dateDiff('second', start, max(e.timestamp)) AS duration,
      countIf(e.event = '$pageview') AS pageviews,
      if(pageviews = 0, NULL, NOT (pageviews > 1 OR countIf(e.event = '$autocapture') > 0 OR duration >= ${BOUNCE_DURATION_SECONDS})) AS is_bounce
      ${extra}
    FROM events AS e
    WHERE e.team_id = ${TEAM}
      AND e.timestamp >= toDateTime64(${from}, 6, 'UTC') AND e.timestamp < toDateTime64(${to}, 6, 'UTC')
      AND ${sessionId} != ''
    GROUP BY session_id`
}

/** PostHog's `dateFrom`/`dateTo` and resolved_date_range of a web analytics answer. */
export function periodDates(periods: WebPeriods) {
  const from = isoInZone(periods.current.from)
  const to = isoInZone(periods.current.to)
  return { extra: { dateFrom: from, dateTo: to }, resolvedDateRange: { date_from: from, date_to: to } }
}

/** A number ClickHouse answered, null for none or not a number (an average of nothing). */
export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null
  const n = Number(value)
  return Number.isFinite(n) ? n : null
}
