import { ingestionWarnings } from '@burrow/clickhouse'
import type { IngestionWarningsResponse } from '@burrow/contracts'
import type { CoreDeps } from '../deps'

/** PostHog lists the warnings of the last 30 days, and at most 50 of each type. */
const DAYS = 30
const EXAMPLES_PER_TYPE = 50

/** `2024-01-02T03:04:05.123456Z`, as PostHog's API renders the ClickHouse time. */
const isoOf = (clickHouseTime: string): string => `${clickHouseTime.replace(' ', 'T')}Z`

function detailsOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }
  } catch {
    return { value: text }
  }
}

/** A project's ingestion warnings of the last 30 days, by type, the type seen most recently first. */
export async function summariseIngestionWarnings(
  deps: Pick<CoreDeps, 'ch'>,
  projectId: number,
  search: string | undefined,
): Promise<IngestionWarningsResponse> {
  const groups = await ingestionWarnings.summariseIngestionWarnings(deps.ch, {
    teamId: projectId,
    days: DAYS,
    search: search === '' ? undefined : search,
    examples: EXAMPLES_PER_TYPE,
  })
  const results = groups.map((group) => {
    const warnings = group.examples.map((example) => ({
      type: group.type,
      timestamp: isoOf(example.timestamp),
      details: detailsOf(example.details),
    }))
    return {
      type: group.type,
      lastSeen: warnings[0]?.timestamp ?? null,
      sparkline: group.daily.map(({ day, count }): [number, string] => [count, day]),
      warnings,
      count: group.count,
    }
  })
  return {
    results: results.sort((a, b) => ((a.lastSeen ?? '') < (b.lastSeen ?? '') ? 1 : (a.lastSeen ?? '') > (b.lastSeen ?? '') ? -1 : 0)),
  }
}
