import { clickHouseErrorCode, materializedColumns, SqlParams } from '@burrow/clickhouse'
import {
  ApiProblem,
  DEFAULT_PATH_EDGES,
  DEFAULT_PATH_STEPS,
  problems,
  type PathCleaningFilter,
  type PathsFilter,
  type PathsQuery,
  type PathType,
} from '@burrow/contracts'
import type { QueryContext } from '../context'
import { isoInZone, resolveRange, type ResolvedRange } from '../dates'
import { ACTOR_SQL, eventsSql, personJoinSql } from '../events'
import type { RunnerOutput } from '../runnerOutput'
import { queryFiltersOf, rangeOptionsOf } from '../series'
import { num, select } from '../sql'

/** A session ends after this long without an event of the path (PostHog's 30 minutes). */
const SESSION_GAP_SECONDS = 30 * 60

/** ClickHouse's CANNOT_COMPILE_REGEXP; newer releases answer BAD_ARGUMENTS, saying the pattern is not re2. */
const CANNOT_COMPILE_REGEXP = 427

/** Whether ClickHouse refused a statement for a pattern it cannot compile (a cleaning rule's). */
function isBadPattern(err: unknown): boolean {
  if (clickHouseErrorCode(err) === CANNOT_COMPILE_REGEXP) return true
  return err instanceof Error && /not a valid re2 pattern|cannot compile re2/i.test(err.message)
}

/** One link of the answer, as PostHog's PathsQuery answers it. */
export interface PathLink {
  source: string
  target: string
  value: number
  /** Milliseconds from the source step to the target step, averaged over the link's walks. */
  average_conversion_time: number
}

/**
 * PostHog's PathsQuery: each person's events of the chosen kinds in the range, in time order, are
 * split into sessions after 30 minutes without one; within a session a run of the same item is
 * one step (its last event's time), and the steps from the start (or `startPoint`, or up to
 * `endPoint`) are numbered `1_`, `2_` … up to `stepLimit`. The answer is the links between
 * consecutive steps, with how many walked each and the average time it took, the most walked
 * first, and only those reachable from a first step.
 */
