import type { Sql } from '../connect'
import { everyTermIn, selectPage, type PageWindow } from './pages'

export interface CohortRow {
  id: number
  project_id: number
  name: string | null
  description: string
  groups: Array<Record<string, unknown>>
  filters: Record<string, unknown> | null
  deleted: boolean
  is_static: boolean
  is_calculating: boolean
  last_calculation: Date | null
  errors_calculating: number
  count: number | null
  version: number
  pending_version: number
  members_version: number | null
  calculation_started_at: Date | null
  created_by_id: number | null
  created_at: Date
  updated_at: Date
}

export interface CohortWrite {
  name?: string | null | undefined
  description?: string | undefined
  groups?: unknown[] | undefined
  filters?: unknown
  deleted?: boolean | undefined
  is_static?: boolean | undefined
}

/** Whether a write changes who belongs to the cohort (and so needs a new calculation). */
export const DEFINITION_COLUMNS = ['groups', 'filters', 'is_static'] as const

function columnValues(sql: Sql, write: CohortWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (write.name !== undefined) values.name = write.name
  if (write.description !== undefined) values.description = write.description
  if (write.groups !== undefined) values.groups = sql.json(write.groups as never)
  if (write.filters !== undefined) values.filters = write.filters === null ? null : sql.json(write.filters as never)
  if (write.deleted !== undefined) values.deleted = write.deleted
  if (write.is_static !== undefined) values.is_static = write.is_static
  return values
}

export async function insertCohort(sql: Sql, projectId: number, createdById: number, write: CohortWrite): Promise<CohortRow> {
  const values = { ...columnValues(sql, write), project_id: projectId, created_by_id: createdById }
  const [row] = await sql<CohortRow[]>`insert into cohorts ${sql(values as never)} returning *`
  return row!
}

export async function updateCohort(sql: Sql, projectId: number, id: number, write: CohortWrite): Promise<CohortRow | undefined> {
  const values = columnValues(sql, write)
  const redefines = DEFINITION_COLUMNS.some((c) => write[c] !== undefined)
  const [row] = await sql<CohortRow[]>`
    update cohorts set ${sql({ ...values, updated_at: sql`now()` } as never)}
      ${redefines ? sql`, version = version + 1` : sql``}
    where project_id = ${projectId} and id = ${id}
    returning *`
  return row
}

export async function findCohort(sql: Sql, projectId: number, id: number): Promise<CohortRow | undefined> {
  const [row] = await sql<CohortRow[]>`select * from cohorts where project_id = ${projectId} and id = ${id}`
  return row
}

/** The project's cohorts, newest first, soft-deleted ones left out as PostHog's list does; by the terms of a search, those whose name has each. */
export function listCohorts(
  sql: Sql,
  projectId: number,
  page: PageWindow,
  search: readonly string[] = [],
): Promise<{ count: number; rows: CohortRow[] }> {
  return selectPage<CohortRow>(sql, {
    table: 'cohorts',
    where: sql`project_id = ${projectId} and not deleted and ${everyTermIn(sql, ['name'], search)}`,
    orderBy: sql`id desc`,
    page,
  })
}

/** Starts a calculation: the cohort is calculating, and the calculation's version is the answer's pending_version. */
export async function startCalculation(sql: Sql, id: number): Promise<CohortRow | undefined> {
  const [row] = await sql<CohortRow[]>`
    update cohorts set pending_version = pending_version + 1, is_calculating = true, calculation_started_at = now()
    where id = ${id} and not deleted returning *`
  return row
}

/**
 * Claims one cohort whose last calculation is older than `staleSeconds` (or that never had
 * one) and starts its calculation; servers skip the rows others hold, so each is claimed once.
 * A calculation that started `abandonedSeconds` ago and never finished is taken over.
 */
export async function claimDueCalculation(sql: Sql, staleSeconds: number, abandonedSeconds: number): Promise<CohortRow | undefined> {
  const [row] = await sql<CohortRow[]>`
    update cohorts set pending_version = pending_version + 1, is_calculating = true, calculation_started_at = now()
    where id = (
      select id from cohorts
      where not deleted
        and (last_calculation is null or last_calculation < now() - make_interval(secs => ${staleSeconds}))
        and (calculation_started_at is null or calculation_started_at < now() - make_interval(secs => ${abandonedSeconds}))
      order by last_calculation nulls first, id
      limit 1
      for update skip locked
    )
    returning *`
  return row
}

/** Records a finished calculation, unless a newer one finished first; the newest pending one keeps the flag on. */
export async function finishCalculation(sql: Sql, id: number, version: number, count: number): Promise<void> {
  await sql`
    update cohorts set
      members_version = ${version}, count = ${count}, last_calculation = now(),
      is_calculating = pending_version > ${version},
      calculation_started_at = case when pending_version > ${version} then calculation_started_at end
    where id = ${id} and (members_version is null or members_version < ${version})`
}

export async function failCalculation(sql: Sql, id: number, version: number): Promise<void> {
  await sql`
    update cohorts set errors_calculating = errors_calculating + 1, last_calculation = now(),
      is_calculating = is_calculating and pending_version > ${version},
      calculation_started_at = case when pending_version > ${version} then calculation_started_at end
    where id = ${id}`
}

/** The version of each cohort's current members (cohorts without a finished calculation are absent). */
export async function membersVersions(sql: Sql, projectId: number, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map()
  const rows = await sql<{ id: number; members_version: number }[]>`
    select id, members_version from cohorts
    where project_id = ${projectId} and id = any(${ids as number[]}) and members_version is not null`
  return new Map(rows.map((r) => [r.id, r.members_version]))
}

/**
 * Adds the persons of these distinct ids to a static cohort; answers how many distinct ids named
 * a person. A person merged away while the statement ran fails its foreign key; the statement
 * then runs again, finding the person the ids moved to.
 */
export async function addStaticMembers(sql: Sql, projectId: number, cohortId: number, distinctIds: readonly string[]): Promise<number> {
  if (distinctIds.length === 0) return 0
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertStaticMembers(sql, projectId, cohortId, distinctIds)
    } catch (err) {
      if ((err as { code?: string }).code !== '23503' || attempt >= 3) throw err
    }
  }
}

async function insertStaticMembers(sql: Sql, projectId: number, cohortId: number, distinctIds: readonly string[]): Promise<number> {
  const [found] = await sql<{ n: number }[]>`
    with persons_found as (
      select distinct person_id from person_distinct_ids
      where project_id = ${projectId} and distinct_id = any(${distinctIds as string[]})
    ), added as (
      insert into cohort_people (cohort_id, person_id) select ${cohortId}, person_id from persons_found
      on conflict do nothing returning 1
    )
    select count(*)::int as n from persons_found`
  return found?.n ?? 0
}

/** The uuids of a static cohort's members. */
export async function staticMemberUuids(sql: Sql, cohortId: number): Promise<string[]> {
  const rows = await sql<{ uuid: string }[]>`
    select p.uuid from cohort_people c join persons p on p.id = c.person_id where c.cohort_id = ${cohortId}`
  return rows.map((r) => r.uuid)
}

/** The project's live cohorts among these ids. */
export async function findCohorts(sql: Sql, projectId: number, ids: readonly number[]): Promise<CohortRow[]> {
  if (ids.length === 0) return []
  return sql<CohortRow[]>`select * from cohorts where project_id = ${projectId} and id = any(${ids as number[]}) and not deleted`
}
