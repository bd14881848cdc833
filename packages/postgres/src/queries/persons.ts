import { randomUUID } from 'node:crypto'
import type { Pool, Sql } from '../connect'

export interface PersonRow {
  id: number
  uuid: string
  project_id: number
  properties: Record<string, unknown>
  is_identified: boolean
  version: number
  created_at: Date
}

/** A distinct id's mapping as ClickHouse's person_distinct_id2 keeps it. */
export interface DistinctIdRow {
  project_id: number
  distinct_id: string
  person_uuid: string
  version: number
  is_deleted: boolean
  /** The id left a person (merged or deleted): servers that cached its person must forget it. */
  moved: boolean
}

export interface PersonRef {
  id: number
  uuid: string
}

/** What a batch of events writes to one person's properties, each key under the last operation on it. */
export interface PropertyChange {
  set: Record<string, unknown>
  setOnce: Record<string, unknown>
  unset: string[]
}

/** What a write to persons changed, for the ClickHouse copies. */
/** A person who joined a static cohort's current members (through a merge), for ClickHouse's copy of them. */
export interface StaticCohortMember {
  project_id: number
  cohort_id: number
  /** The cohort's members_version: the calculation whose members ClickHouse readers take. */
  version: number
  person_uuid: string
}

export interface PersonWrites {
  persons: PersonRow[]
  deletedPersons: PersonRow[]
  distinctIds: DistinctIdRow[]
  staticCohortMembers: StaticCohortMember[]
}

export const emptyWrites = (): PersonWrites => ({ persons: [], deletedPersons: [], distinctIds: [], staticCohortMembers: [] })

const PERSON_COLUMNS = 'p.id::int as id, p.uuid, p.project_id, p.properties, p.is_identified, p.version::int as version, p.created_at'

/** The persons the distinct ids belong to now; unknown ids are absent from the answer. */
export async function personsOfDistinctIds(sql: Sql, projectId: number, distinctIds: readonly string[]): Promise<Map<string, PersonRef>> {
  if (distinctIds.length === 0) return new Map()
  const rows = await sql<{ distinct_id: string; id: number; uuid: string }[]>`
    select d.distinct_id, p.id::int as id, p.uuid
    from person_distinct_ids d join persons p on p.id = d.person_id
    where d.project_id = ${projectId} and d.distinct_id = any(${distinctIds as string[]})`
  return new Map(rows.map((r) => [r.distinct_id, { id: r.id, uuid: r.uuid }]))
}

/** A distinct id's person, with its properties when they were asked for. */
export interface PersonLookup extends PersonRef {
  properties?: Record<string, unknown>
}

/**
 * The persons the distinct ids belong to now, in one query, with the properties of those of the
 * ids in `withProperties` (what a batch's property changes are decided against).
 */
export async function lookUpPersons(
  sql: Sql,
  projectId: number,
  distinctIds: readonly string[],
  withProperties: readonly string[],
): Promise<Map<string, PersonLookup>> {
  if (distinctIds.length === 0) return new Map()
  const rows = await sql<{ distinct_id: string; id: number; uuid: string; properties: Record<string, unknown> | null }[]>`
    select d.distinct_id, p.id::int as id, p.uuid,
      case when d.distinct_id = any(${withProperties as string[]}) then p.properties end as properties
    from person_distinct_ids d join persons p on p.id = d.person_id
    where d.project_id = ${projectId} and d.distinct_id = any(${distinctIds as string[]})`
  return new Map(
    rows.map((r) => [
      r.distinct_id,
      r.properties === null ? { id: r.id, uuid: r.uuid } : { id: r.id, uuid: r.uuid, properties: r.properties },
    ]),
  )
}

/** The properties of the persons with these ids; persons no longer there are absent from the answer. */
export async function propertiesOfPersons(
  sql: Sql,
  projectId: number,
  ids: readonly number[],
): Promise<Map<number, Record<string, unknown>>> {
  if (ids.length === 0) return new Map()
  const rows = await sql<{ id: number; properties: Record<string, unknown> }[]>`
    select id::int as id, properties from persons where project_id = ${projectId} and id = any(${ids as number[]}::bigint[])`
  return new Map(rows.map((r) => [r.id, r.properties]))
}

