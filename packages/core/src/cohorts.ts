import type { Cohort, CohortPerson, CohortWrite, Page, PageQuery, UserSummary } from '@burrow/contracts'
import { cohorts, type CohortRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from './deps'
import { problems } from './problems'
import { userSummaries } from './users'
import { serialIdOrNotFound } from './ids'

function toCohort(row: CohortRow, createdBy: UserSummary | null): Cohort {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    groups: row.groups,
    deleted: row.deleted,
    filters: row.filters,
    is_calculating: row.is_calculating,
    created_by: createdBy,
    created_at: row.created_at.toISOString(),
    last_calculation: row.last_calculation?.toISOString() ?? null,
    errors_calculating: row.errors_calculating,
    count: row.count,
    is_static: row.is_static,
  }
}

async function toCohorts(deps: CoreDeps, rows: CohortRow[]): Promise<Cohort[]> {
  const summary = await userSummaries(deps, rows.map((r) => r.created_by_id))
  return rows.map((row) => toCohort(row, summary(row.created_by_id)))
}

async function findCohort(deps: CoreDeps, projectId: number, idParam: string): Promise<CohortRow> {
  const row = await cohorts.findCohort(deps.sql, projectId, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  return row
}

export async function listCohorts(deps: CoreDeps, projectId: number, page: PageQuery): Promise<Page<Cohort>> {
  const { count, rows } = await cohorts.listCohorts(deps.sql, projectId, page)
  return { count, ...page, results: await toCohorts(deps, rows) }
}

export async function getCohort(deps: CoreDeps, projectId: number, idParam: string): Promise<Cohort> {
  const [cohort] = await toCohorts(deps, [await findCohort(deps, projectId, idParam)])
  return cohort!
}

export async function createCohort(deps: CoreDeps, projectId: number, user: UserRow, input: CohortWrite): Promise<Cohort> {
  const row = await cohorts.insertCohort(deps.sql, projectId, user.id, input)
  const [cohort] = await toCohorts(deps, [row])
  return cohort!
}

/** Updates a cohort; `deleted: true` is its (soft) deletion, `deleted: false` brings it back. */
export async function updateCohort(deps: CoreDeps, projectId: number, idParam: string, input: CohortWrite): Promise<Cohort> {
  const row = await cohorts.updateCohort(deps.sql, projectId, serialIdOrNotFound(idParam), input)
  if (!row) throw problems.notFound()
  const [cohort] = await toCohorts(deps, [row])
  return cohort!
}

/** The cohort's members. Persons are not tracked yet, so every cohort has none. */
export async function cohortPersons(deps: CoreDeps, projectId: number, idParam: string, page: PageQuery): Promise<Page<CohortPerson>> {
  await findCohort(deps, projectId, idParam)
  return { count: 0, ...page, results: [] }
}
