import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { AnalyticsQuery } from '@burrow/contracts'

/**
 * The cache key of a query's answer: its canonical JSON (keys sorted, so that the order a client
 * writes fields in does not matter) with the project and the timezone its dates are read in.
 */
export function queryCacheKey(query: AnalyticsQuery, projectId: number, timezone: string): string {
  const text = canonicalize({ query, team_id: projectId, timezone }) ?? ''
  return `cache_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`
}
