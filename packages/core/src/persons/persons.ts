import { cohortPeople, MUTATIONS_SYNC, persons as personsTable, toClickHouseDateTime, type PersonCopy } from '@burrow/clickhouse'
import { problems, type Page, type PageQuery, type Person } from '@burrow/contracts'
import { persons, type PersonWithDistinctIds, type PersonWrites } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { isUuid, serialId } from '../ids'
import { parsePropertyFilters } from '../events/propertyFilters'
import { pinCohortVersions } from '../cohorts/cohortDefinition'
import { searchTerms } from '../search'

/** The shared-cache key whose invalidation tells every server that a distinct id changed person. */
export const distinctIdKey = (projectId: number, distinctId: string) => `person-distinct:${projectId}:${distinctId}`

/**
 * Person properties whose change alone does not write a person (PostHog's
 * FILTERED_PERSON_UPDATE_PROPERTIES): values that change on nearly every page view or with the
 * network. They are written along with any other change, and to a person who lacks them.
 * Campaign parameters, the app's version and GeoIP's country and city names are not among them.
 */
const FILTERED_PERSON_UPDATE_PROPERTIES: ReadonlySet<string> = new Set([
  '$current_url',
  '$pathname',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$browser',
  '$browser_version',
  '$device_type',
  '$raw_user_agent',
  '$os',
  '$os_name',
  '$os_version',
  '$geoip_postal_code',
  '$geoip_time_zone',
  '$geoip_latitude',
  '$geoip_longitude',
  '$geoip_accuracy_radius',
  '$geoip_subdivision_1_code',
  '$geoip_subdivision_1_name',
  '$geoip_subdivision_2_code',
  '$geoip_subdivision_2_name',
  '$geoip_subdivision_3_code',
  '$geoip_subdivision_3_name',
  '$geoip_city_confidence',
  '$geoip_country_confidence',
  '$geoip_postal_code_confidence',
  '$geoip_subdivision_1_confidence',
  '$geoip_subdivision_2_confidence',
])

export const isFilteredPersonUpdateProperty = (key: string): boolean => FILTERED_PERSON_UPDATE_PROPERTIES.has(key)

const WRITTEN_PREFIX = 'persons-written:'

/**
 * The shared-cache key whose invalidation tells every server that these persons' properties were
 * written or that they were deleted: what a server remembers of them is stale. `origin` names the
 * server that wrote them (empty for the API), which knows already.
 */
export const personsWrittenKey = (projectId: number, personIds: readonly number[], origin = ''): string =>
  `${WRITTEN_PREFIX}${origin}:${projectId}:${personIds.join(',')}`

export function parsePersonsWrittenKey(key: string): { origin: string; projectId: number; personIds: number[] } | undefined {
  if (!key.startsWith(WRITTEN_PREFIX)) return undefined
  const [origin = '', projectId = '', ids = ''] = key.slice(WRITTEN_PREFIX.length).split(':')
  return { origin, projectId: Number(projectId), personIds: ids === '' ? [] : ids.split(',').map(Number) }
}

/** Copies what a write to persons changed into ClickHouse, where queries join them with events. */
export async function copyPersonWrites(deps: Pick<CoreDeps, 'ch'>, writes: PersonWrites): Promise<void> {
  // The latest version of each person wins, whichever order the writes came in.
  const latest = new Map<string, PersonCopy>()
  const keep = (copy: PersonCopy) => {
    const seen = latest.get(copy.id)
    if (!seen || seen.version <= copy.version) latest.set(copy.id, copy)
  }
  const copy = (p: PersonWrites['persons'][number], deleted: boolean): PersonCopy => ({
    id: p.uuid,
    created_at: toClickHouseDateTime(p.created_at.getTime()).slice(0, 23),
    team_id: p.project_id,
    properties: JSON.stringify(p.properties),
    is_identified: p.is_identified ? 1 : 0,
    is_deleted: deleted ? 1 : 0,
    // A deletion outranks every version the person had.
    version: deleted ? p.version + 1 : p.version,
  })
  for (const p of writes.persons) keep(copy(p, false))
  for (const p of writes.deletedPersons) keep(copy(p, true))
  await personsTable.insertPersons(deps.ch, [...latest.values()])
  await personsTable.insertDistinctIds(
    deps.ch,
    writes.distinctIds.map((d) => ({
      team_id: d.project_id,
      distinct_id: d.distinct_id,
      person_id: d.person_uuid,
      is_deleted: d.is_deleted ? 1 : 0,
      version: d.version,
    })),
  )
  for (const m of writes.staticCohortMembers) {
    await cohortPeople.insertMembers(deps.ch, { teamId: m.project_id, cohortId: m.cohort_id, version: m.version }, [m.person_uuid])
  }
}

