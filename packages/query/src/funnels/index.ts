import { eventPropertiesSql, SqlParams } from '@burrow/clickhouse'
import { problems, type FunnelsQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import { isoInZone, resolveRange, utcText } from '../dates'
import { ACTOR_SQL, BREAKDOWN_OTHER, breakdownValueSql, personJoinSql, personPropertiesJoinSql } from '../events'
import { DEFAULT_BREAKDOWN_LIMIT } from '../trends/breakdownLimit'
import type { RunnerOutput } from '../runnerOutput'
import { earliestOf, selectionOf } from '../series'
import { num, select, TEAM } from '../sql'

const UNIT_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 7 * 86_400, month: 30 * 86_400 } as const

/** What this server does not compute yet, refused by name rather than answered wrongly. */
function refuseUnsupported(query: FunnelsQuery): void {
  const filter = query.funnelsFilter
  if (filter?.funnelOrderType && filter.funnelOrderType !== 'ordered') {
    throw problems.validation('funnelOrderType', `Funnels of order type "${filter.funnelOrderType}" are not supported yet; use "ordered".`)
  }
  if (filter?.funnelVizType && filter.funnelVizType !== 'steps') {
    throw problems.validation('funnelVizType', `Funnels shown as "${filter.funnelVizType}" are not supported yet; use "steps".`)
  }
  if (filter?.exclusions && filter.exclusions.length > 0)
    throw problems.validation('exclusions', 'Funnel exclusions are not supported yet.')
  const attribution = query.funnelsFilter?.breakdownAttributionType
  if (attribution && attribution !== 'first_touch') {
    throw problems.validation('breakdownAttributionType', `Breakdown attribution "${attribution}" is not supported yet; use "first_touch".`)
  }
}

/**
 * The times (epoch seconds) at which one person completes each step of an ordered funnel from a
 * first step at `t0`: each step is the earliest matching event at or after the step before and
 * within the window of the first; 0 once a step is not reached. The earliest next event is the
 * best choice for every step after it, so the chain reaches as far as any path from `t0` does.
 */
function chainSql(step: number, steps: number, sameAsPrevious: boolean[]): string {
  if (step === steps) return '[]'
  const prev = `t${step - 1}`
  const after = sameAsPrevious[step] ? `x > ${prev}` : `x >= ${prev}`
  const next = `arrayFirst(x -> ${prev} > 0 AND ${after} AND x <= t0 + {window:Float64}, s${step})`
  return `arrayMap(t${step} -> arrayConcat([t${step}], ${chainSql(step + 1, steps, sameAsPrevious)}), [${next}])[1]`
}

