import { createHash } from 'node:crypto'
import { clickHouseDateTimeToIso, events as eventsTable, toClickHouseDateTimeUs, type StoredEvent } from '@burrow/clickhouse'
import { problems, type ApiEvent, type Page, type PageQuery } from '@burrow/contracts'
import type { CoreDeps } from '../deps'
import { elementsFromChain } from './elementsChain'
import { parsePropertyFilters } from './propertyFilters'
import { isUuid } from '../ids'
import { requestDate } from '../apiDates'
import { persons, type PersonWithDistinctIds } from '@burrow/postgres'
import { personUuid } from '../persons/persons'
import { pinCohortVersions } from '../cohorts/cohortDefinition'

export interface EventsFilter {
  event?: string | undefined
  distinctId?: string | undefined
  personId?: string | undefined
  /** PostHog's property filter: a JSON list of `{key, value, operator, type}`. */
  properties?: unknown
  after?: string | undefined
  before?: string | undefined
  /** The project's timezone, in which relative dates count whole days. */
  timezone?: string | undefined
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

/** An absolute date and time as given, or a relative one (`-2d`, as PostHog takes them) as of now in the project's timezone. */
function checkedTime(attr: 'after' | 'before', value: string | undefined, timezone: string): string | undefined {
  if (value === undefined) return value
  const date = requestDate(value, new Date(), timezone)
  if (date === undefined) throw problems.validation(attr, `${JSON.stringify(value.slice(0, 100))} is not a date and time.`)
  return date
}

/** A page of the project's events, newest first. */
export async function listEvents(
  deps: CoreDeps,
  projectId: number,
  filter: EventsFilter,
  page: PageQuery,
  signal?: AbortSignal,
): Promise<Page<ApiEvent>> {
  const properties = await pinCohortVersions(deps.sql, projectId, parsePropertyFilters(filter.properties))
  const empty = { count: 0, ...page, results: [] }
  let personId: string | undefined
  if (filter.personId !== undefined) {
    // PostHog addresses a person by its integer id or its uuid; the events are those of all its distinct ids.
    personId = await personUuid(deps, projectId, filter.personId)
    if (personId === undefined) return empty
  }
  const { count, rows, more } = await eventsTable.queryEvents(deps.ch, {
    teamId: projectId,
    event: filter.event,
    distinctIds: filter.distinctId === undefined ? undefined : [filter.distinctId],
    personId,
    properties,
    after: checkedTime('after', filter.after, filter.timezone ?? 'UTC'),
    before: checkedTime('before', filter.before, filter.timezone ?? 'UTC'),
    limit: page.limit,
    offset: page.offset,
    signal,
  })
  const next = more ? nextPageParams(rows) : undefined
  const [total, results] = await Promise.all([count, withPersons(deps, projectId, rows)])
  return { count: total, ...page, results, ...(next ? { next_params: next } : {}) }
}

/**
 * The next page as a keyset step: the events before the last one's time, so that a deep page
 * costs what the first does. `before` is exclusive, so it is set a microsecond after the last
 * event, and `offset` skips the events of that same microsecond this page already holds (the
 * order within a microsecond is by uuid). A page that is all one microsecond pages on by offset.
 */
function nextPageParams(rows: StoredEvent[]): Record<string, string> | undefined {
  const last = rows.at(-1)?.timestamp
  if (last === undefined || rows[0]!.timestamp === last) return undefined
  const sameTime = rows.filter((r) => r.timestamp === last).length
  return { before: microsecondAfter(last), offset: String(sameTime) }
}

/** `2024-05-01T12:30:00.123456+00:00` one microsecond later, in the same form. */
function microsecondAfter(iso: string): string {
  const us = Date.parse(iso.slice(0, 23) + 'Z') * 1000 + Number(iso.slice(23, 26)) + 1
  return clickHouseDateTimeToIso(toClickHouseDateTimeUs(us))
}

export async function getEvent(deps: CoreDeps, projectId: number, id: string): Promise<ApiEvent> {
  if (!isUuid(id)) throw problems.validation(null, 'Invalid UUID')
  const row = await eventsTable.findEvent(deps.ch, projectId, id)
  if (!row) throw problems.notFound(`No events exist for event UUID ${id}`)
  const [event] = await withPersons(deps, projectId, [row])
  return event!
}

/**
 * How long an answer of property values is reused, by every instance: values are what a filter
 * picker offers, so a minute's staleness costs nothing, and a list reads a week of events.
 */
const PROPERTY_VALUES_TTL_SECONDS = 60

/** The most frequent values of an event property, with their counts. */
export async function propertyValues(
  deps: CoreDeps,
  projectId: number,
  query: { key?: string | undefined; value?: string | undefined; events?: string[] | undefined },
): Promise<Array<{ name: string; count: number }>> {
  if (!query.key) throw problems.validation('key', 'You must provide a key', 'required')
  const asked = { teamId: projectId, key: query.key, search: query.value, events: query.events ? [...query.events].sort() : undefined }
  const cacheKey = `event-property-values:${createHash('sha256').update(JSON.stringify(asked)).digest('base64url')}`
  const cached = await deps.cache.get(cacheKey)
  if (cached !== undefined) return JSON.parse(cached) as Array<{ name: string; count: number }>
  const values = await eventsTable.propertyValues(deps.ch, asked)
  await deps.cache.set(cacheKey, JSON.stringify(values), PROPERTY_VALUES_TTL_SECONDS)
  return values
}
