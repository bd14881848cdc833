import type { ResolvedDateRange } from '@burrow/contracts'

/** What a runner answers; the endpoint adds the caching and status fields around it. */
export interface RunnerOutput {
  results: unknown
  /** Kind-specific top-level fields (TrendsQuery's `hasMore`). */
  extra?: Record<string, unknown>
  resolvedDateRange?: ResolvedDateRange
  /** The query as HogQL, where the runner has one. */
  hogql?: string
}