/**
 * Creates a person for each distinct id that has none. Another server may create some of them
 * at the same moment: the distinct id's unique key decides, the persons made here for the ids
 * it lost are removed, and the answer maps every id to the person that won.
 */
export interface NewPerson {
  distinctId: string
  /** When its first event happened. */
  createdAt: Date
  /** What its first event set, as PostHog creates a person with them. */
  properties?: Record<string, unknown>
}

export async function createPersons(
  pool: Pool,
  projectId: number,
  newPersons: readonly NewPerson[],
): Promise<{ refs: Map<string, PersonRef>; writes: PersonWrites }> {
  const writes = emptyWrites()
  if (newPersons.length === 0) return { refs: new Map(), writes }
  // One lock order for every server: sorted ids cannot deadlock each other.
  const sorted = [...new Set(newPersons.map((p) => p.distinctId))].sort()
  const uuids = sorted.map(() => randomUUID())
  const byId = new Map(newPersons.map((p) => [p.distinctId, p]))
  const input = sorted.map((d, i) => {
    const person = byId.get(d)!
    return { u: uuids[i], t: person.createdAt.toISOString(), props: person.properties ?? {} }
  })
  const refs = await pool.begin(async (tx) => {
    const created = await tx<PersonRow[]>`
      insert into persons as p (uuid, project_id, created_at, properties)
      select x.u, ${projectId}, x.t, x.props
      from jsonb_to_recordset(${tx.json(input as never)}) as x(u uuid, t timestamptz, props jsonb)
      returning ${tx.unsafe(PERSON_COLUMNS)}`
    const byUuid = new Map(created.map((p) => [p.uuid, p]))
    const personIds = uuids.map((u) => byUuid.get(u)!.id)
    const won = await tx<{ distinct_id: string; version: number }[]>`
      insert into person_distinct_ids (project_id, distinct_id, person_id)
      select ${projectId}, d, p from unnest(${sorted}::text[], ${personIds}::bigint[]) as t(d, p) order by d
      on conflict (project_id, distinct_id) do nothing
      returning distinct_id, version::int as version`
    const wonIds = new Map(won.map((r) => [r.distinct_id, r.version]))
    const refs = new Map<string, PersonRef>()
    const lost: string[] = []
    sorted.forEach((distinctId, i) => {
      const person = byUuid.get(uuids[i]!)!
      if (wonIds.has(distinctId)) {
        refs.set(distinctId, { id: person.id, uuid: person.uuid })
        writes.persons.push(person)
        const version = wonIds.get(distinctId)!
        writes.distinctIds.push({
          project_id: projectId,
          distinct_id: distinctId,
          person_uuid: person.uuid,
          version,
          is_deleted: false,
          moved: false,
        })
      } else lost.push(distinctId)
    })
    if (lost.length > 0) {
      const orphans = sorted.flatMap((d, i) => (wonIds.has(d) ? [] : [byUuid.get(uuids[i]!)!.id]))
      await tx`delete from persons where id = any(${orphans}::bigint[])`
      for (const [d, ref] of await personsOfDistinctIds(tx, projectId, lost)) refs.set(d, ref)
    }
    return refs
  })
  return { refs, writes }
}

/**
 * Writes what each person's changes of a batch make of its properties, in one statement:
 * `$set_once` fills only missing keys, `$set` overwrites, `$unset` removes, applied to the person
 * as it is now (locked), so that a value another server wrote meanwhile is kept where the changes
 * do not name it. A person whose properties would not change keeps its version. Answers the
 * changed persons, the unchanged ones with the properties they hold, and the ids it did not find
 * (merged away or deleted meanwhile) so the caller can look their distinct ids up again.
 *
 * Found means locked: a person deleted by a merge this statement waited for is still in the
 * statement's snapshot, so reading `persons` again would count it found and drop its change.
 */