export async function runPaths(ctx: QueryContext, query: PathsQuery): Promise<RunnerOutput> {
  const filter: PathsFilter = query.pathsFilter ?? {}
  const range = await rangeOf(ctx, query)
  // PostHog answers no links when the range ends before it starts.
  if (range === undefined) return { results: [] }

  const params = new SqlParams()
  const filters = await queryFiltersOf(ctx, query)
  const events = eventsSql(
    params,
    { event: null, properties: filters ? [filters] : [] },
    range.from,
    range.to.plus({ milliseconds: 1 }),
    materializedColumns(ctx.ch),
  )
  const steps = filter.stepLimit ?? DEFAULT_PATH_STEPS
  const item = pathItemSql(params, filter, cleaningRules(ctx, filter))
  const groupings = (filter.pathGroupings ?? []).map((g) => escapeRegex(g).replace(/\\\*/g, '.*'))
  const groupingsParam = params.add('Array(String)', filter.pathGroupings ?? [])
  // The first grouping the item matches (0: none).
  const groupIndex = groupings.length
    ? `multiIf(${groupings.map((g, i) => `match(cleaned, ${params.add('String', g)}), ${i + 1}`).join(', ')}, 0)`
    : '0'
  const typeCondition = eventTypeSql(filter.includeEventTypes ?? [])
  const excluded = filter.excludeEvents?.length ? `WHERE item NOT IN ${params.add('Array(String)', filter.excludeEvents)}` : ''

  const itemsSql = `SELECT actor, ts, if(group_index > 0, ${groupingsParam}[group_index], cleaned) AS item FROM (
      SELECT ${ACTOR_SQL} AS actor, toUnixTimestamp64Micro(e.timestamp) / 1e6 AS ts, ${item} AS cleaned,
        ${groupIndex} AS group_index
      FROM (${events}) AS e ${personJoinSql()}
      ${typeCondition ? `WHERE ${typeCondition}` : ''}
    ) ${excluded}`
  const personsSql = `SELECT arraySort(x -> x.1, groupArray((ts, item))) AS walk FROM (${itemsSql}) GROUP BY actor`
  const sessionsSql = `SELECT arrayJoin(arraySplit((x, gap) -> gap >= ${SESSION_GAP_SECONDS}, walk, arrayDifference(arrayMap(x -> x.1, walk)))) AS session
    FROM (${personsSql})`
  const target = targetSql(params, filter, steps)
  const walksSql = `SELECT limited, arrayDifference(limited_times) AS gaps FROM (
      SELECT
        arrayMap(x -> x.2, session) AS items,
        arrayMap(x -> x.1, session) AS times,
        arrayMap((a, b) -> a != b, items, arrayPushBack(arrayPopFront(items), '')) AS last_of_run,
        arrayFilter((x, keep) -> keep, items, last_of_run) AS path,
        arrayFilter((x, keep) -> keep, times, last_of_run) AS path_times,
        ${target.columns}
      FROM (${sessionsSql})
      ${target.where ? `WHERE ${target.where}` : ''}
    )`
  const linksSql = `SELECT concat(toString(i - 1), '_', limited[i - 1]) AS source, concat(toString(i), '_', limited[i]) AS target, gaps[i] AS gap
    FROM (${walksSql}) ARRAY JOIN arrayEnumerate(limited) AS i WHERE i > 1`
  const having: string[] = []
  if (filter.minEdgeWeight) having.push(`value >= ${params.add('UInt64', filter.minEdgeWeight)}`)
  if (filter.maxEdgeWeight) having.push(`value <= ${params.add('UInt64', filter.maxEdgeWeight)}`)
  const sql = `SELECT source, target, count() AS value, avg(gap) AS average_gap FROM (${linksSql})
    GROUP BY source, target ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
    ORDER BY value DESC, source, target
    LIMIT ${params.add('UInt32', filter.edgeLimit ?? DEFAULT_PATH_EDGES)}`

  let rows: Array<{ source: string; target: string; value: number | string; average_gap: number | string }>
  try {
    rows = await select(ctx, sql, params.values)
  } catch (err: unknown) {
    if (isBadPattern(err)) {
      throw problems.validation('pathsFilter', 'A path cleaning rule is not a regular expression ClickHouse (re2) can compile.')
    }
    throw err
  }
  const links: PathLink[] = rows.map((r) => ({
    source: r.source,
    target: r.target,
    value: num(r.value),
    average_conversion_time: num(r.average_gap) * 1000,
  }))
  return {
    results: reachableFromFirstSteps(links),
    resolvedDateRange: { date_from: isoInZone(range.from), date_to: isoInZone(range.to) },
  }
}

/** The query's range (in days, as PostHog's paths read it); undefined when it ends before it starts. */
async function rangeOf(ctx: QueryContext, query: PathsQuery): Promise<ResolvedRange | undefined> {
  try {
    return await resolveRange(query.dateRange, 'day', { ...rangeOptionsOf(ctx, [null]), withoutBuckets: true })
  } catch (err: unknown) {
    if (err instanceof ApiProblem && err.body.attr === 'date_to' && /before its start/.test(err.body.detail ?? '')) return undefined
    throw err
  }
}

/** The rules that rewrite path items: the project's with `pathReplacements`, then the query's own. */
function cleaningRules(ctx: QueryContext, filter: PathsFilter): PathCleaningFilter[] {
  const rules: PathCleaningFilter[] = []
  if (filter.pathReplacements) {
    const project = Array.isArray(ctx.pathCleaningFilters) ? (ctx.pathCleaningFilters as unknown[]) : []
    for (const rule of project) {
      if (typeof rule !== 'object' || rule === null) continue
      const { regex, alias } = rule as { regex?: unknown; alias?: unknown }
      if (typeof regex === 'string' && regex.length > 0) rules.push({ regex, alias: typeof alias === 'string' ? alias : '' })
    }
  }
  rules.push(...(filter.localPathCleaningFilters ?? []))
  return rules
}

/** Whether items of this kind are read as paths: those included, or with none included, those not excluded. */
function reads(filter: PathsFilter, type: PathType): boolean {
  const included = filter.includeEventTypes ?? []
  if (included.length === 0) return !(filter.excludeEvents ?? []).includes(type)
  return (included as string[]).includes(type)
}

/**
 * An event's path item: a page view's `$current_url` without its trailing slash, a screen's
 * `$screen_name`, any other event's name; then rewritten by each cleaning rule in turn.
 */
