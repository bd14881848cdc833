import { randomUUID } from 'node:crypto'
import { clickHouseErrorCode } from '@burrow/clickhouse'
import type { QueryContext } from '../context'
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
const TIMEOUT = 159

/** The memory one query may take: the embedded engine shares the service's process, which must outlive a greedy query. */
const MAX_MEMORY_BYTES = 4 * 1024 ** 3

/**
 * ClickHouse's error code. The embedded engine's client throws its own copy of ClickHouseError
 * (not an instance of ours), with the code as text, or only in its cause's message.
 */
function errorCode(err: unknown): number | undefined {
  const code = clickHouseErrorCode(err)
  if (code !== undefined) return code
  if (!(err instanceof Error)) return undefined
  const own = (err as { code?: unknown }).code
  if (typeof own === 'string' && /^\d+$/.test(own)) return Number(own)
  const texts = [err.message, err.cause instanceof Error ? err.cause.message : '']
  for (const text of texts) {
    const match = /\bCode: (\d+)\. DB::Exception/.exec(text)
    if (match) return Number(match[1])
  }
  return undefined
}

/** Read-only, time-bounded settings of every statement a HogQL query runs. */
function settingsClause(ctx: QueryContext): string {
  const seconds = Math.max(1, Math.floor(ctx.maxExecutionSeconds))
  return [
    'readonly = 2',
    `max_execution_time = ${seconds}`,
    `max_memory_usage = ${MAX_MEMORY_BYTES}`,
    "timeout_overflow_mode = 'throw'",
    'output_format_json_quote_64bit_integers = 0',
    // The events table's person join reads a missing match as empty, ClickHouse's default.
    'join_use_nulls = 0',
    // NULL IN (NULL) holds, as in PostHog's HogQL.
    'transform_null_in = 1',
  ].join(', ')
}

/**
 * The embedded engine (chDB 3.4) keeps what a failed statement had written (a JSON header, the
 * rows before the error) and hands it out in front of the next statement's answer, whoever asks
 * it: a statement answered at once takes it away. Harmless on a server.
 */
async function drain(ctx: QueryContext): Promise<void> {
  try {
    const result = await ctx.ch.reader.query({ query: 'SELECT 1', format: 'JSONEachRow' })
    await result.text()
  } catch {
    // Draining is best effort; the failure being reported matters more.
  }
}

const KILL_RETRY_MS = 200

/**
 * Cancels the statement carrying `tag`. Aborting the request alone is not enough: the embedded
 * engine runs a statement to its end after its caller gave up, and a server may too.
 */
async function kill(ctx: QueryContext, tag: string): Promise<void> {
  // The tag is ours (letters, digits and dashes): KILL QUERY takes no query parameters.
  await ctx.ch.writer.command({ query: `KILL QUERY WHERE query LIKE '%${tag}%' AND query NOT LIKE '%KILL QUERY%' ASYNC` })
}

/** Runs a printed query; user-caused ClickHouse failures become 400s without ClickHouse's text. */
export async function executePrinted(ctx: QueryContext, printed: PrintedQuery): Promise<ExecutedQuery> {
  ctx.signal?.throwIfAborted()
  // A tag of our own in the statement's text (its log comment), to find it again to cancel it.
  const tag = `hogql ${randomUUID()}`
  let settled = false
  // Asked again until the statement ends: an abort can come before ClickHouse has started it.
  const onAbort = () => {
    if (settled) return
    kill(ctx, tag)
      .catch(() => {
        // The statement may have ended already; its own failure is what the caller sees.
      })
      .finally(() => {
        if (!settled) setTimeout(onAbort, KILL_RETRY_MS).unref()
      })
  }
  ctx.signal?.addEventListener('abort', onAbort, { once: true })
  let body: { meta?: Array<{ name: string; type: string }>; data?: unknown[][] }
  try {
    const result = await ctx.ch.reader.query({
      query: `${printed.sql} SETTINGS ${settingsClause(ctx)}, log_comment = '${tag}'`,
      query_params: printed.params,
      format: 'JSONCompact',
      ...(ctx.signal ? { abort_signal: ctx.signal } : {}),
    })
    body = await result.json()
  } catch (err: unknown) {
    await drain(ctx)
    const code = errorCode(err)
    if (code === TIMEOUT) {
      throw refused(
        `The query took longer than ${ctx.maxExecutionSeconds} seconds, its limit. Narrow it (a shorter date range, fewer events) and try again.`,
        { cause: err },
      )
    }
    const reason = code !== undefined ? USER_ERRORS[code] : undefined
    if (reason) throw refused(`The query could not be run: ${reason}.`, { cause: err })
    throw err
  } finally {
    settled = true
    ctx.signal?.removeEventListener('abort', onAbort)
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
