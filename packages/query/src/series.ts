import type { PropertyExpression } from '@burrow/clickhouse'
import type { EventsNode } from '@burrow/contracts'
import { actionSelectionOf } from './actions'
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

/**
 * The events a node reads (one event name, every event, or an ActionsNode's action) with the
 * filters of the query and of the node (those the user edits and the fixed ones), together.
 */
export async function selectionOf(
  ctx: QueryContext,
  node: Pick<EventsNode, 'kind' | 'event' | 'id' | 'properties' | 'fixedProperties'>,
  queryFilters: PropertyExpression | undefined,
  attr: string,
  /** Where the node is in the query, when `attr` does not say (`series__2`): a refused action names it. */
  nodeAttr = attr,
): Promise<EventSelection> {
  const own = await ctx.properties(node.properties, attr)
  const fixed = await ctx.properties(node.fixedProperties, attr)
  const properties = [queryFilters, own, fixed].filter((e): e is PropertyExpression => e !== undefined)
  if (node.kind === 'ActionsNode') return { event: null, properties, action: await actionSelectionOf(ctx, node.id, nodeAttr) }
  return { event: node.event ?? null, properties }
}

/** How PostHog names what a series counts in its answer: the event (null for every event), or the action. */
export function entityOf(selection: EventSelection): { id: string | number | null; name: string | null; type: 'events' | 'actions' } {
  if (selection.action) return { id: selection.action.id, name: selection.action.name, type: 'actions' }
  return { id: selection.event, name: selection.event, type: 'events' }
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