export async function updatePersonProperties(
  sql: Sql,
  changes: ReadonlyMap<number, PropertyChange>,
): Promise<{ updated: PersonRow[]; unchanged: UnchangedPerson[]; missing: number[] }> {
  if (changes.size === 0) return { updated: [], unchanged: [], missing: [] }
  const ids = [...changes.keys()].sort((a, b) => a - b)
  const input = ids.map((id) => {
    const change = changes.get(id)!
    return { id, set: { ...change.set }, set_once: { ...change.setOnce }, unset: change.unset }
  })
  const rows = await sql<(PersonRow & { changed: boolean })[]>`
    with input as (
      select * from jsonb_to_recordset(${sql.json(input as never)}) as t(id bigint, set_once jsonb, set jsonb, unset jsonb)
    ),
    target as (
      select p.id, p.properties as current,
        ((i.set_once || p.properties) || i.set) - array(select jsonb_array_elements_text(i.unset)) as properties
      from persons p join input i on i.id = p.id
      order by p.id
      for update of p
    ),
    changed as (
      update persons p set properties = t.properties, version = p.version + 1, properties_updated_at = now()
      from target t where t.id = p.id and t.properties is distinct from p.properties
      returning p.*
    )
    select ${sql.unsafe(PERSON_COLUMNS)}, true as changed from changed p
    union all
    select id::int, null, null, current, null, null, null, false from target where id not in (select id from changed)`
  const found = new Set(rows.map((r) => r.id))
  return {
    updated: rows.filter((r) => r.changed).map(({ changed: _, ...person }) => person),
    unchanged: rows.filter((r) => !r.changed).map((r) => ({ id: r.id, properties: r.properties })),
    missing: ids.filter((id) => !found.has(id)),
  }
}

/** A person a property update left as it was, with the properties the statement read. */
export interface UnchangedPerson {
  id: number
  properties: Record<string, unknown>
}

export type MergeOutcome = { kind: 'merged' | 'linked' | 'created' | 'unchanged' | 'refused'; person: PersonRef; writes: PersonWrites }

/** A person a merge has locked, as the merge policy sees it. */
export interface MergePerson {
  id: number
  isIdentified: boolean
  properties: Record<string, unknown>
  createdAt: Date
  /** When its properties last changed. */
  propertiesUpdatedAt: Date
}

/** What a merge of two distinct ids has read, with their persons locked, before it writes. */
export interface MergeState {
  distinctId: string
  otherId: string
  /** The person `distinctId` belongs to; absent when it has none. */
  mine?: MergePerson
  /** The person `otherId` belongs to; the same person as `mine` when both ids are on one. */
  other?: MergePerson
}

/** The fields of the person a merge keeps, as the merge leaves them. */
export interface MergedPerson {
  properties: Record<string, unknown>
  isIdentified: boolean
  createdAt: Date
  propertiesUpdatedAt: Date
}

/** The writes a merge carries out, in the transaction that read its state. */
export type MergePlan =
  | { kind: 'create'; distinctIds: string[]; isIdentified: boolean; createdAt: Date }
  | { kind: 'link'; personId: number; distinctId: string; markIdentified: boolean }
  | { kind: 'unchanged'; personId: number; markIdentified: boolean }
  | { kind: 'refuse'; personId: number }
  | { kind: 'merge'; intoId: number; fromId: number; person: MergedPerson }

export type MergePolicy = (state: MergeState) => MergePlan

type LockedPerson = PersonRow & { properties_updated_at: Date }

const asMergePerson = (p: LockedPerson): MergePerson => ({
  id: p.id,
  isIdentified: p.is_identified,
  properties: p.properties,
  createdAt: p.created_at,
  propertiesUpdatedAt: p.properties_updated_at,
})

