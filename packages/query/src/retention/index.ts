import { eventPropertiesSql, SqlParams } from '@burrow/clickhouse'
import { problems, type Interval, type RetentionEntity, type RetentionQuery } from '@burrow/contracts'
import { DateTime } from 'luxon'
import { actionConditionSql, actionSelectionOf } from '../actions'
import type { QueryContext } from '../context'
import { bucketKeySql, bucketStartSql, dayKey, isoInZone, parseDate } from '../dates'
import { ACTOR, eventsWithActorSql } from '../eventActors'
import type { RunnerOutput } from '../runnerOutput'
import { queryFiltersOf } from '../series'
import { num, select, TEAM } from '../sql'

const INTERVAL_OF = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' } as const satisfies Record<string, Interval>
export const DEFAULT_TOTAL_INTERVALS = 7

function startOf(at: DateTime, interval: Interval, weekStartDay: 0 | 1): DateTime {
  if (interval !== 'week') return at.startOf(interval)
  const back = weekStartDay === 1 ? at.weekday - 1 : at.weekday % 7
  return at.startOf('day').minus({ days: back })
}

/**
 * The event an entity names: its `id` (PostHog's entity id is the event name), every event when
 * it has none; an entity not given at all is `$pageview`, as PostHog's.
 */
function eventOf(entity: RetentionEntity | null | undefined): string | null {
  if (!entity) return '$pageview'
  return entity.id === undefined || entity.id === null ? null : String(entity.id)
}

/** The most cohorts (periods from date_from to date_to) one retention answers. */
const MAX_COHORTS = 1000

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
 * A retention's cohorts (`starts`) and its statement of each person's cells: rows of (actor,
 * cohort (1-based, 0 for none), offset) for every period from the cohort's the person counts in.
 */
export async function retentionOf(ctx: QueryContext, query: RetentionQuery, params: SqlParams) {
  const filter = query.retentionFilter
  const periodName = filter.period ?? 'Day'
  const interval = INTERVAL_OF[periodName]
  const total = filter.totalIntervals ?? DEFAULT_TOTAL_INTERVALS
  const zone = ctx.timezone
  const now: DateTime = DateTime.fromJSDate(ctx.now).setZone(zone)
  const dateOf = (text: string, attr: 'date_from' | 'date_to'): DateTime => {
    const parsed = parseDate(text, zone, now)
    if (!parsed) throw problems.validation(attr, `${JSON.stringify(text)} is not a date.`)
    return parsed.at
  }
  const end = query.dateRange?.date_to ? dateOf(query.dateRange.date_to, 'date_to') : now
  // The last cohort is the period holding date_to; the first is date_from's, or totalIntervals - 1 periods before the last.
  const lastStart = startOf(end, interval, ctx.weekStartDay)
  const step = (n: number) => ({ [`${interval}s`]: n })
  const firstStart = query.dateRange?.date_from
    ? startOf(dateOf(query.dateRange.date_from, 'date_from'), interval, ctx.weekStartDay)
    : lastStart.minus(step(total - 1))
  if (firstStart > lastStart) throw problems.validation('date_to', 'The end of the date range is before its start.')
  const starts: DateTime[] = []
  for (let at = firstStart; at <= lastStart; at = at.plus(step(1))) {
    starts.push(at)
    if (starts.length > MAX_COHORTS) {
      throw problems.validation(
        'dateRange',
        `The date range has more than ${MAX_COHORTS} periods: choose a longer period or a shorter range.`,
      )
    }
  }
  const rangeEnd = lastStart.plus(step(1))
  const rows = starts.length

  const filters = await queryFiltersOf(ctx, query)
  const zoneParam = params.add('String', zone)
  const condition = async (entity: RetentionEntity | null | undefined, attr: string) => {
    const isAction = entity?.type === 'actions' || entity?.kind === 'ActionsNode'
    const event = isAction ? null : eventOf(entity)
    const parts = [event === null ? '1' : `event = ${params.add('String', event)}`]
    if (isAction) {
      const id = typeof entity.id === 'number' ? entity.id : Number.parseInt(String(entity.id ?? ''), 10)
      const action = await actionSelectionOf(ctx, Number.isSafeInteger(id) ? id : null, `retentionFilter__${attr}`)
      parts.push(actionConditionSql(action, params, new Map()))
    }
    const own = await ctx.properties(entity?.properties, attr)
    if (own) parts.push(eventPropertiesSql(own, TEAM, params))
    return parts.join(' AND ')
  }
  const target = await condition(filter.targetEntity, 'targetEntity')
  const returning = await condition(filter.returningEntity, 'returningEntity')
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
  const cohorts = firstTime
    ? `arrayFilter(p -> p > 0, [${period('minIf(e.timestamp, e.is_target)')}])`
    : periodsSql(rows, period('e.timestamp'), `e.is_target AND ${inRange}`)
  const minimum = filter.minimumOccurrences ?? 1
  // With a minimum, a period counts when the person did the returning event that many times in it.
  const returns =
    minimum > 1
      ? `arrayFilter(p -> p > 0 AND countEqual(returned, p) >= ${Math.floor(minimum)}, arrayDistinct(returned))`
      : periodsSql(rows, period('e.timestamp'), `e.is_returning AND ${inRange}`)
  const returnedColumn = minimum > 1 ? `groupArrayIf(${period('e.timestamp')}, e.is_returning AND ${inRange}) AS returned,` : ''
  // The periods after the cohort's it came back in, as offsets from it, within totalIntervals.
  const offsets = `arrayConcat([0], arrayMap(r -> r - cohort, arrayFilter(r -> r > cohort AND r - cohort < ${total}, returns)))`
  const counted = filter.cumulative ? `range(0, arrayMax(${offsets}) + 1)` : offsets
  const pairsSql = `SELECT actor, arrayJoin(cohorts) AS cohort, arrayJoin(${counted}) AS offset
      FROM (
        SELECT ${ACTOR} AS actor,
          ${cohorts} AS cohorts,
          ${returnedColumn}
          ${returns} AS returns
        FROM (${eventsWithActorSql(`timestamp, (${target}) AS is_target, (${returning}) AS is_returning`, where.join(' AND '))}) AS e
        GROUP BY actor
      )`
  return { pairsSql, starts, total, periodName, rangeEnd }
}

