import { GROUP_COLUMNS, materializedColumns } from '@burrow/clickhouse'
import { ApiProblem } from '@burrow/contracts'
import type { QueryContext } from './context'
import { ACTOR_SQL } from './events'
import { refused } from './hogql/errors'
import { hasAggregation } from './hogql/functions'
import { parseHogQL } from './hogql/parser'
import { printEventExpression } from './hogql/printer'

/**
 * A HogQL expression over one event, printed for a runner's statement over the events subquery
 * `e` (see eventsSql): a breakdown by `properties.$browser`, a math of `sum(properties.price)`.
 */
export interface EventExpression {
  sql: string
  params: Record<string, unknown>
  /** It reads the event's current person (`person_id`), through the distinct ids' join `pdi`. */
  needsPersonId: boolean
  /** It reads the person's properties, through the persons' join `pp` as well. */
  needsPerson: boolean
}

/** How a field of HogQL's events table is read in a runner's statement. */
function runnerColumnSql(column: string, zone: string): string {
  switch (column) {
    case 'timestamp':
    case 'created_at':
      return `toTimeZone(e.${column}, ${zone})`
    case 'event':
    case 'properties':
    case 'distinct_id':
    case 'uuid':
    case 'elements_chain':
    case 'team_id':
      return `e.${column}`
    case '$session_id':
    case '$window_id':
      return `JSONExtractString(e.properties, '${column}')`
    case 'person_id':
      return ACTOR_SQL
    case 'person_properties':
      return 'pp.properties'
  }
  // The groups' columns, and the properties' own columns (which eventsSql selects).
  if ((GROUP_COLUMNS as readonly string[]).includes(column) || column.startsWith('mat_')) return `e.\`${column}\``
  throw refused(`${column} cannot be read here: use the event's properties, or person.properties.`)
}

/** The columns an events subquery must carry for runnerColumnSql, beyond those eventsSql always selects. */
export const EVENT_EXPRESSION_COLUMNS = `, uuid, elements_chain, team_id, created_at${GROUP_COLUMNS.map((c) => `, \`${c}\``).join('')}`

/**
 * Parses and prints `text` for one of a runner's statements. `aggregate` says whether it must
 * aggregate (a math) or must not (a breakdown); `prefix` names its parameters apart from the
 * statement's others. A refusal names `attr`.
 */
export async function eventExpressionOf(
  ctx: QueryContext,
  text: string,
  options: {
    attr: string
    what: string
    aggregate: boolean
    prefix: string
    /** How the statement reads the event's person (`person_id`) where it is not ACTOR_SQL. */
    personSql?: string
  },
): Promise<EventExpression> {
  try {
    const ast = await parseHogQL(text, 'expr', options.what)
    if (options.aggregate && !hasAggregation(ast))
      throw refused(`The ${options.what} must aggregate the events, as sum(...) or count() does.`)
    if (!options.aggregate && hasAggregation(ast))
      throw refused(`The ${options.what} is read from each event: it cannot aggregate, as ${text} does.`)
    const zone = `'${ctx.timezone.replace(/'/g, '')}'`
    const printed = printEventExpression(
      ast,
      { teamId: ctx.teamId, timezone: ctx.timezone, paramPrefix: options.prefix, propertyColumns: materializedColumns(ctx.ch) },
      (c) => (c === 'person_id' && options.personSql !== undefined ? options.personSql : runnerColumnSql(c, zone)),
    )
    return { sql: printed.sql, params: printed.params, needsPersonId: printed.needs.personId, needsPerson: printed.needs.person }
  } catch (error) {
    // The parser and printer name no field of the query: this one does.
    if (error instanceof ApiProblem && error.status === 400 && error.body.attr === null)
      throw new ApiProblem('invalid_input', error.body.detail, { attr: options.attr, cause: error })
    throw error
  }
}
