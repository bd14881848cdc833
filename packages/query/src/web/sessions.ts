import { currentDistinctIdsSql, eventPropertiesSql, type SqlParams } from '@burrow/clickhouse'
import type { DateRange } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { isoInZone, previousPeriod, resolveRange, utcText, type ResolvedRange } from '../dates'
import { breakdownValueSql, NIL_UUID_SQL, type PropertyColumns } from '../events'
import { queryFiltersOf, rangeOptionsOf } from '../series'
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
  const current = await resolveRange(query.dateRange, 'day', rangeOptionsOf(ctx, [null]))
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

/** The events of the team within a day of the periods (where a session's other events are looked for), as conditions on `e`. */
function windowSql(params: SqlParams, periods: WebPeriods): string {
  const span = periodsSpan(periods)
  const from = params.add('String', utcText(span.from.minus(SESSION_REACH)))
  const to = params.add('String', utcText(span.toExclusive.plus(SESSION_REACH)))
  return `e.team_id = ${TEAM} AND e.timestamp >= toDateTime64(${from}, 6, 'UTC') AND e.timestamp < toDateTime64(${to}, 6, 'UTC')`
}

/**
 * Whether an event of `e` is one the query counts: a view in one of the periods that matches
 * the query's filters (and with `filterTestAccounts` the project's test account filters).
 */
export async function countedViewSql(
  ctx: QueryContext,
  query: { properties?: unknown; filterTestAccounts?: unknown },
  periods: WebPeriods,
  params: SqlParams,
  columns: PropertyColumns,
): Promise<string> {
  const filters = await queryFiltersOf(ctx, query)
  const inPeriods = `(${inPeriodSql(params, 'e.timestamp', periods.current)} OR ${inPeriodSql(params, 'e.timestamp', periods.previous)})`
  const conditions = [`e.event IN ${VIEW_EVENTS_SQL}`, inPeriods]
  if (filters) conditions.push(eventPropertiesSql(filters, TEAM, params, columns))
  return `(${conditions.join(' AND ')})`
}

/** PostHog's bounce: NULL without a pageview, else true unless more than one pageview, an autocapture, or BOUNCE_DURATION_SECONDS. */
function isBounceSql(pageviews: string, autocaptures: string, duration: string): string {
  return `if(${pageviews} = 0, NULL, NOT (${pageviews} > 1 OR ${autocaptures} > 0 OR ${duration} >= ${BOUNCE_DURATION_SECONDS}))`
}

/**
 * The columns of a session row the runners read: its id, `start` (its first event, NULL for the
 * events of no session), `duration` in seconds to its last, `is_bounce`, `views` (the events
 * counted) and `person`, the current person of the counted events (of any of them).
 */
const SESSION_ROW_COLUMNS = `session_id, start, duration, is_bounce, views,
  if(pdi.person_id = ${NIL_UUID_SQL}, r.session_stored_person, pdi.person_id) AS person`

/**
 * One row per session with counted events (`counted`, a condition on `e`), its facts read
 * from all of its events in one pass over them; with `entry` (an aggregate over the session's
 * events) its value as `breakdown_value`. With `withoutSession`, the events of no session are
 * a row too, with no start, bounce or entry value, as PostHog's sessionless group.
 */
export function sessionRowsSql(
  params: SqlParams,
  columns: PropertyColumns,
  periods: WebPeriods,
  counted: string,
  options: { entry?: string; withoutSession?: boolean } = {},
): string {
  const sessionId = sessionIdSql(params, columns)
  const entry = options.entry === undefined ? '' : `, if(session_id = '', NULL, ${options.entry}) AS breakdown_value`
  return `SELECT ${SESSION_ROW_COLUMNS}${options.entry === undefined ? '' : ', breakdown_value'} FROM (
      SELECT ${sessionId} AS session_id,
        if(session_id = '', NULL, min(e.timestamp)) AS start,
        dateDiff('second', min(e.timestamp), max(e.timestamp)) AS duration,
        if(session_id = '', NULL, ${isBounceSql("countIf(e.event = '$pageview')", "countIf(e.event = '$autocapture')", 'duration')}) AS is_bounce,
        countIf(${counted}) AS views,
        anyIf(e.distinct_id, ${counted}) AS session_distinct_id,
        anyIf(e.person_id, ${counted}) AS session_stored_person
        ${entry}
      FROM events AS e
      WHERE ${windowSql(params, periods)}${options.withoutSession ? '' : ` AND ${sessionId} != ''`}
      GROUP BY session_id
      HAVING views > 0
    ) AS r
    LEFT JOIN (${currentDistinctIdsSql(TEAM)}) AS pdi ON pdi.distinct_id = r.session_distinct_id`
}

/**
 * One row per session and value of `value` (an expression over an event of `e`) with counted
 * events, and the session's facts from all of its events: one pass groups the events by session
 * and value, and the session's facts are gathered over its groups. The events of no session are
 * one group, with no start or bounce.
 */
export function sessionValueRowsSql(
  params: SqlParams,
  columns: PropertyColumns,
  periods: WebPeriods,
  counted: string,
  value: string,
): string {
  const sessionId = sessionIdSql(params, columns)
  return `SELECT ${SESSION_ROW_COLUMNS}, breakdown_value FROM (
      SELECT session_id, breakdown_value, views, session_distinct_id, session_stored_person,
        if(session_id = '', NULL, min(group_start) OVER session) AS start,
        dateDiff('second', min(group_start) OVER session, max(group_end) OVER session) AS duration,
        if(session_id = '', NULL, ${isBounceSql('sum(group_pageviews) OVER session', 'sum(group_autocaptures) OVER session', 'duration')}) AS is_bounce
      FROM (
        SELECT ${sessionId} AS session_id, ${value} AS breakdown_value,
          min(e.timestamp) AS group_start, max(e.timestamp) AS group_end,
          countIf(e.event = '$pageview') AS group_pageviews, countIf(e.event = '$autocapture') AS group_autocaptures,
          countIf(${counted}) AS views,
          anyIf(e.distinct_id, ${counted}) AS session_distinct_id,
          anyIf(e.person_id, ${counted}) AS session_stored_person
        FROM events AS e
        WHERE ${windowSql(params, periods)}
        GROUP BY session_id, breakdown_value
      )
      WINDOW session AS (PARTITION BY session_id)
    ) AS r
    LEFT JOIN (${currentDistinctIdsSql(TEAM)}) AS pdi ON pdi.distinct_id = r.session_distinct_id
    WHERE r.views > 0`
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
