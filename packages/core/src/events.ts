import { events as eventsTable, type StoredEvent } from '@burrow/clickhouse'
import type { ApiEvent, Page, PageQuery } from '@burrow/contracts'
import type { CoreDeps } from './deps'
import { elementsFromChain } from './elementsChain'

export interface EventsFilter {
  event?: string | undefined
  distinctId?: string | undefined
  after?: string | undefined
  before?: string | undefined
}

export function toApiEvent(row: StoredEvent): ApiEvent {
  let properties: Record<string, unknown>
  try {
    properties = JSON.parse(row.properties) as Record<string, unknown>
  } catch {
    properties = {}
  }
  return {
    id: row.uuid,
    distinct_id: row.distinct_id,
    properties,
    event: row.event,
    timestamp: row.timestamp,
    person: null,
    elements: elementsFromChain(row.elements_chain),
    elements_chain: row.elements_chain,
  }
}

/** A page of the project's events, newest first. */
export async function listEvents(
  deps: CoreDeps,
  projectId: number,
  filter: EventsFilter,
  page: PageQuery,
): Promise<Page<ApiEvent>> {
  const { count, rows } = await eventsTable.queryEvents(deps.ch, {
    teamId: projectId,
    event: filter.event,
    distinctIds: filter.distinctId === undefined ? undefined : [filter.distinctId],
    after: filter.after,
    before: filter.before,
    limit: page.limit,
    offset: page.offset,
  })
  return { count, ...page, results: rows.map(toApiEvent) }
}