/**
 * PostHog's `$identify` / `$create_alias`: puts `distinctId` and `otherId` on one person as
 * `decide` plans it from the ids' persons. Runs in one transaction: the ids' mappings are locked
 * in distinct id order, then their persons in id order, and `decide` sees them as locked, so the
 * plan holds until the transaction ends. A concurrent merge or creation of the same ids makes it
 * fail with a unique or deadlock error, which the caller retries.
 */
export async function mergeDistinctIds(
  pool: Pool,
  projectId: number,
  merge: { distinctId: string; otherId: string; decide: MergePolicy },
): Promise<MergeOutcome> {
  const { distinctId, otherId } = merge
  return pool.begin(async (tx) => {
    const writes = emptyWrites()
    const owners = await tx<{ distinct_id: string; person_id: number }[]>`
      select distinct_id, person_id::int as person_id from person_distinct_ids
      where project_id = ${projectId} and distinct_id in (${distinctId}, ${otherId})
      order by distinct_id for update`
    const ownerOf = (d: string) => owners.find((o) => o.distinct_id === d)?.person_id
    const mine = ownerOf(distinctId)
    const other = ownerOf(otherId)
    const ownerIds = [...new Set([mine, other].filter((id) => id !== undefined))]
    const locked =
      ownerIds.length === 0
        ? []
        : await tx<LockedPerson[]>`
          select ${tx.unsafe(PERSON_COLUMNS)}, p.properties_updated_at from persons p
          where id = any(${ownerIds}::bigint[]) order by id for update`
    const lockedPerson = (id: number) => {
      const person = locked.find((p) => p.id === id)
      if (!person) throw new Error(`person ${id} is not one the merge has locked`)
      return person
    }
    const plan = merge.decide({
      distinctId,
      otherId,
      mine: mine === undefined ? undefined : asMergePerson(lockedPerson(mine)),
      other: other === undefined ? undefined : asMergePerson(lockedPerson(other)),
    })

    const markIdentified = async (personId: number) => {
      const changed = await tx<PersonRow[]>`
        update persons p set is_identified = true, version = version + 1
        where id = ${personId} returning ${tx.unsafe(PERSON_COLUMNS)}`
      writes.persons.push(...changed)
    }
    const link = async (personId: number, personUuid: string, d: string, order?: string) => {
      const [row] = await tx<{ version: number }[]>`
        insert into person_distinct_ids (project_id, distinct_id, person_id, id)
        values (${projectId}, ${d}, ${personId}, coalesce(${order ?? null}::bigint, nextval('person_distinct_ids_id_seq')))
        returning version::int as version`
      writes.distinctIds.push({
        project_id: projectId,
        distinct_id: d,
        person_uuid: personUuid,
        version: row!.version,
        is_deleted: false,
        moved: false,
      })
    }

    switch (plan.kind) {
      case 'create': {
        const [person] = await tx<PersonRow[]>`
          insert into persons as p (uuid, project_id, is_identified, created_at)
          values (${randomUUID()}, ${projectId}, ${plan.isIdentified}, ${plan.createdAt})
          returning ${tx.unsafe(PERSON_COLUMNS)}`
        writes.persons.push(person!)
        // The ids are listed in the plan's order (the event's own first, as PostHog creates the
        // person), but inserted sorted: one lock order for every server cannot deadlock.
        const orders = await tx<{ id: string }[]>`
          select nextval('person_distinct_ids_id_seq')::text as id from generate_series(1, ${plan.distinctIds.length})`
        const orderOf = new Map(plan.distinctIds.map((d, i) => [d, orders[i]!.id]))
        for (const d of [...plan.distinctIds].sort()) await link(person!.id, person!.uuid, d, orderOf.get(d))
        return { kind: 'created', person: { id: person!.id, uuid: person!.uuid }, writes }
      }
      case 'link': {
        const person = lockedPerson(plan.personId)
        await link(person.id, person.uuid, plan.distinctId)
        if (plan.markIdentified) await markIdentified(person.id)
        return { kind: 'linked', person: { id: person.id, uuid: person.uuid }, writes }
      }
      case 'unchanged': {
        const person = lockedPerson(plan.personId)
        if (plan.markIdentified) await markIdentified(person.id)
        return { kind: 'unchanged', person: { id: person.id, uuid: person.uuid }, writes }
      }
      case 'refuse': {
        const person = lockedPerson(plan.personId)
        return { kind: 'refused', person: { id: person.id, uuid: person.uuid }, writes }
      }
      case 'merge': {
        const target = lockedPerson(plan.intoId)
        const source = lockedPerson(plan.fromId)
        const [merged] = await tx<PersonRow[]>`
          update persons p set
            properties = ${tx.json(plan.person.properties as never)},
            is_identified = ${plan.person.isIdentified},
            created_at = ${plan.person.createdAt},
            properties_updated_at = ${plan.person.propertiesUpdatedAt},
            version = p.version + 1
          where id = ${target.id} returning ${tx.unsafe(PERSON_COLUMNS)}`
        writes.persons.push(merged!)
        const moved = await tx<{ distinct_id: string; version: number }[]>`
          update person_distinct_ids set person_id = ${target.id}, version = nextval('person_distinct_id_versions')
          where person_id = ${source.id} returning distinct_id, version::int as version`
        for (const m of moved) {
          writes.distinctIds.push({
            project_id: projectId,
            distinct_id: m.distinct_id,
            person_uuid: target.uuid,
            version: m.version,
            is_deleted: false,
            moved: true,
          })
        }
        // The static cohorts keep their member under its new person, in ClickHouse's copy too.
        const joined = await tx<{ cohort_id: number; members_version: number }[]>`
          with moved as (
            insert into cohort_people (cohort_id, person_id)
            select cohort_id, ${target.id} from cohort_people where person_id = ${source.id}
            on conflict do nothing
            returning cohort_id
          )
          select c.id::int as cohort_id, c.members_version::int as members_version
          from moved m join cohorts c on c.id = m.cohort_id where c.members_version is not null`
        for (const j of joined) {
          writes.staticCohortMembers.push({
            project_id: projectId,
            cohort_id: j.cohort_id,
            version: j.members_version,
            person_uuid: target.uuid,
          })
        }
        await tx`
          insert into feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
          select project_id, ${target.id}, feature_flag_key, hash_key from feature_flag_hash_key_overrides where person_id = ${source.id}
          on conflict do nothing`
        await tx`delete from persons where id = ${source.id}`
        writes.deletedPersons.push(source)
        return { kind: 'merged', person: { id: target.id, uuid: target.uuid }, writes }
      }
    }
  })
}