function pathItemSql(params: SqlParams, filter: PathsFilter, rules: PathCleaningFilter[]): string {
  let item = 'e.event'
  if (reads(filter, '$pageview')) {
    const url = `JSONExtractString(e.properties, '$current_url')`
    item = `if(e.event = '$pageview', replaceRegexpAll(${url}, ${params.add('String', '(.)/$')}, ${params.add('String', '\\1')}), ${item})`
  }
  if (reads(filter, '$screen')) item = `if(e.event = '$screen', JSONExtractString(e.properties, '$screen_name'), ${item})`
  for (const rule of rules) {
    item = `replaceRegexpAll(${item}, ${params.add('String', rule.regex)}, ${params.add('String', rule.alias ?? '')})`
  }
  return item
}

/** Which events are read, by `includeEventTypes` (none: every event). */
function eventTypeSql(types: readonly string[]): string | undefined {
  const or: string[] = []
  if (types.includes('$pageview')) or.push(`e.event = '$pageview'`)
  if (types.includes('$screen')) or.push(`e.event = '$screen'`)
  if (types.includes('custom_event')) or.push(`NOT startsWith(e.event, '$')`)
  return or.length ? `(${or.join(' OR ')})` : undefined
}

/** A start or end point as items are compared with it: without a trailing slash. */
function pointOf(point: string): string {
  return point.length > 1 && point.endsWith('/') ? point.slice(0, -1) : point
}

/**
 * The columns that cut a session's compacted path (`path`, `path_times`) to the steps answered
 * (`limited`, `limited_times`), and the condition a session must meet to count.
 */
function targetSql(params: SqlParams, filter: PathsFilter, steps: number): { columns: string; where?: string } {
  const start = filter.startPoint ? pointOf(filter.startPoint) : undefined
  const end = filter.endPoint ? pointOf(filter.endPoint) : undefined
  const limit = params.add('UInt32', steps)
  if (start !== undefined && end !== undefined) {
    // From the start point to the first end point after it; a longer path keeps its first and last
    // halves, with '...' between them.
    const half = Math.floor(steps / 2)
    const cut = (a: string, middle: string) =>
      `if(length(${a}) > ${limit}, arrayConcat(arraySlice(${a}, 1, ${half}), [${middle}], arraySlice(${a}, -${half}, ${half})), ${a})`
    return {
      columns: `indexOf(path, ${params.add('String', start)}) AS start_index,
        arraySlice(path, start_index) AS from_start,
        arraySlice(path_times, start_index) AS from_start_times,
        indexOf(from_start, ${params.add('String', end)}) AS end_index,
        arrayResize(from_start, end_index) AS filtered,
        arrayResize(from_start_times, end_index) AS filtered_times,
        ${cut('filtered', `'...'`)} AS limited,
        ${cut('filtered_times', `filtered_times[${half + 1}]`)} AS limited_times`,
      where: 'start_index > 0 AND end_index > 0',
    }
  }
  if (end !== undefined) {
    // Up to the first time the end point is reached, its last steps.
    return {
      columns: `indexOf(path, ${params.add('String', end)}) AS target_index,
        arraySlice(arrayResize(path, target_index), -${limit}) AS limited,
        arraySlice(arrayResize(path_times, target_index), -${limit}) AS limited_times`,
      where: 'target_index > 0',
    }
  }
  if (start !== undefined) {
    return {
      columns: `indexOf(path, ${params.add('String', start)}) AS target_index,
        arraySlice(arraySlice(path, target_index), 1, ${limit}) AS limited,
        arraySlice(arraySlice(path_times, target_index), 1, ${limit}) AS limited_times`,
      where: 'target_index > 0',
    }
  }
  return { columns: `arraySlice(path, 1, ${limit}) AS limited, arraySlice(path_times, 1, ${limit}) AS limited_times` }
}

/** A wildcard grouping as a pattern: its text literal, `*` any text. */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`)
}

/**
 * The links whose source can be reached from a first step (`1_…`) through the links answered, as
 * PostHog keeps them: a link whose earlier steps fell outside the edge limit is left out.
 */
function reachableFromFirstSteps(links: PathLink[]): PathLink[] {
  const next = new Map<string, string[]>()
  const stack: string[] = []
  for (const link of links) {
    next.set(link.source, [...(next.get(link.source) ?? []), link.target])
    if (link.source.startsWith('1_')) stack.push(link.source)
  }
  const seen = new Set<string>()
  while (stack.length > 0) {
    const node = stack.pop()!
    seen.add(node)
    for (const target of next.get(node) ?? []) if (!seen.has(target)) stack.push(target)
  }
  return links.filter((link) => seen.has(link.source))
}
