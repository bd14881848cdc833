import { eventPropertiesSql, SqlParams } from '@burrow/clickhouse'
import { problems, type Interval, type RetentionEntity, type RetentionQuery } from '@burrow/contracts'
import { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { bucketKeySql, bucketStartSql, dayKey, isoInZone, parseDate } from '../dates'
import { ACTOR, eventsWithActorSql } from '../eventActors'
import type { RunnerOutput } from '../runnerOutput'
import { num, select, TEAM } from '../sql'

const INTERVAL_OF = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' } as const satisfies Record<string, Interval>
export const DEFAULT_TOTAL_INTERVALS = 7

function startOf(at: DateTime, interval: Interval, weekStartDay: 0 | 1): DateTime {
  if (interval !== 'week') return at.startOf(interval)
  const back = weekStartDay === 1 ? at.weekday - 1 : at.weekday % 7
  return at.startOf('day').minus({ days: back })
}

/** The event an entity names: its `id` (PostHog's entity id is the event name), null for all events. */
function eventOf(entity: RetentionEntity | null | undefined): string | null {
  if (!entity || entity.id === undefined || entity.id === null) return '$pageview'
  return String(entity.id)
}

/** The days within which periods are compared as dates (ClickHouse's Date holds 1970 to 2149). */
const DATES = { first: '1971-01-01', last: '2148-12-31' }

/**
 * An expression of the period (1-based, 0 for none) an event's `timestamp` falls in. Days, weeks
 * and months start on a date: the event's start date is compared with the starts' dates, which
 * costs far less than writing it as text for every event. Hours, and dates out of the range of
 * ClickHouse's Date, are compared as the text bucketKeySql writes.
 */
function periodSql(options: {
  interval: Interval
  starts: DateTime[]
  rangeEnd: DateTime
  zone: string
  weekStartDay: 0 | 1
  params: SqlParams
}): (timestamp: string) => string {
  const { interval, starts, rangeEnd, zone, weekStartDay, params } = options
  const inDateRange = dayKey(starts[0]!, 'day') >= DATES.first && dayKey(rangeEnd, 'day') <= DATES.last
  if (interval === 'hour' || !inDateRange) {
    const keys = params.add(
      'Array(String)',
      starts.map((s) => dayKey(s, interval)),
    )
    return (timestamp) => `indexOf(${keys}, ${bucketKeySql(interval, timestamp, zone, weekStartDay)})`
  }
  const dates = params.add(
    'Array(Date)',
    starts.map((s) => dayKey(s, interval)),
  )
  const start = (timestamp: string) =>
    interval === 'day' ? `toDate(toTimeZone(${timestamp}, ${zone}))` : bucketStartSql(interval, timestamp, zone, weekStartDay)
  return (timestamp) => `indexOf(${dates}, ${start(timestamp)})`
}

/**
 * PostHog's RetentionQuery: a cohort per period of the persons who did the target event in it
 * (recurring) or did it for the first time ever in it (first time), and for each later period
 * how many of them did the returning event. Values start with the cohort itself.
 */
export async function runRetention(ctx: QueryContext, query: RetentionQuery): Promise<RunnerOutput> {
  const filter = query.retentionFilter
  const periodName = filter.period ?? 'Day'
  const interval = INTERVAL_OF[periodName]
  const total = filter.totalIntervals ?? DEFAULT_TOTAL_INTERVALS
  const zone = ctx.timezone
  const now: DateTime = DateTime.fromJSDate(ctx.now).setZone(zone)
  let end: DateTime = now
  if (query.dateRange?.date_to) {
    const parsed = parseDate(query.dateRange.date_to, zone, now)
    if (!parsed) throw problems.validation('date_to', `${JSON.stringify(query.dateRange.date_to)} is not a date.`)
    end = parsed.at
  }
  // The last cohort is the period holding date_to; the first is totalIntervals - 1 periods before it.
  const lastStart = startOf(end, interval, ctx.weekStartDay)
  const starts = Array.from({ length: total }, (_, i) => lastStart.minus({ [`${interval}s`]: total - 1 - i }))
  const rangeEnd = lastStart.plus({ [`${interval}s`]: 1 })

  const filters = await ctx.properties(query.properties, 'properties')
  const params = new SqlParams()
  const zoneParam = params.add('String', zone)
  const condition = async (entity: RetentionEntity | null | undefined, attr: string) => {
    const event = eventOf(entity)
    const parts = [event === null ? '1' : `event = ${params.add('String', event)}`]
    const own = await ctx.properties(entity?.properties, attr)
    if (own) parts.push(eventPropertiesSql(own, TEAM, params))
    return parts.join(' AND ')
  }
  const target = await condition(filter.targetEntity, 'targetEntity')
  const returning = await condition(filter.returningEntity ?? filter.targetEntity, 'returningEntity')
  const firstTime = filter.retentionType === 'retention_first_time'
  const from = params.add('String', starts[0]!.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS'))
  const to = params.add('String', rangeEnd.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS'))
  const inRange = `e.timestamp >= toDateTime64(${from}, 6, 'UTC')`
  const where = [
    `team_id = ${TEAM}`,
    `timestamp < toDateTime64(${to}, 6, 'UTC')`,
    // A first-time cohort needs every earlier target event, to know whether one in range is the first.
    firstTime ? `(is_target OR timestamp >= toDateTime64(${from}, 6, 'UTC'))` : `timestamp >= toDateTime64(${from}, 6, 'UTC')`,
    '(is_target OR is_returning)',
  ]
  if (filters) where.push(eventPropertiesSql(filters, TEAM, params))
  const period = periodSql({ interval, starts, rangeEnd, zone: zoneParam, weekStartDay: ctx.weekStartDay, params })
  // The periods a person did an event in, as the bits of one integer (bit p for period p).
  const bits = total < 64 ? 'UInt64' : 'UInt128'
  const bitOf = (p: string) => `bitShiftLeft(to${bits}(1), ${p})`
  const periodsIn = (mask: string) => `arrayFilter(p -> bitAnd(${mask}, ${bitOf('p')}) != 0, range(1, ${total + 1}))`
  const cohorts = firstTime
    ? `arrayFilter(p -> p > 0, [${period('minIf(e.timestamp, e.is_target)')}])`
    : periodsIn(`groupBitOrIf(${bitOf(period('e.timestamp'))}, e.is_target AND ${inRange})`)
  const sql = `SELECT cohort, offset, count() AS persons FROM (
      SELECT arrayJoin(cohorts) AS cohort,
        arrayJoin(arrayConcat([0], arrayMap(r -> r - cohort, arrayFilter(r -> r > cohort, returns)))) AS offset
      FROM (
        SELECT ${ACTOR} AS actor,
          ${cohorts} AS cohorts,
          ${periodsIn(`groupBitOrIf(${bitOf(period('e.timestamp'))}, e.is_returning AND ${inRange})`)} AS returns
        FROM (${eventsWithActorSql(`timestamp, (${target}) AS is_target, (${returning}) AS is_returning`, where.join(' AND '))}) AS e
        GROUP BY actor
      )
    )
    WHERE cohort > 0
    GROUP BY cohort, offset`
  const rows = await select<{ cohort: number | string; offset: number | string; persons: number | string }>(ctx, sql, params.values)
  const counts = new Map(rows.map((r) => [`${num(r.cohort)}:${num(r.offset)}`, num(r.persons)]))
  const results = starts.map((start, i) => ({
    label: `${periodName} ${i}`,
    date: isoInZone(start),
    values: Array.from({ length: total - i }, (_, j) => ({ count: counts.get(`${i + 1}:${j}`) ?? 0, label: `${periodName} ${j}` })),
  }))
  return { results, resolvedDateRange: { date_from: isoInZone(starts[0]!), date_to: isoInZone(rangeEnd) } }
}
