import type { SqlParams } from '@burrow/clickhouse'
import {
  problems,
  type ActorsSource,
  type FunnelsActorsQuery,
  type LifecycleQuery,
  type RetentionQuery,
  type StickinessQuery,
} from '@burrow/contracts'
import type { QueryContext } from '../context'
import { funnelPlanOf, valuesRankedSql } from '../funnels'
import { lifecycleOf } from '../lifecycle'
import { retentionOf } from '../retention'
import { queryFiltersOf, selectionOf } from '../series'
import { stickinessPeriodsOf, stickyActorsSql } from '../stickiness'
import { trendsActorsSql } from '../trends/actors'

/**
 * The persons behind one point of an insight, as a statement of `actor_id` (the person's id) and
 * the point's own columns.
 */
export interface PointActors {
  sql: string
  columns: Array<'event_count' | 'event_distinct_ids' | 'appearances'>
}

const ATTR = 'query__source'

/** The fields of an InsightActorsQuery that name a point of each kind. */
const POINT_FIELDS: Record<string, string[]> = {
  TrendsQuery: ['day', 'series', 'breakdown', 'compare'],
  LifecycleQuery: ['day', 'status'],
  StickinessQuery: ['day', 'series', 'compare'],
  RetentionQuery: ['interval'],
}

/** The statement of the persons behind the point `source` names. */
export async function insightActorsSql(ctx: QueryContext, source: ActorsSource, params: SqlParams): Promise<PointActors> {
  if (source.kind === 'InsightActorsQuery') {
    const read = POINT_FIELDS[source.source.kind] ?? []
    for (const field of ['day', 'status', 'series', 'breakdown', 'compare', 'interval'] as const) {
      const value = source[field]
      if (value !== undefined && value !== null && !read.includes(field)) {
        throw problems.validation(`${ATTR}__${field}`, `${field} does not name a point of a ${source.source.kind}.`)
      }
    }
  }
  if (source.kind === 'InsightActorsQuery' && source.source.kind === 'TrendsQuery') {
    return { sql: await trendsActorsSql(ctx, source.source, source, params), columns: ['event_count', 'event_distinct_ids'] }
  }
  if (source.kind === 'InsightActorsQuery' && source.source.kind === 'LifecycleQuery') {
    return { sql: await lifecycleActorsSql(ctx, source.source, source, params), columns: [] }
  }
  if (source.kind === 'StickinessActorsQuery' || (source.kind === 'InsightActorsQuery' && source.source.kind === 'StickinessQuery')) {
    const operator = source.kind === 'StickinessActorsQuery' ? source.operator : undefined
    return { sql: await stickinessActorsSql(ctx, source.source as StickinessQuery, { ...source, operator }, params), columns: [] }
  }
  if (source.kind === 'InsightActorsQuery' && source.source.kind === 'RetentionQuery') {
    return { sql: await retentionActorsSql(ctx, source.source, source.interval, params), columns: ['appearances'] }
  }
  if (source.kind === 'FunnelsActorsQuery') return { sql: await funnelActorsSql(ctx, source, params), columns: [] }
  throw problems.validation(`${ATTR}__source__kind`, `The persons of a ${source.source.kind} are not supported yet.`)
}

/**
 * The persons of a lifecycle's bar, as PostHog's lifecycle actors query finds them: those whose
 * status in the interval `day` is `status` (either left out: every interval, every status).
 */
async function lifecycleActorsSql(
  ctx: QueryContext,
  query: LifecycleQuery,
  point: { day?: string | number | null | undefined; status?: string | null | undefined },
  params: SqlParams,
): Promise<string> {
  if (query.aggregation_group_type_index !== undefined && query.aggregation_group_type_index !== null) {
    throw problems.validation(
      `${ATTR}__source__aggregation_group_type_index`,
      'The groups of a lifecycle are not supported; only persons are.',
    )
  }
  const { statusesSql, keys, buckets, interval } = await lifecycleOf(ctx, query, params)
  // The periods answered (1 is the interval before the range, answered by no bar).
  const answered = keys.slice(keys.length - buckets.length)
  const conditions = [`period > ${keys.length - buckets.length}`, `period <= ${keys.length}`]
  if (point.day !== undefined && point.day !== null) {
    const text = String(point.day)
    const prefix = (t: string) => (interval === 'hour' ? t.replace('T', ' ').slice(0, 13) : t.slice(0, 10))
    const i = answered.findIndex((key) => key === text || prefix(key) === prefix(text))
    if (i < 0) throw problems.validation(`${ATTR}__day`, `${text} is not a day of the lifecycle.`)
    conditions.push(`period = ${params.add('UInt32', keys.length - buckets.length + i + 1)}`)
  }
  if (point.status) conditions.push(`status = ${params.add('String', point.status)}`)
  return `SELECT DISTINCT actor AS actor_id FROM (${statusesSql}) WHERE ${conditions.join(' AND ')}`
}

