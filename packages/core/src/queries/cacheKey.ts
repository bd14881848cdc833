import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { AnalyticsQuery } from '@burrow/contracts'

/**
 * The cache key of a query's answer: its canonical JSON (keys sorted, so that the order a client
 * writes fields in does not matter) with the project, the timezone its dates are read in, and the
 * project's settings the answer depends on (`settings`: test account filters, week start), so
 * that changing one of those is not answered from before.
 */
export function queryCacheKey(query: AnalyticsQuery, projectId: number, timezone: string, settings: Record<string, unknown> = {}): string {
  const text = canonicalize({ query, team_id: projectId, timezone, ...settings }) ?? ''
  return `cache_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`
}
