import type { PropertyExpression } from '@burrow/clickhouse'
import type { EventsNode } from '@burrow/contracts'
import type { QueryContext } from './context'
import type { RangeOptions } from './dates'
import type { EventSelection } from './events'
import { select } from './sql'

/**
 * A query's own property filters, and with `filterTestAccounts` the project's test account
 * filters, as one condition (undefined for none), as PostHog ANDs them.
 */
export async function queryFiltersOf(
  ctx: QueryContext,
  query: { properties?: unknown; filterTestAccounts?: unknown },
): Promise<PropertyExpression | undefined> {
  const own = await ctx.properties(query.properties, 'properties')
  if (query.filterTestAccounts !== true) return own
  const testAccounts = await ctx.properties(ctx.testAccountFilters, 'filterTestAccounts')
  if (!testAccounts) return own
  return own ? { type: 'AND', values: [own, testAccounts] } : testAccounts
}

/** The filters of a query and of one of its nodes (those the user edits and the fixed ones), together. */
export async function selectionOf(
  ctx: QueryContext,
  node: Pick<EventsNode, 'event' | 'properties' | 'fixedProperties'>,
  queryFilters: PropertyExpression | undefined,
  attr: string,
): Promise<EventSelection> {
  const own = await ctx.properties(node.properties, attr)
  const fixed = await ctx.properties(node.fixedProperties, attr)
  return { event: node.event ?? null, properties: [queryFilters, own, fixed].filter((e): e is PropertyExpression => e !== undefined) }
}

/** The earliest event of the selections, for `date_from: all`. */
/** How a query of `ctx`'s project reads its date range; `all` starts at the earliest of `events` (null: any event). */
export function rangeOptionsOf(ctx: QueryContext, events: Array<string | null>): RangeOptions {
  return { zone: ctx.timezone, now: ctx.now, weekStartDay: ctx.weekStartDay, earliest: earliestOf(ctx, events) }
}

function earliestOf(ctx: QueryContext, events: Array<string | null>) {
  return async (): Promise<Date | undefined> => {
    const names = events.includes(null) ? null : events
    const rows = await select<{ earliest: string | null; n: string }>(
      ctx,
      `SELECT min(timestamp) AS earliest, count() AS n FROM events WHERE team_id = {team_id:Int64}${names ? ' AND event IN {names:Array(String)}' : ''}`,
      names ? { names } : {},
    )
    const row = rows[0]
    if (!row || Number(row.n) === 0 || !row.earliest) return undefined
    return new Date(`${row.earliest.replace(' ', 'T')}Z`)
  }
}
