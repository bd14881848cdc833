import {
  currentDistinctIdsSql,
  currentPersonsSql,
  eventPropertiesSql,
  NIL_UUID,
  type PropertyExpression,
  type SqlParams,
} from '@burrow/clickhouse'
import type { DateTime } from 'luxon'
import { actionConditionSql, type ActionSelection } from './actions'
import { utcText } from './dates'
import { TEAM } from './sql'

/** Which events a series or a step reads: one event name (or all) and the filters that hold for it. */
export interface EventSelection {
  /** null: every event (or, with `action`, every event the action matches). */
  event: string | null
  properties: PropertyExpression[]
  /** An ActionsNode's action: the events matching one of its steps. */
  action?: ActionSelection
}

/**
 * Whether an event of the events table (columns unqualified) is one of the selection's: `which`,
 * its name or action (what a series counts), and `filters`, its property filters.
 */
export function selectionConditionSql(
  selection: EventSelection,
  params: SqlParams,
  columns: PropertyColumns,
): { which: string[]; filters: string[] } {
  const which: string[] = []
  if (selection.event !== null) which.push(`event = ${params.add('String', selection.event)}`)
  if (selection.action) which.push(actionConditionSql(selection.action, params, columns))
  return { which, filters: selection.properties.map((expression) => eventPropertiesSql(expression, TEAM, params, columns)) }
}

/**
 * Which event properties have a column of their own (property key to column name; see
 * materializedProperties): filters and breakdowns on those read the short column instead of
 * parsing every event's JSON.
 */
export type PropertyColumns = ReadonlyMap<string, string>

/**
 * Events of the team in [from, to) that match the selection, as a subquery with the columns
 * runners read (the property columns too: ClickHouse reads only those the outer query uses).
 * With `matchesAs`, every event of the selection's name before `to`, with a column of that name
 * saying whether it is in the range and matches the filters, and one (`…_filters`) whether it
 * matches the filters.
 */
export function eventsSql(
  params: SqlParams,
  selection: EventSelection,
  from: DateTime,
  toExclusive: DateTime,
  columns: PropertyColumns,
  extraColumns = '',
  options: { matchesAs?: string } = {},
): string {
  const since = `timestamp >= toDateTime64(${params.add('String', utcText(from))}, 6, 'UTC')`
  const clauses = [`team_id = ${TEAM}`, `timestamp < toDateTime64(${params.add('String', utcText(toExclusive))}, 6, 'UTC')`]
  const { which, filters } = selectionConditionSql(selection, params, columns)
  clauses.push(...which)
  let matches = ''
  // Every earlier event too, with whether it is in the range and matches the filters as a column of its own.
  if (options.matchesAs) {
    const filtered = filters.length ? filters.join(' AND ') : '1'
    matches = `, (${filtered}) AS ${options.matchesAs}_filters, (${since} AND ${filtered}) AS ${options.matchesAs}`
  } else clauses.push(since, ...filters)
  return `SELECT timestamp, event, distinct_id, person_id, properties${ownColumnsSelectSql(columns)}${extraColumns}${matches} FROM events WHERE ${clauses.join(' AND ')}`
}

/** The nil UUID as SQL: the person of an event stored without one. */
export const NIL_UUID_SQL = `toUUID('${NIL_UUID}')`

/**
 * A join giving each event `e` the person its distinct id belongs to now (`actor_id`), so that
 * the events of persons merged after ingestion count as one person's. Events stored without a
 * person mapping keep the person they were stored with.
 */
export function personJoinSql(): string {
  return `LEFT JOIN (${currentDistinctIdsSql(TEAM)}) AS pdi ON e.distinct_id = pdi.distinct_id`
}

export const ACTOR_SQL = `if(pdi.person_id = ${NIL_UUID_SQL}, e.person_id, pdi.person_id)`

/** A join giving each event's actor its current properties as `pp.properties`. */
export function personPropertiesJoinSql(actor: string): string {
  return `LEFT JOIN (SELECT id, properties FROM (${currentPersonsSql(TEAM)})) AS pp ON pp.id = ${actor}`
}

/** The property columns as more columns of a subquery's SELECT list (ClickHouse reads only those used). */
export function ownColumnsSelectSql(columns: PropertyColumns): string {
  return [...columns.values()].map((c) => `, \`${c}\``).join('')
}

/** The property's own column of the events subquery `e`, when it has one. */
export function ownColumnSql(columns: PropertyColumns, key: string): string | undefined {
  const column = columns.get(key)
  return column === undefined ? undefined : `e.\`${column}\``
}

/**
 * A property of the JSON text in `column` as PostHog breaks down by it: strings as they are,
 * other values as their JSON; no value, null and '' are `missing` (PostHog's null label in
 * trends; funnels, as PostHog's, give ''). With `own`, the property's own column of the same
 * row, which is read instead: there a JSON null and the string "null" are one text, and both are
 * missing, as in PostHog's reads of a materialised property.
 */
export function breakdownValueSql(column: string, key: string, params: SqlParams, missing: string = BREAKDOWN_NULL, own?: string): string {
  if (own !== undefined) return `if(${own} IS NULL OR ${own} IN ('', 'null'), '${missing}', assumeNotNull(${own}))`
  const k = params.add('String', key)
  const text = `if(JSONType(${column}, ${k}) = 'String', JSONExtractString(${column}, ${k}), JSONExtractRaw(${column}, ${k}))`
  return `if(JSONType(${column}, ${k}) = 'Null' OR ${text} = '', '${missing}', ${text})`
}

export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$'
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$'
export const BREAKDOWN_NULL_DISPLAY = 'None (i.e. no value)'
export const BREAKDOWN_OTHER_DISPLAY = 'Other (i.e. all remaining values)'

/** A numeric property's value (null where it is not a number), for sum/avg/… of a property. */
export function numericPropertySql(column: string, key: string, params: SqlParams): string {
  const k = params.add('String', key)
  return `toFloat64OrNull(if(JSONType(${column}, ${k}) = 'String', JSONExtractString(${column}, ${k}), JSONExtractRaw(${column}, ${k})))`
}
