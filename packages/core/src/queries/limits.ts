/** How analytics queries are bounded on this deployment (QUERY_* settings). */
export interface QueryLimits {
  /** ClickHouse's max_execution_time of each statement, in seconds. */
  maxExecutionSeconds: number
  /** Queries of one project that run at once on one server; the next waits for a slot, then is refused. */
  concurrencyPerProject: number
  /** How long a query waits for a slot before it is answered 429. */
  concurrencyWaitMs: number
  /** An answer this young is served from the cache by `blocking` requests. */
  cacheFreshSeconds: number
}

/** PostHog's defaults: three queries per team at a time, a minute per statement. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  maxExecutionSeconds: 60,
  concurrencyPerProject: 3,
  concurrencyWaitMs: 10_000,
  cacheFreshSeconds: 600,
}