/**
 * PostHog's RetentionQuery: a cohort per period of the persons who did the target event in it
 * (recurring) or did it for the first time ever in it (first time), and for each of the
 * `totalIntervals` periods from it how many of them did the returning event (at least
 * `minimumOccurrences` times in that period); with `cumulative`, a person counts in every period
 * up to the last one it came back in. Values start with the cohort itself, and every row has
 * `totalIntervals` of them, zero past the last period of the range (PostHog's matrix).
 */
export async function runRetention(ctx: QueryContext, query: RetentionQuery): Promise<RunnerOutput> {
  const params = new SqlParams()
  const { pairsSql, starts, total, periodName, rangeEnd } = await retentionOf(ctx, query, params)
  const sql = `SELECT cohort, offset, count() AS persons FROM (${pairsSql}) WHERE cohort > 0 GROUP BY cohort, offset`
  const rowsOut = await select<{ cohort: number | string; offset: number | string; persons: number | string }>(ctx, sql, params.values)
  const counts = new Map(rowsOut.map((r) => [`${num(r.cohort)}:${num(r.offset)}`, num(r.persons)]))
  const results = starts.map((start, i) => ({
    label: `${periodName} ${i}`,
    date: isoInZone(start),
    values: Array.from({ length: total }, (_, j) => ({ count: counts.get(`${i + 1}:${j}`) ?? 0, label: `${periodName} ${j}` })),
    breakdown_value: null,
  }))
  return { results, resolvedDateRange: { date_from: isoInZone(starts[0]!), date_to: isoInZone(rangeEnd) } }
}

/**
 * The periods (1-based, sorted) of the actor's events that pass `condition`: as the bits of one
 * integer while the periods fit one (far cheaper to gather per actor), else as an array.
 */
function periodsSql(rows: number, period: string, condition: string): string {
  if (rows >= 128) return `arraySort(groupUniqArrayIf(${period}, ${condition} AND ${period} > 0))`
  const bits = rows < 64 ? 'UInt64' : 'UInt128'
  const bitOf = (p: string) => `bitShiftLeft(to${bits}(1), ${p})`
  return `arrayFilter(p -> bitAnd(groupBitOrIf(${bitOf(period)}, ${condition}), ${bitOf('p')}) != 0, range(1, ${rows + 1}))`
}
