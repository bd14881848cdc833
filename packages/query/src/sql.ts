import { clickHouseErrorCode, isQueryTimeout } from '@burrow/clickhouse'
import { ApiProblem } from '@burrow/contracts'
import type { QueryContext } from './context'

/** The team's id, as every statement names it. */
export const TEAM = '{team_id:Int64}'

/** ClickHouse's QUERY_WAS_CANCELLED. */
const QUERY_WAS_CANCELLED = 394

/**
 * How much longer than ClickHouse's own limit (max_execution_time) the service waits before it
 * answers the caller and kills the statement itself: the engine's limit, when it holds, answers first.
 */
const WALL_CLOCK_GRACE_MS = 1_000

/** The memory one statement may take: the embedded engine shares the service's process, which must outlive a greedy query. */
const MAX_MEMORY_BYTES = 4 * 1024 ** 3

/** ClickHouse's MEMORY_LIMIT_EXCEEDED: the statement needed more than MAX_MEMORY_BYTES. */
const MEMORY_LIMIT_EXCEEDED = 241

/**
 * PostHog's answer to a query that hit its time limit (ClickHouse's TIMEOUT_EXCEEDED: a 400
 * `timeout_exceeded` with this first sentence), with what to do about it.
 */
export function queryTimedOut(cause?: unknown): ApiProblem {
  return new ApiProblem(
    'timeout_exceeded',
    'Query has hit the max execution time before completing. Try a shorter date range, fewer series or a breakdown with fewer values.',
    cause === undefined ? {} : { cause },
  )
}

/** A statement that needed more memory than MAX_MEMORY_BYTES, as a 400 saying what to change. */
/**
 * The most characters of SQL one statement of a runner may have (values travel as parameters, so
 * this is the query's shape: its series, steps, filters, action steps and expressions). ClickHouse
 * parses a statement before any limit of its own applies, and reads at most 256 KiB of it.
 */
const MAX_STATEMENT_CHARS = 200_000

/** Refuses a statement over MAX_STATEMENT_CHARS before ClickHouse reads it. */
export function checkStatementSize(sql: string): void {
  if (sql.length <= MAX_STATEMENT_CHARS) return
  throw new ApiProblem(
    'invalid_input',
    `The query is too large to run (${sql.length.toLocaleString('en')} characters of SQL in one statement, at most ${MAX_STATEMENT_CHARS.toLocaleString('en')}). Use fewer series, steps, filters or subqueries, or actions with fewer steps.`,
    { attr: null },
  )
}

function tooMuchMemory(cause: unknown): ApiProblem {
  return new ApiProblem(
    'invalid_input',
    'The query could not be run: the query needs more memory than it is allowed. Try a shorter date range, fewer series or a breakdown with fewer values.',
    { attr: null, cause },
  )
}

/**
 * The time a statement of the query may take, in milliseconds: what is left of the query's
 * deadline, or the whole limit for each statement without one. Throws PostHog's timeout when
 * nothing is left.
 */
export function statementBudgetMs(ctx: QueryContext): number {
  const left = ctx.deadline === undefined ? ctx.maxExecutionSeconds * 1000 : ctx.deadline - Date.now()
  if (left <= 0) throw queryTimedOut()
  return left
}

/**
 * The read options that bound a statement in time and memory: ClickHouse's own limits in the statement's
 * SETTINGS (`settings`; in the statement, so that it holds on the embedded engine, whose settings
 * would outlive it), and the service's wall clock (`timeoutMs`), which kills the statement
 * if the engine's limit does not hold.
 */
export function statementLimits(ctx: QueryContext): { settings: string; timeoutMs: number } {
  const budgetMs = statementBudgetMs(ctx)
  return {
    settings: `max_execution_time = ${Math.max(1, Math.ceil(budgetMs / 1000))}, timeout_overflow_mode = 'throw', max_memory_usage = ${MAX_MEMORY_BYTES}`,
    timeoutMs: budgetMs + WALL_CLOCK_GRACE_MS,
  }
}

/** The query was cancelled by its caller (DELETE .../query/:id/ or a closed connection). */
export class QueryCancelled extends Error {
  constructor() {
    super('The query was cancelled.')
    this.name = 'QueryCancelled'
  }
}

/**
 * Runs one SELECT of a runner within the query's time (statementLimits) and cancelled with the
 * context's signal.
 */
export async function select<T>(ctx: QueryContext, sql: string, params: Record<string, unknown>): Promise<T[]> {
  if (ctx.signal?.aborted) throw new QueryCancelled()
  checkStatementSize(sql)
  const limits = statementLimits(ctx)
  try {
    const result = await ctx.ch.reader.query({
      query: `${sql}\nSETTINGS ${limits.settings}`,
      query_params: { ...params, team_id: ctx.teamId },
      format: 'JSONEachRow',
      timeoutMs: limits.timeoutMs,
      ...(ctx.signal ? { abort_signal: ctx.signal } : {}),
    })
    return await result.json<T>()
  } catch (err: unknown) {
    if (ctx.signal?.aborted) throw new QueryCancelled()
    if (isQueryTimeout(err)) throw queryTimedOut(err)
    const code = clickHouseErrorCode(err)
    if (code === QUERY_WAS_CANCELLED) throw new QueryCancelled()
    if (code === MEMORY_LIMIT_EXCEEDED) throw tooMuchMemory(err)
    throw err
  }
}

/** ClickHouse sends 64-bit integers as text in JSON. */
export const num = (value: unknown): number => {
  const n = Number(value)
  return Number.isFinite(n) ? n : 0
}