/** PostHog's FunnelsQuery in steps: how many persons reached each step in order, and how long each step took. */
export async function runFunnels(ctx: QueryContext, query: FunnelsQuery): Promise<RunnerOutput> {
  refuseUnsupported(query)
  const range = await resolveRange(query.dateRange, 'day', {
    zone: ctx.timezone,
    now: ctx.now,
    weekStartDay: ctx.weekStartDay,
    earliest: earliestOf(
      ctx,
      query.series.map((s) => s.event ?? null),
    ),
  })
  const filters = await ctx.properties(query.properties, 'properties')
  const steps = await Promise.all(query.series.map((node, i) => selectionOf(ctx, node, undefined, `series__${i}`)))
  const windowSeconds =
    (query.funnelsFilter?.funnelWindowInterval ?? 14) * UNIT_SECONDS[query.funnelsFilter?.funnelWindowIntervalUnit ?? 'day']

  const params = new SqlParams()
  const stepCondition = (i: number) => {
    const s = steps[i]!
    const parts = [s.event === null ? '1' : `event = ${params.add('String', s.event)}`]
    for (const p of s.properties) parts.push(eventPropertiesSql(p, TEAM, params))
    return parts.join(' AND ')
  }
  const flags = steps.map((_, i) => `(${stepCondition(i)}) AS step_${i}`).join(', ')
  const where = [
    `team_id = ${TEAM}`,
    `timestamp >= toDateTime64(${params.add('String', utcText(range.from))}, 6, 'UTC')`,
    `timestamp < toDateTime64(${params.add('String', utcText(range.to.plus({ milliseconds: 1 })))}, 6, 'UTC')`,
    `(${steps.map((_, i) => `step_${i}`).join(' OR ')})`,
  ]
  if (filters) where.push(eventPropertiesSql(filters, TEAM, params))
  const n = steps.length
  const stepArrays = steps
    .map((_, i) => `arraySort(groupArrayIf(toUnixTimestamp64Micro(e.timestamp) / 1e6, e.step_${i})) AS s${i}`)
    .join(',\n        ')
  const same = steps.map((s, i) => i > 0 && s.event === steps[i - 1]!.event && s.event !== null)
  const chains = `arrayMap(t0 -> arrayConcat([t0], ${chainSql(1, n, same)}), s0)`
  const stepColumns = steps
    .map((_, i) => {
      const reached = `countIf(level >= ${i + 1}) AS count_${i}`
      if (i === 0) return reached
      const took = `best[${i + 1}] - best[${i}]`
      return `${reached}, avgIf(${took}, level >= ${i + 1}) AS avg_${i}, quantileExactInclusiveIf(0.5)(${took}, level >= ${i + 1}) AS median_${i}`
    })
    .join(', ')
  // A person's breakdown value is that of its first first-step event (PostHog's first touch attribution).
  const breakdown = query.breakdownFilter?.breakdown ?? null
  const byPerson = query.breakdownFilter?.breakdown_type === 'person'
  const joins = [personJoinSql(), ...(breakdown !== null && byPerson ? [personPropertiesJoinSql(ACTOR_SQL)] : [])]
  const valueSql = breakdown === null ? "''" : breakdownValueSql(byPerson ? 'pp.properties' : 'e.properties', String(breakdown), params)
  const limit = params.add('UInt32', query.breakdownFilter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT)
  const sql = `WITH per_person AS (
      SELECT arrayCount(x -> x > 0, best) AS level, best, breakdown_value FROM (
        SELECT arraySort(c -> (-arrayCount(x -> x > 0, c), c[1]), ${chains}) [1] AS best, breakdown_value
        FROM (
          SELECT ${ACTOR_SQL} AS actor,
            argMinIf(${valueSql}, e.timestamp, e.step_0) AS breakdown_value,
            ${stepArrays}
          FROM (SELECT timestamp, distinct_id, person_id, properties, ${flags} FROM events WHERE ${where.join(' AND ')}) AS e
          ${joins.join(' ')}
          GROUP BY actor
        )
        WHERE length(s0) > 0
      )
    )
    SELECT if(breakdown_value IN (SELECT breakdown_value FROM per_person GROUP BY breakdown_value
        ORDER BY count() DESC, breakdown_value LIMIT ${limit}), breakdown_value, '${BREAKDOWN_OTHER}') AS value,
      ${stepColumns}
    FROM per_person GROUP BY value`
  const rows = await select<Record<string, number | string | null>>(ctx, sql, { ...params.values, window: windowSeconds })
  const stepsOf = (row: Record<string, number | string | null> | undefined) =>
    query.series.map((node, i) => {
      const count = num(row?.[`count_${i}`])
      const time = (key: string) => (i === 0 || count === 0 || row?.[key] === null || row?.[key] === undefined ? null : num(row[key]))
      const name = node.event ?? 'All events'
      return {
        action_id: node.event ?? null,
        name,
        custom_name: node.custom_name ?? null,
        order: i,
        people: [],
        count,
        type: 'events',
        average_conversion_time: time(`avg_${i}`),
        median_conversion_time: time(`median_${i}`),
        ...(breakdown === null ? {} : { breakdown: [String(row?.value)], breakdown_value: [String(row?.value)] }),
      }
    })
  if (breakdown === null) {
    return { results: stepsOf(rows[0]), resolvedDateRange: { date_from: isoInZone(range.from), date_to: isoInZone(range.to) } }
  }
  // Most persons first, Other last.
  const ordered = [...rows].sort((a, b) => {
    const other = Number(a.value === BREAKDOWN_OTHER) - Number(b.value === BREAKDOWN_OTHER)
    return other || num(b.count_0) - num(a.count_0) || String(a.value).localeCompare(String(b.value))
  })
  const results = ordered.map(stepsOf)
  return { results, resolvedDateRange: { date_from: isoInZone(range.from), date_to: isoInZone(range.to) } }
}
