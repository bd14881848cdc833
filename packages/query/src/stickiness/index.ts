import { materializedColumns, SqlParams } from '@burrow/clickhouse'
import type { StickinessQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import { bucketStartSql, isoInZone, previousPeriod, resolveRange, utcText, type ResolvedRange } from '../dates'
import { ACTOR_SQL, eventsSql, personJoinSql, type EventSelection } from '../events'
import type { RunnerOutput } from '../runnerOutput'
import { entityOf, queryFiltersOf, rangeOptionsOf, selectionOf } from '../series'
import { num, select } from '../sql'

type Period = { range: ResolvedRange; compareLabel?: 'current' | 'previous' }

/** PostHog's count operators of a stickiness criterion. */
const OPERATORS = { gte: '>=', lte: '<=', exact: '=' } as const

/** The range of a stickiness query, and with a compare filter the previous one after it. */
export async function stickinessPeriodsOf(ctx: QueryContext, query: StickinessQuery): Promise<Period[]> {
  const interval = query.interval ?? 'day'
  const current = await resolveRange(
    query.dateRange,
    interval,
    rangeOptionsOf(
      ctx,
      query.series.map((s) => s.event ?? null),
    ),
  )
  const periods: Period[] = [{ range: current }]
  if (query.compareFilter?.compare) {
    periods[0]!.compareLabel = 'current'
    periods.push({ range: previousPeriod(current, query.compareFilter.compare_to ?? undefined), compareLabel: 'previous' })
  }
  return periods
}

/**
 * Each actor of a series (a person, or a group with `unique_group`) with the number of the range's
 * intervals (or periods of `intervalCount` intervals) it was active in, as rows of (actor, num_intervals).
 */
export function stickyActorsSql(
  ctx: QueryContext,
  query: StickinessQuery,
  node: StickinessQuery['series'][number],
  selection: EventSelection,
  range: ResolvedRange,
  params: SqlParams,
): string {
  const interval = query.interval ?? 'day'
  const intervalCount = query.intervalCount ?? 1
  const zone = params.add('String', ctx.timezone)
  const group = node.math === 'unique_group' ? (node.math_group_type_index ?? null) : null
  const groupColumn = group === null ? '' : `, \`$group_${group}\` AS group_key`
  const events = eventsSql(params, selection, range.from, range.to.plus({ milliseconds: 1 }), materializedColumns(ctx.ch), groupColumn)
  const actor = group === null ? ACTOR_SQL : 'e.group_key'
  const source = group === null ? `(${events}) AS e ${personJoinSql()}` : `(${events}) AS e WHERE e.group_key != ''`
  const period =
    query.intervalCount === undefined || query.intervalCount === null
      ? bucketStartSql(interval, 'e.timestamp', zone, ctx.weekStartDay)
      : `intDiv(age('${interval}', toTimeZone(e.timestamp, ${zone}), toTimeZone(toDateTime64(${params.add('String', utcText(range.to))}, 6, 'UTC'), ${zone})), ${intervalCount})`
  const criteria = query.stickinessFilter?.stickinessCriteria
  const having = criteria ? `count() ${OPERATORS[criteria.operator]} ${params.add('UInt64', criteria.value)}` : 'count() > 0'
  return `SELECT actor, count() AS num_intervals FROM (
      SELECT ${actor} AS actor, ${period} AS period FROM ${source}
      GROUP BY actor, period HAVING ${having}
    ) GROUP BY actor`
}

/**
 * PostHog's StickinessQuery: for each series, how many persons (or groups, with `unique_group`)
 * did its event in exactly 1, 2, … N of the range's intervals (with `cumulative`, in that many or
 * more). With `intervalCount`, periods of that many intervals are counted back from the end of
 * the range, as PostHog counts them (ClickHouse's `age`).
 */
export async function runStickiness(ctx: QueryContext, query: StickinessQuery): Promise<RunnerOutput> {
  const interval = query.interval ?? 'day'
  const periods = await stickinessPeriodsOf(ctx, query)
  const current = periods[0]!.range
  const filters = await queryFiltersOf(ctx, query)
  const cumulative = query.stickinessFilter?.computedAs === 'cumulative'
  const intervalCount = query.intervalCount ?? 1
  const results: Array<Record<string, unknown>> = []
  // PostHog answers each series with its previous period right after it.
  for (const [order, node] of query.series.entries()) {
    const selection = await selectionOf(ctx, node, filters, 'series', `series__${order}`)
    for (const { range, compareLabel } of periods) {
      const length = Math.ceil(range.buckets.length / intervalCount)
      const perInterval = new Array<number>(length).fill(0)
      const params = new SqlParams()
      const sql = `SELECT num_intervals, count() AS actors FROM (${stickyActorsSql(ctx, query, node, selection, range, params)}) GROUP BY num_intervals`
      const rows = await select<{ num_intervals: number | string; actors: number | string }>(ctx, sql, params.values)
      for (const row of rows) {
        const i = num(row.num_intervals) - 1
        if (i >= 0 && i < length) perInterval[i] = num(row.actors)
      }
      results.push(stickinessRow({ node, entity: entityOf(selection), order, interval, perInterval, cumulative, compareLabel }))
    }
  }
  return { results, resolvedDateRange: { date_from: isoInZone(current.from), date_to: isoInZone(current.to) } }
}

/** One series' row, with PostHog's fields. */
function stickinessRow(input: {
  node: StickinessQuery['series'][number]
  entity: ReturnType<typeof entityOf>
  order: number
  interval: string
  perInterval: number[]
  cumulative: boolean
  compareLabel: 'current' | 'previous' | undefined
}): Record<string, unknown> {
  const { node, interval, perInterval, cumulative } = input
  const { entity } = input
  const name = entity.name ?? 'All events'
  const days = perInterval.map((_, i) => i + 1)
  // Cumulative: the persons active in that many intervals or more; the count stays that of the persons.
  const data = cumulative ? perInterval.map((_, i) => perInterval.slice(i).reduce((a, b) => a + b, 0)) : perInterval
  const row: Record<string, unknown> = {
    count: perInterval.reduce((a, b) => a + b, 0),
    data,
    days,
    label: name,
    labels: days.map((d) => `${d} ${interval}${d === 1 ? '' : 's'}${cumulative ? ' or more' : ''}`),
    action: { order: input.order, type: entity.type, name, id: entity.id, custom_name: node.custom_name ?? null },
  }
  if (input.compareLabel) {
    row.compare = true
    row.compare_label = input.compareLabel
  }
  return row
}