export interface PersonWithDistinctIds extends PersonRow {
  distinct_ids: string[]
}

const WITH_DISTINCT_IDS = `${PERSON_COLUMNS},
  coalesce((select array_agg(d.distinct_id order by d.id) from person_distinct_ids d where d.person_id = p.id), '{}') as distinct_ids`

export async function findPerson(
  sql: Sql,
  projectId: number,
  key: { id: number } | { uuid: string },
): Promise<PersonWithDistinctIds | undefined> {
  const match = 'id' in key ? sql`p.id = ${key.id}` : sql`p.uuid = ${key.uuid}`
  const [row] = await sql<PersonWithDistinctIds[]>`
    select ${sql.unsafe(WITH_DISTINCT_IDS)} from persons p where p.project_id = ${projectId} and ${match}`
  return row
}

/** The persons with these uuids, in the order given; uuids no longer in the database are skipped. */
export async function personsByUuid(sql: Sql, projectId: number, uuids: readonly string[]): Promise<PersonWithDistinctIds[]> {
  if (uuids.length === 0) return []
  const rows = await sql<PersonWithDistinctIds[]>`
    select ${sql.unsafe(WITH_DISTINCT_IDS)} from persons p
    where p.project_id = ${projectId} and p.uuid = any(${uuids as string[]}::uuid[])`
  const byUuid = new Map(rows.map((r) => [r.uuid, r]))
  return uuids.flatMap((u) => byUuid.get(u) ?? [])
}

