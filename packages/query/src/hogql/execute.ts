import { clickHouseErrorCode, isQueryTimeout } from '@burrow/clickhouse'
import type { QueryContext } from '../context'
import { checkStatementSize, QueryCancelled, queryTimedOut, statementLimits } from '../sql'
import { refused } from './errors'
import type { PrintedQuery } from './printer'
import { dateTimeZone, wallClockToIso } from './wallClock'

export interface ExecutedQuery {
  results: unknown[][]
  columns: string[]
  /** [column, ClickHouse type] pairs, as PostHog answers them. */
  types: Array<[string, string]>
  hasMore: boolean
}

/**
 * ClickHouse errors a query can cause by what it asks (a wrong type, a bad regular expression),
 * as the words the user sees; ClickHouse's own message is kept out of the answer, since it quotes
 * the printed SQL.
 */
const USER_ERRORS: Record<number, string> = {
  6: 'a value could not be parsed',
  27: 'a value could not be parsed',
  36: 'a function was given a bad argument',
  38: 'a value could not be read as a date',
  41: 'a value could not be read as a date and time',
  42: 'a function was given the wrong number of arguments',
  43: 'a function was given an argument of the wrong type',
  44: 'a function was given a column it cannot take',
  47: 'a name could not be resolved',
  53: 'two values of different types were compared or combined',
  59: 'a filter is not a condition (a true or false value)',
  69: 'an argument is out of range',
  70: 'a value could not be converted to the type asked for',
  72: 'a value could not be read as a number',
  125: 'a subquery used as a value answered more than one row',
  128: 'an array is too large',
  153: 'a division by zero',
  167: 'the query is nested too deeply',
  168: 'the query is too large',
  158: 'too many rows',
  179: 'one alias names two different expressions',
  184: 'an aggregate function is used inside another aggregate function',
  190: 'arrays of different lengths were combined',
  207: 'a name is ambiguous',
  215: 'a column is neither grouped nor aggregated',
  241: 'the query needs more memory than it is allowed',
  321: 'a value is out of the range of its type',
  352: 'a column name is ambiguous',
  386: 'values have no common type',
  403: 'a JOIN condition is not supported',
  427: 'a regular expression is invalid',
  491: 'a regular expression is invalid',
}
/** Read-only settings of every statement a HogQL query runs, with the time and memory bounds of `timeLimit` (statementLimits). */
function settingsClause(timeLimit: string): string {
  return [
    'readonly = 2',
    timeLimit,
    'output_format_json_quote_64bit_integers = 0',
    // The events table's person join reads a missing match as empty, ClickHouse's default.
    'join_use_nulls = 0',
    // NULL IN (NULL) holds, as in PostHog's HogQL.
    'transform_null_in = 1',
  ].join(', ')
}

/**
 * Runs a printed query; user-caused ClickHouse failures become 400s without ClickHouse's text.
 * The reader connections keep each statement's output its own, kill a statement whose caller
 * aborted or whose time is up, and answer within that time (see @burrow/clickhouse's ReaderPool).
 */
export async function executePrinted(ctx: QueryContext, printed: PrintedQuery): Promise<ExecutedQuery> {
  ctx.signal?.throwIfAborted()
  checkStatementSize(printed.sql)
  const limits = statementLimits(ctx)
  let body: { meta?: Array<{ name: string; type: string }>; data?: unknown[][] }
  try {
    const result = await ctx.ch.reader.query({
      query: `${printed.sql} SETTINGS ${settingsClause(limits.settings)}`,
      query_params: printed.params,
      format: 'JSONCompact',
      timeoutMs: limits.timeoutMs,
      ...(ctx.signal ? { abort_signal: ctx.signal } : {}),
    })
    body = await result.json()
  } catch (err: unknown) {
    if (ctx.signal?.aborted) throw new QueryCancelled()
    if (isQueryTimeout(err)) throw queryTimedOut(err)
    const code = clickHouseErrorCode(err)
    const reason = code !== undefined ? USER_ERRORS[code] : undefined
    if (reason) throw refused(`The query could not be run: ${reason}.`, { cause: err })
    throw err
  }
  const meta = body.meta ?? []
  const zones = meta.map((m) => dateTimeZone(m.type))
  let rows = (body.data ?? []).map((row) =>
    row.map((value, i) => (typeof value === 'string' && zones[i] ? wallClockToIso(value, zones[i]) : value)),
  )
  const hasMore = rows.length > printed.limit
  if (hasMore) rows = rows.slice(0, printed.limit)
  return {
    results: rows,
    columns: printed.columns,
    types: printed.columns.map((c, i) => [c, meta[i]?.type ?? 'String']),
    hasMore,
  }
}
