import { eventsQuerySchema, type EventsQuery, type EventsQueryResponse } from '@burrow/contracts'
import type { QueryContext } from '../context'
import { and, type AstNode, type SelectQueryNode } from './ast'
import { dateToHogQL } from './dates'
import { executePrinted } from './execute'
import { hasAggregation } from './functions'
import { hogqlString, hogqlValue } from './hogqlText'
import { parseHogQL } from './parser'
import { replacePlaceholders, valueToAst } from './placeholders'
import { DEFAULT_LIMIT, MAX_LIMIT, printHogQL } from './printer'
import { propertyFilterToHogQL, testAccountConditions } from './propertyFilters'
import { validQuery } from './validate'
import { wallClockToIso } from './wallClock'

/** What `*` in an EventsQuery's select stands for: one column holding the event as an object (PostHog's). */
const STAR_FIELDS = ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at'] as const

/** Events a little in the future are left out unless asked for, as PostHog does (clocks run ahead). */
const FUTURE_MARGIN_MS = 5_000

/** A column as written, without a trailing `-- comment` (PostHog's column labels). */
const bare = (column: string) => column.split('--')[0]!.trim()

/** The conditions of the query's filters (beyond `where`), as HogQL text. */
function filterConditions(ctx: QueryContext, query: EventsQuery): string[] {
  const out: string[] = []
  for (const [i, p] of (query.properties ?? []).entries()) out.push(propertyFilterToHogQL(p, `properties__${i}`))
  for (const [i, p] of (query.fixedProperties ?? []).entries()) out.push(propertyFilterToHogQL(p, `fixedProperties__${i}`))
  if (query.filterTestAccounts === true) out.push(...testAccountConditions(ctx.testAccountFilters))
  const events = [query.event, ...(query.events ?? [])].filter((e): e is string => Boolean(e))
  if (events.length === 1) out.push(`event = ${hogqlString(events[0]!)}`)
  else if (events.length > 1) out.push(`event IN (${events.map(hogqlValue).join(', ')})`)
  if (query.personId) {
    out.push(`distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE toString(person_id) = ${hogqlString(query.personId)})`)
  }
  const before = query.before ?? new Date(ctx.now.getTime() + FUTURE_MARGIN_MS).toISOString()
  out.push(`timestamp < ${dateToHogQL(before, ctx.now, 'before')}`)
  const after = query.after ?? '-24h'
  if (after !== 'all') out.push(`timestamp > ${dateToHogQL(after, ctx.now, 'after')}`)
  return out
}

/**
 * Runs an EventsQuery for the context's project, as PostHog's runner does: the select list
 * grouped by its non-aggregate columns when it aggregates, `where` and the filters ANDed, the
 * last 24 hours unless `after` says otherwise, ordered by `orderBy` or by PostHog's defaults.
 */