/** The persons of distinct ids, keyed by distinct id, for showing who did an event. */
export async function personsForDistinctIds(
  sql: Sql,
  projectId: number,
  distinctIds: readonly string[],
): Promise<Map<string, PersonWithDistinctIds>> {
  if (distinctIds.length === 0) return new Map()
  const rows = await sql<(PersonWithDistinctIds & { for_distinct_id: string })[]>`
    select d0.distinct_id as for_distinct_id, ${sql.unsafe(WITH_DISTINCT_IDS)}
    from person_distinct_ids d0 join persons p on p.id = d0.person_id
    where d0.project_id = ${projectId} and d0.distinct_id = any(${distinctIds as string[]})`
  return new Map(rows.map(({ for_distinct_id, ...person }) => [for_distinct_id, person]))
}

/** Removes a person and its distinct ids; answers what ClickHouse must mark deleted. */
export async function deletePerson(
  pool: Pool,
  projectId: number,
  id: number,
): Promise<{ person: PersonWithDistinctIds; writes: PersonWrites } | undefined> {
  return pool.begin(async (tx) => {
    const [person] = await tx<PersonWithDistinctIds[]>`
      select ${tx.unsafe(WITH_DISTINCT_IDS)} from persons p where p.project_id = ${projectId} and p.id = ${id} for update`
    if (!person) return undefined
    const ids = await tx<{ distinct_id: string; version: number }[]>`
      delete from person_distinct_ids where person_id = ${id}
      returning distinct_id, nextval('person_distinct_id_versions')::int as version`
    await tx`delete from persons where id = ${id}`
    const writes = emptyWrites()
    writes.deletedPersons.push(person)
    for (const d of ids) {
      writes.distinctIds.push({
        project_id: projectId,
        distinct_id: d.distinct_id,
        person_uuid: person.uuid,
        version: d.version,
        is_deleted: true,
        moved: true,
      })
    }
    return { person, writes }
  })
}

/** What flag evaluation needs of the person a distinct id belongs to. */
export interface FlagPerson {
  properties: Record<string, unknown>
  /** Static cohorts the person is a member of. */
  staticCohorts: number[]
  /** Experience-continuity bucketing ids by flag key. */
  hashKeys: Record<string, string>
}

/**
 * The person of a distinct id for flag evaluation, in one round trip. With `continuity`, first
 * records the anonymous id as the bucketing id of those flags for the persons of both ids that
 * have none yet (the first override wins).
 */
export async function flagPersonOf(
  sql: Sql,
  projectId: number,
  distinctId: string,
  continuity?: { anonId: string; flagKeys: string[] },
): Promise<FlagPerson | undefined> {
  if (continuity && continuity.flagKeys.length > 0) {
    await sql`
      insert into feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
      select ${projectId}, d.person_id, k, ${continuity.anonId}
      from person_distinct_ids d cross join unnest(${continuity.flagKeys}::text[]) as k
      where d.project_id = ${projectId} and d.distinct_id in (${distinctId}, ${continuity.anonId})
      on conflict do nothing`
  }
  const [row] = await sql<{ properties: Record<string, unknown>; static_cohorts: number[]; hash_keys: Record<string, string> }[]>`
    select p.properties,
      coalesce((select array_agg(c.cohort_id) from cohort_people c where c.person_id = p.id), '{}') as static_cohorts,
      coalesce((select jsonb_object_agg(h.feature_flag_key, h.hash_key) from feature_flag_hash_key_overrides h where h.person_id = p.id), '{}') as hash_keys
    from person_distinct_ids d join persons p on p.id = d.person_id
    where d.project_id = ${projectId} and d.distinct_id = ${distinctId}`
  return row && { properties: row.properties, staticCohorts: row.static_cohorts, hashKeys: row.hash_keys }
}
