import { currentPersonsSql, materializedColumns, SqlParams } from '@burrow/clickhouse'
import { LIFECYCLE_STATUSES, type Interval, type LifecycleQuery } from '@burrow/contracts'
import type { DateTime } from 'luxon'
import type { QueryContext } from '../context'
import { bucketKeySql, dayKey, dayLabel, isoInZone, resolveRange, type ResolvedRange } from '../dates'
import { ACTOR_SQL, eventsSql, personJoinSql } from '../events'
import type { RunnerOutput } from '../runnerOutput'
import { entityOf, queryFiltersOf, rangeOptionsOf, selectionOf } from '../series'
import { num, select, TEAM } from '../sql'

/** A lifecycle's range and the intervals it answers, and each actor's status in each period as rows of (actor, period, status). */
export async function lifecycleOf(
  ctx: QueryContext,
  query: LifecycleQuery,
  params: SqlParams,
): Promise<{
  statusesSql: string
  range: ResolvedRange
  buckets: DateTime[]
  keys: string[]
  interval: Interval
  entity: ReturnType<typeof entityOf>
}> {
  const interval = query.interval ?? 'day'
  const node = query.series[0]!
  const range = await resolveRange(query.dateRange, interval, rangeOptionsOf(ctx, [node.event ?? null]))
  // With explicitDate, PostHog answers only the intervals that start within the exact range.
  const buckets = query.dateRange?.explicitDate === true ? range.buckets.filter((b) => b >= range.from) : range.buckets
  const filters = await queryFiltersOf(ctx, query)
  const selection = await selectionOf(ctx, node, filters, 'series', 'series__0')
  const step = { [`${interval}s`]: 1 }
  const first = range.buckets[0]!
  const last = range.buckets.at(-1)!
  // Periods are numbered from 1: the interval before the range (to tell returning from resurrecting), then the range's.
  const periods = [first.minus(step), ...range.buckets]
  const keys = periods.map((p) => dayKey(p, interval))

  const zone = params.add('String', ctx.timezone)
  const keysParam = params.add('Array(String)', keys)
  const group = query.aggregation_group_type_index ?? null
  const groupColumn = group === null ? '' : `, \`$group_${group}\` AS group_key`
  const events = eventsSql(params, selection, periods[0]!, last.plus(step), materializedColumns(ctx.ch), groupColumn)
  const period = (timestamp: string) => `indexOf(${keysParam}, ${bucketKeySql(interval, timestamp, zone, ctx.weekStartDay)})`
  // The actor and when it was created: the person of the event, or the group of the type it names.
  const actorSource =
    group === null
      ? `SELECT ${ACTOR_SQL} AS actor, e.timestamp AS timestamp, pp.created_at AS created_at, e.properties AS properties
        FROM (${events}) AS e ${personJoinSql()}
        LEFT JOIN (SELECT id, created_at FROM (${currentPersonsSql(TEAM)})) AS pp ON pp.id = ${ACTOR_SQL}`
      : `SELECT e.group_key AS actor, e.timestamp AS timestamp, g.created_at AS created_at, e.properties AS properties
        FROM (${events}) AS e
        LEFT JOIN (
          SELECT group_key, argMax(created_at, version) AS created_at FROM groups
          WHERE team_id = ${TEAM} AND group_type_index = ${params.add('UInt8', group)} GROUP BY group_key
        ) AS g ON g.group_key = e.group_key
        WHERE e.group_key != ''`
  const statusesSql = `SELECT actor, pair.1 AS period, pair.2 AS status FROM (
      SELECT actor, arraySort(groupUniqArray(period)) AS active,
        arrayPopBack(arrayPushFront(active, any(created_period))) AS previous,
        arrayPopFront(arrayPushBack(active, 0)) AS following,
        arrayMap((before_p, this_p, i) -> if(before_p = this_p, 'new', if(this_p - 1 = before_p AND i != 1, 'returning', 'resurrecting')),
          previous, active, arrayEnumerate(active)) AS statuses,
        arrayFilter(d -> d > 0, arrayMap((this_p, after_p) -> if(this_p + 1 = after_p, 0, this_p + 1), active, following)) AS dormant,
        arrayJoin(arrayConcat(arrayZip(active, statuses), arrayMap(d -> (d, 'dormant'), dormant))) AS pair
      FROM (
        SELECT a.actor AS actor, ${period('a.timestamp')} AS period, ${period('a.created_at')} AS created_period
        FROM (${actorSource}) AS a
        WHERE JSONExtractRaw(a.properties, '$process_person_profile') != 'false'
      )
      GROUP BY actor
    )`
  return { statusesSql, range, buckets, keys, interval, entity: entityOf(selection) }
}

/**
 * PostHog's LifecycleQuery: for each interval, the persons (or with `aggregation_group_type_index`
 * the groups of that type) active in it as new (active in the interval they were created in),
 * returning (active in the interval before too) or resurrecting (active after a gap, or first seen
 * after their creation's interval), and as dormant (negative) those active in the interval before
 * but not in this one.
 */
export async function runLifecycle(ctx: QueryContext, query: LifecycleQuery): Promise<RunnerOutput> {
  const params = new SqlParams()
  const { statusesSql, range, buckets, interval, entity } = await lifecycleOf(ctx, query, params)
  const node = query.series[0]!
  const sql = `SELECT period, status, count() AS actors FROM (${statusesSql}) WHERE period >= 2 GROUP BY period, status`
  const rows = await select<{ period: number | string; status: string; actors: number | string }>(ctx, sql, params.values)

  const skipped = range.buckets.length - buckets.length
  const data = new Map(LIFECYCLE_STATUSES.map((s) => [s, new Array<number>(buckets.length).fill(0)]))
  for (const row of rows) {
    const i = num(row.period) - 2 - skipped
    const series = data.get(row.status as (typeof LIFECYCLE_STATUSES)[number])
    if (!series || i < 0 || i >= buckets.length) continue
    series[i] = row.status === 'dormant' ? -num(row.actors) : num(row.actors)
  }
  const name = entity.name ?? 'All events'
  const days = buckets.map((b) => dayKey(b, interval))
  const labels = buckets.map((b) => dayLabel(b, interval, range, ctx.weekStartDay))
  // Every status is answered; toggledLifecycles only says which ones a chart shows.
  const results = LIFECYCLE_STATUSES.map((status) => {
    const values = data.get(status)!
    return {
      action: {
        id: entity.id,
        name,
        type: entity.type,
        order: 0,
        math: 'total',
        ...(node.custom_name !== undefined && node.custom_name !== null ? { custom_name: node.custom_name } : {}),
      },
      data: values,
      count: values.reduce((a, b) => a + b, 0),
      labels,
      days,
      label: `${name} - ${status}`,
      status,
    }
  })
  return { results, resolvedDateRange: { date_from: isoInZone(range.from), date_to: isoInZone(range.to) } }
}
