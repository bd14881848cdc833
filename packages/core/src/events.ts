import { events as eventsTable, type StoredEvent } from '@burrow/clickhouse'
import { problems, type ApiEvent, type Page, type PageQuery } from '@burrow/contracts'
import type { CoreDeps } from './deps'
import { elementsFromChain } from './elementsChain'
import { parsePropertyFilters } from './propertyFilters'
import { isUuid } from './ids'
import { relativeDate } from './relativeDate'
import { persons, type PersonWithDistinctIds } from '@burrow/postgres'
import { personUuid } from './persons'
import { pinCohortVersions } from './cohortDefinition'

export interface EventsFilter {
  event?: string | undefined
  distinctId?: string | undefined
  personId?: string | undefined
  /** PostHog's property filter: a JSON list of `{key, value, operator, type}`. */
  properties?: unknown
  after?: string | undefined
  before?: string | undefined
}

/** The few person properties PostHog shows beside an event. */
const EVENT_PERSON_PROPERTIES = ['email', 'name', 'username']

function eventPerson(person: PersonWithDistinctIds | undefined): ApiEvent['person'] {
  if (!person) return null
  const properties: Record<string, unknown> = {}
  for (const key of EVENT_PERSON_PROPERTIES) if (person.properties[key] !== undefined) properties[key] = person.properties[key]
  return { is_identified: person.is_identified, distinct_ids: person.distinct_ids.slice(0, 1), properties }
}

/** Events with the person each distinct id belongs to now. */
async function withPersons(deps: CoreDeps, projectId: number, rows: StoredEvent[]): Promise<ApiEvent[]> {
  const owners = await persons.personsForDistinctIds(deps.sql, projectId, [...new Set(rows.map((r) => r.distinct_id))])
  return rows.map((row) => ({ ...toApiEvent(row), person: eventPerson(owners.get(row.distinct_id)) }))
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

/** An absolute date and time as given, or a relative one (`-2d`, as PostHog takes them) as of now. */
function checkedTime(attr: 'after' | 'before', value: string | undefined): string | undefined {
  if (value === undefined) return value
  const relative = relativeDate(value, new Date())
  if (relative) return relative.toISOString()
  if (Number.isNaN(Date.parse(value))) {
    throw problems.validation(attr, `${JSON.stringify(value)} is not a date and time.`)
  }
  return value
}

/** A page of the project's events, newest first. */
export async function listEvents(deps: CoreDeps, projectId: number, filter: EventsFilter, page: PageQuery): Promise<Page<ApiEvent>> {
  const properties = await pinCohortVersions(deps.sql, projectId, parsePropertyFilters(filter.properties))
  const empty = { count: 0, ...page, results: [] }
  let personId: string | undefined
  if (filter.personId !== undefined) {
    // PostHog addresses a person by its integer id or its uuid; the events are those of all its distinct ids.
    personId = await personUuid(deps, projectId, filter.personId)
    if (personId === undefined) return empty
  }
  const { count, rows } = await eventsTable.queryEvents(deps.ch, {
    teamId: projectId,
    event: filter.event,
    distinctIds: filter.distinctId === undefined ? undefined : [filter.distinctId],
    personId,
    properties,
    after: checkedTime('after', filter.after),
    before: checkedTime('before', filter.before),
    limit: page.limit,
    offset: page.offset,
  })
  return { count, ...page, results: await withPersons(deps, projectId, rows) }
}

export async function getEvent(deps: CoreDeps, projectId: number, id: string): Promise<ApiEvent> {
  if (!isUuid(id)) throw problems.validation(null, 'Invalid UUID')
  const row = await eventsTable.findEvent(deps.ch, projectId, id)
  if (!row) throw problems.notFound(`No events exist for event UUID ${id}`)
  const [event] = await withPersons(deps, projectId, [row])
  return event!
}

/** The most frequent values of an event property, with their counts. */
export async function propertyValues(
  deps: CoreDeps,
  projectId: number,
  query: { key?: string | undefined; value?: string | undefined; events?: string[] | undefined },
): Promise<Array<{ name: string; count: number }>> {
  if (!query.key) throw problems.validation('key', 'You must provide a key', 'required')
  return eventsTable.propertyValues(deps.ch, { teamId: projectId, key: query.key, search: query.value, events: query.events })
}