export async function runEventsQuery(ctx: QueryContext, input: EventsQuery): Promise<EventsQueryResponse> {
  const query = validQuery(eventsQuerySchema, input)
  const inputs = query.select.length === 0 ? ['*'] : query.select
  const selectText = inputs.map((c) => {
    const b = bare(c)
    if (b === '*') return `tuple(${STAR_FIELDS.join(', ')})`
    if (b === 'person') return 'distinct_id'
    return c
  })
  const select = await Promise.all(selectText.map((text, i) => parseHogQL(text, 'expr', `select[${i}]`)))
  const aggregations = select.filter(hasAggregation)
  const groupBy = aggregations.length > 0 ? select.filter((s) => !hasAggregation(s)) : []

  const whereText = [...(query.where ?? []), ...filterConditions(ctx, query)]
  const conditions = await Promise.all(
    whereText.map((text, i) => parseHogQL(text, 'expr', i < (query.where?.length ?? 0) ? `where[${i}]` : 'filters')),
  )
  const where = conditions.filter((c) => !hasAggregation(c))
  const having = conditions.filter(hasAggregation)

  let orderBy: AstNode[]
  let orderText: string[]
  if (query.orderBy && query.orderBy.length > 0) {
    orderBy = await Promise.all(query.orderBy.map((o, i) => parseHogQL(o, 'order', `orderBy[${i}]`)))
    orderText = query.orderBy
  } else {
    const countIndex = inputs.map(bare).indexOf('count()')
    const timestampIndex = inputs.map(bare).indexOf('timestamp')
    const firstAggregate = select.findIndex(hasAggregation)
    const pick =
      countIndex >= 0
        ? { i: countIndex, dir: 'DESC' }
        : firstAggregate >= 0
          ? { i: firstAggregate, dir: 'DESC' }
          : timestampIndex >= 0
            ? { i: timestampIndex, dir: 'DESC' }
            : { i: 0, dir: 'ASC' }
    const expr = select[pick.i]!
    orderBy = [{ node: 'OrderExpr', expr: expr.node === 'Alias' ? expr.expr : expr, order: pick.dir }]
    orderText = [`${selectText[pick.i]} ${pick.dir}`]
  }

  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT)
  const offset = query.offset ?? 0
  const ast: SelectQueryNode = {
    node: 'SelectQuery',
    select,
    select_from: { node: 'JoinExpr', table: { node: 'Field', chain: ['events'] } },
    where: where.length > 0 ? and(where) : null,
    having: having.length > 0 ? and(having) : null,
    group_by: groupBy.length > 0 ? groupBy.map((g) => (g.node === 'Alias' ? (g.expr as AstNode) : g)) : null,
    order_by: orderBy,
    limit: { node: 'Constant', value: limit },
    offset: offset > 0 ? { node: 'Constant', value: offset } : null,
  }
  const printed = printHogQL(ast, { teamId: ctx.teamId, timezone: ctx.timezone })
  const executed = await executePrinted(ctx, printed)

  // Columns are named as they were asked for; an alias names its column.
  const columns = inputs.map((c, i) => (select[i]!.node === 'Alias' ? String(select[i]!.alias) : c))
  let results = executed.results
  const star = inputs.map(bare).indexOf('*')
  if (star >= 0) results = results.map((row) => row.map((v, i) => (i === star ? starObject(v, ctx.timezone) : v)))
  const personColumns = inputs.map(bare).flatMap((c, i) => (c === 'person' ? [i] : []))
  if (personColumns.length > 0 && results.length > 0) results = await withPersons(ctx, results, personColumns)

  const clauses = [`SELECT ${selectText.join(', ')}`, 'FROM events']
  if (whereText.length > 0) clauses.push(`WHERE ${whereText.map((w) => `(${w})`).join(' AND ')}`)
  if (groupBy.length > 0) clauses.push(`GROUP BY ${selectText.filter((_, i) => !hasAggregation(select[i])).join(', ')}`)
  clauses.push(`ORDER BY ${orderText.join(', ')}`, `LIMIT ${limit}`)
  if (offset > 0) clauses.push(`OFFSET ${offset}`)

  return {
    results,
    columns,
    types: executed.types.map(([, type]) => type),
    hogql: clauses.join('\n'),
    hasMore: executed.hasMore,
    limit,
    offset,
  }
}

/** The `*` column's tuple as the event object PostHog answers, its properties parsed. */
function starObject(value: unknown, timezone: string): unknown {
  if (!Array.isArray(value)) return value
  const event: Record<string, unknown> = Object.fromEntries(STAR_FIELDS.map((f, i) => [f, value[i]]))
  for (const f of ['timestamp', 'created_at'] as const) if (typeof event[f] === 'string') event[f] = wallClockToIso(event[f], timezone)
  try {
    event.properties = JSON.parse(String(event.properties)) as unknown
  } catch {
    // Properties are stored as JSON; text that is not stays as it is.
  }
  return event
}

/** Each `person` column (a distinct id) as the person it maps to now: uuid, created_at, properties, distinct_id. */
async function withPersons(ctx: QueryContext, rows: unknown[][], columns: number[]): Promise<unknown[][]> {
  const ids = [...new Set(rows.flatMap((r) => columns.map((c) => String(r[c]))))]
  const ast = await parseHogQL(
    `SELECT pdi.distinct_id, p.id, p.created_at, p.properties FROM person_distinct_ids AS pdi
      INNER JOIN persons AS p ON p.id = pdi.person_id WHERE pdi.distinct_id IN {ids}`,
    'select',
  )
  const printed = printHogQL(
    replacePlaceholders(ast, (name) => (name === 'ids' ? valueToAst(ids, name) : undefined)),
    { teamId: ctx.teamId, timezone: ctx.timezone, defaultLimit: MAX_LIMIT },
  )
  const found = await executePrinted(ctx, printed)
  const persons = new Map<string, Record<string, unknown>>()
  for (const [distinctId, uuid, createdAt, properties] of found.results) {
    let props: unknown
    try {
      props = JSON.parse(String(properties))
    } catch {
      props = {}
    }
    persons.set(String(distinctId), { uuid, created_at: createdAt, properties: props, distinct_id: distinctId })
  }
  return rows.map((row) => row.map((v, i) => (columns.includes(i) ? (persons.get(String(v)) ?? { distinct_id: v }) : v)))
}