const OPERATORS = { gte: '>=', lte: '<=', exact: '=' } as const

/**
 * The persons of a stickiness bar, as PostHog's stickiness actors query finds them: those of the
 * series active in exactly `day` intervals (with `operator`, at least or at most that many).
 */
async function stickinessActorsSql(
  ctx: QueryContext,
  query: StickinessQuery,
  point: {
    day?: string | number | null | undefined
    series?: number | null | undefined
    compare?: 'current' | 'previous' | null | undefined
    operator?: keyof typeof OPERATORS | null | undefined
  },
  params: SqlParams,
): Promise<string> {
  const seriesIndex = point.series ?? 0
  const node = query.series[seriesIndex]
  if (!node) throw problems.validation(`${ATTR}__series`, `The stickiness has no series ${seriesIndex}.`)
  if (node.math === 'unique_group') throw problems.validation(`${ATTR}__series`, 'The groups of a bar are not supported; only persons are.')
  const periods = await stickinessPeriodsOf(ctx, query)
  if (point.compare === 'previous' && periods.length < 2) {
    throw problems.validation(`${ATTR}__compare`, 'The stickiness is not compared to a previous period.')
  }
  const { range } = point.compare === 'previous' ? periods[1]! : periods[0]!
  const selection = await selectionOf(ctx, node, await queryFiltersOf(ctx, query), 'series', `source__series__${seriesIndex}`)
  const actors = stickyActorsSql(ctx, query, node, selection, range, params)
  let where = ''
  if (point.day !== undefined && point.day !== null) {
    const day = Number(point.day)
    if (!Number.isInteger(day) || day < 1) throw problems.validation(`${ATTR}__day`, 'day is the number of intervals: 1 or more.')
    // A cumulative bar counts the persons active in that many intervals or more.
    const operator = point.operator ?? (query.stickinessFilter?.computedAs === 'cumulative' ? 'gte' : 'exact')
    where = `WHERE num_intervals ${OPERATORS[operator]} ${params.add('UInt64', day)}`
  }
  return `SELECT actor AS actor_id FROM (${actors}) ${where}`
}

/**
 * The persons of a funnel's step, as PostHog's funnel actors query finds them: those who reached
 * step `funnelStep` (counted from 1), or with a negative one those who dropped off before step
 * |funnelStep| (reached the step before it and no further); with `funnelStepBreakdown`, those
 * counted under that breakdown value (Other too).
 */
async function funnelActorsSql(ctx: QueryContext, source: FunnelsActorsQuery, params: SqlParams): Promise<string> {
  const query = source.source
  const viz = query.funnelsFilter?.funnelVizType ?? 'steps'
  if (viz !== 'steps') {
    throw problems.validation(
      `${ATTR}__source__funnelsFilter__funnelVizType`,
      `The persons of a ${viz} funnel are not supported; only of its steps.`,
    )
  }
  const step = source.funnelStep
  const n = query.series.length
  if (step === undefined || step === null) throw problems.validation(`${ATTR}__funnelStep`, 'Say which step: funnelStep.')
  if (Math.abs(step) > n) throw problems.validation(`${ATTR}__funnelStep`, `The funnel has ${n} steps.`)
  const plan = await funnelPlanOf(ctx, query, params)
  params.values.window = plan.windowSeconds
  const conditions = [step > 0 ? `level >= ${step}` : `level = ${-step - 1}`]
  const given = source.funnelStepBreakdown
  if (given !== undefined && given !== null) {
    if (plan.breakdown === null) throw problems.validation(`${ATTR}__funnelStepBreakdown`, 'The funnel is not broken down.')
    const value = Array.isArray(given) ? given[0] : given
    if (value !== undefined) conditions.push(`value = ${params.add('String', String(value))}`)
  }
  return `WITH per_person AS (${plan.perPerson})
    SELECT DISTINCT actor AS actor_id FROM (${valuesRankedSql(query, n, plan.breakdown !== null, params)}) WHERE ${conditions.join(' AND ')}`
}

/**
 * The persons of a retention cohort (row `interval`, from 0), as PostHog's retention actors query
 * finds them, each with `appearances`: the periods from the cohort's (0 is the cohort's own) the
 * person counts in.
 */
async function retentionActorsSql(
  ctx: QueryContext,
  query: RetentionQuery,
  interval: number | null | undefined,
  params: SqlParams,
): Promise<string> {
  if (interval === undefined || interval === null) throw problems.validation(`${ATTR}__interval`, 'Say which cohort: interval.')
  const { pairsSql, starts } = await retentionOf(ctx, query, params)
  if (interval >= starts.length) throw problems.validation(`${ATTR}__interval`, `The retention has ${starts.length} cohorts.`)
  return `SELECT actor AS actor_id, arraySort(groupArray(offset)) AS appearances FROM (${pairsSql})
    WHERE cohort = ${params.add('UInt32', interval + 1)} GROUP BY actor`
}
