import { clickHouseErrorCode } from '@burrow/clickhouse'
import { ApiProblem } from '@burrow/contracts'
import type { QueryContext } from './context'

/** The team's id, as every statement names it. */
export const TEAM = '{team_id:Int64}'

/** ClickHouse's TIMEOUT_EXCEEDED and QUERY_WAS_CANCELLED. */
const TIMEOUT_EXCEEDED = 159
const QUERY_WAS_CANCELLED = 394

/** The query was cancelled by its caller (DELETE .../query/:id/ or a closed connection). */
export class QueryCancelled extends Error {
  constructor() {
    super('The query was cancelled.')
    this.name = 'QueryCancelled'
  }
}

/**
 * Runs one SELECT of a runner, bounded by the context's execution time (in the statement
 * itself, so that it holds on the embedded engine, whose settings would outlive the statement)
 * and cancelled with the context's signal.
 */
export async function select<T>(ctx: QueryContext, sql: string, params: Record<string, unknown>): Promise<T[]> {
  if (ctx.signal?.aborted) throw new QueryCancelled()
  const seconds = Math.max(1, Math.ceil(ctx.maxExecutionSeconds))
  try {
    const result = await ctx.ch.reader.query({
      query: `${sql}\nSETTINGS max_execution_time = ${seconds}, timeout_overflow_mode = 'throw'`,
      query_params: { ...params, team_id: ctx.teamId },
      format: 'JSONEachRow',
      ...(ctx.signal ? { abort_signal: ctx.signal } : {}),
    })
    return await result.json<T>()
  } catch (err: unknown) {
    if (ctx.signal?.aborted) throw new QueryCancelled()
    const code = clickHouseErrorCode(err)
    if (code === TIMEOUT_EXCEEDED) {
      throw new ApiProblem(
        'timeout_exceeded',
        'Query has hit the max execution time before completing. Try a shorter date range, fewer series or a breakdown with fewer values.',
        { cause: err },
      )
    }
    if (code === QUERY_WAS_CANCELLED) throw new QueryCancelled()
    throw err
  }
}

/** ClickHouse sends 64-bit integers as text in JSON. */
export const num = (value: unknown): number => {
  const n = Number(value)
  return Number.isFinite(n) ? n : 0
}