/** Tells every server to forget what it cached about these distinct ids. */
export async function announceMovedDistinctIds(deps: Pick<CoreDeps, 'cache'>, writes: PersonWrites): Promise<void> {
  for (const d of writes.distinctIds) {
    if (d.moved) await deps.cache.publishInvalidation(distinctIdKey(d.project_id, d.distinct_id))
  }
}

/** PostHog's display name: the first display-name property the person has, else a distinct id. */
export function personName(
  person: Pick<PersonWithDistinctIds, 'properties' | 'distinct_ids' | 'uuid'>,
  displayProperties: readonly string[],
): string {
  for (const key of displayProperties) {
    const value = person.properties[key]
    if (typeof value === 'string' && value !== '') return value
    if (typeof value === 'number') return String(value)
  }
  return person.distinct_ids[0] ?? person.uuid
}

export function toApiPerson(row: PersonWithDistinctIds, displayProperties: readonly string[]): Person {
  return {
    id: row.id,
    uuid: row.uuid,
    name: personName(row, displayProperties),
    distinct_ids: row.distinct_ids,
    properties: row.properties,
    is_identified: row.is_identified,
    created_at: row.created_at.toISOString(),
  }
}

/** The person a URL names: PostHog addresses persons by integer id or by uuid. */
async function findPerson(deps: CoreDeps, projectId: number, idParam: string): Promise<PersonWithDistinctIds> {
  const id = serialId(idParam)
  const key = id !== null ? { id } : isUuid(idParam) ? { uuid: idParam } : undefined
  const row = key && (await persons.findPerson(deps.sql, projectId, key))
  if (!row) throw problems.notFound()
  return row
}

/** The uuid of the person an id or uuid names, or undefined when there is no such person. */
export async function personUuid(deps: CoreDeps, projectId: number, idParam: string): Promise<string | undefined> {
  try {
    return (await findPerson(deps, projectId, idParam)).uuid
  } catch {
    return undefined
  }
}

export interface PersonsFilter {
  search?: string | undefined
  distinctId?: string | undefined
  properties?: unknown
}

export interface DisplayedProject {
  id: number
  person_display_name_properties: string[]
}

/** Persons found in ClickHouse (where the filters run), shown as PostgreSQL holds them now. */
export async function listPersons(
  deps: CoreDeps,
  project: DisplayedProject,
  filter: PersonsFilter & { cohort?: { id: number; version: number } },
  page: PageQuery,
): Promise<Page<Person>> {
  const { count, uuids } = await personsTable.queryPersonIds(deps.ch, {
    teamId: project.id,
    search: searchTerms(filter.search),
    distinctId: filter.distinctId,
    properties: await pinCohortVersions(deps.sql, project.id, parsePropertyFilters(filter.properties)),
    cohort: filter.cohort,
    limit: page.limit,
    offset: page.offset,
  })
  const rows = await persons.personsByUuid(deps.sql, project.id, uuids)
  return { count, ...page, results: rows.map((r) => toApiPerson(r, project.person_display_name_properties)) }
}

export async function getPerson(deps: CoreDeps, project: DisplayedProject, idParam: string): Promise<Person> {
  return toApiPerson(await findPerson(deps, project.id, idParam), project.person_display_name_properties)
}

/**
 * Removes the person and its distinct ids (a later event of one of them makes a new person);
 * with `deleteEvents`, also every event of those distinct ids.
 */
export async function deletePerson(deps: CoreDeps, projectId: number, idParam: string, options: { deleteEvents: boolean }): Promise<void> {
  const found = await findPerson(deps, projectId, idParam)
  const deleted = await persons.deletePerson(deps.sql, projectId, found.id)
  if (!deleted) throw problems.notFound()
  await deps.cache.publishInvalidation(personsWrittenKey(projectId, [found.id]))
  await copyPersonWrites(deps, deleted.writes)
  await announceMovedDistinctIds(deps, deleted.writes)
  if (options.deleteEvents && deleted.person.distinct_ids.length > 0) {
    await deps.ch.writer.command({
      query: `ALTER TABLE ${deps.ch.layout.alterTarget('events')} DELETE WHERE team_id = {team_id:Int64} AND distinct_id IN {ids:Array(String)}`,
      query_params: { team_id: projectId, ids: deleted.person.distinct_ids },
      clickhouse_settings: { mutations_sync: MUTATIONS_SYNC },
    })
  }
}
