import { hogQLQuerySchema, type HogQLQuery, type HogQLQueryResponse } from '@burrow/contracts'
import type { QueryContext } from '../context'
import type { AstNode } from './ast'
import { dateToHogQL } from './dates'
import { executePrinted } from './execute'
import { parseHogQL } from './parser'
import { replacePlaceholders, valueToAst } from './placeholders'
import { printHogQL } from './printer'
import { propertyFilterToHogQL, testAccountConditions } from './propertyFilters'
import { validQuery } from './validate'

/** What `{filters}` stands for: the date range on `timestamp` and the property filters, or true. */
async function filtersExpr(ctx: QueryContext, filters: HogQLQuery['filters']): Promise<AstNode> {
  const parts: string[] = []
  const range = filters?.dateRange
  if (range?.date_from && range.date_from !== 'all')
    parts.push(`timestamp >= ${dateToHogQL(range.date_from, ctx.now, 'filters__dateRange__date_from')}`)
  if (range?.date_to) {
    const to = dateToHogQL(range.date_to, ctx.now, 'filters__dateRange__date_to')
    // A date without a time means the whole of that day.
    parts.push(/^\d{4}-\d{2}-\d{2}$/.test(range.date_to.trim()) ? `timestamp < plus(${to}, toIntervalDay(1))` : `timestamp < ${to}`)
  }
  for (const [i, p] of (filters?.properties ?? []).entries()) parts.push(propertyFilterToHogQL(p, `filters__properties__${i}`))
  if (filters?.filterTestAccounts === true) parts.push(...testAccountConditions(ctx.testAccountFilters))
  return parseHogQL(parts.length > 0 ? parts.map((p) => `(${p})`).join(' AND ') : 'true', 'expr', 'filters')
}

/** Runs a HogQLQuery for the context's project: PostHog's answer, the printed ClickHouse SQL included. */
export async function runHogQLQuery(ctx: QueryContext, input: HogQLQuery): Promise<HogQLQueryResponse> {
  const query = validQuery(hogQLQuerySchema, input)
  const parsed = await parseHogQL(query.query, 'select')
  const values = query.values ?? {}
  const filters = await filtersExpr(ctx, query.filters)
  const ast = replacePlaceholders(parsed, (name) => {
    if (Object.hasOwn(values, name)) return valueToAst(values[name], name)
    if (name === 'filters') return filters
    return undefined
  })
  const printed = printHogQL(ast, { teamId: ctx.teamId, timezone: ctx.timezone, source: query.query })
  const executed = await executePrinted(ctx, printed)
  return {
    results: executed.results,
    columns: executed.columns,
    types: executed.types,
    hogql: query.query,
    clickhouse: printed.sql,
    hasMore: executed.hasMore,
    limit: printed.limit,
    offset: printed.offset,
  }
}
