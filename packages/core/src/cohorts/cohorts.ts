import { parse as parseCsv } from 'csv-parse/sync'
import {
  problems,
  toCohortPerson,
  type Cohort,
  type CohortPerson,
  type CohortWrite,
  type Page,
  type PageQuery,
  type UserSummary,
} from '@burrow/contracts'
import { cohortPeople } from '@burrow/clickhouse'
import { cohorts, type CohortRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { userSummaries } from '../access/users'
import { serialIdOrNotFound } from '../ids'
import { listPersons, personUuid, type DisplayedProject, type PersonsFilter } from '../persons/persons'
import { flagsChanged } from '../flags/featureFlags'
import { refuseBehaviourInFlagCohort, refuseLoops } from './cohortGraph'
import { legacyFilters } from './cohortLegacyFilters'
import { searchTerms } from '../search'

function toCohort(row: CohortRow, createdBy: UserSummary | null): Cohort {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    groups: row.groups,
    deleted: row.deleted,
    filters: legacyFilters(row),
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
  const summary = await userSummaries(
    deps,
    rows.map((r) => r.created_by_id),
  )
  return rows.map((row) => toCohort(row, summary(row.created_by_id)))
}

async function findCohort(deps: CoreDeps, projectId: number, idParam: string): Promise<CohortRow> {
  const row = await cohorts.findCohort(deps.sql, projectId, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  return row
}

export async function listCohorts(
  deps: CoreDeps,
  projectId: number,
  query: PageQuery & { search?: string | undefined },
): Promise<Page<Cohort>> {
  const page = { limit: query.limit, offset: query.offset }
  const { count, rows } = await cohorts.listCohorts(deps.sql, projectId, page, searchTerms(query.search))
  return { count, ...page, results: await toCohorts(deps, rows) }
}

export async function getCohort(deps: CoreDeps, projectId: number, idParam: string): Promise<Cohort> {
  const [cohort] = await toCohorts(deps, [await findCohort(deps, projectId, idParam)])
  return cohort!
}

/** The distinct ids of an uploaded CSV: the first column of each row, a `distinct_id` header skipped. */
function distinctIdsFromCsv(text: string): string[] {
  let rows: string[][]
  try {
    rows = parseCsv(text, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true })
  } catch (err) {
    throw problems.validation('csv', `The file is not CSV: ${(err as Error).message}`)
  }
  const ids = rows.map((r) => r[0] ?? '').filter((id) => id !== '')
  if (ids.length > 0 && ['distinct_id', 'distinct_ids', 'distinct id'].includes(ids[0]!.toLowerCase())) ids.shift()
  return ids
}

function staticMembers(input: CohortWrite): string[] | undefined {
  if (input.csv === undefined && input.distinct_ids === undefined) return undefined
  return [...new Set([...(input.csv === undefined ? [] : distinctIdsFromCsv(input.csv)), ...(input.distinct_ids ?? [])])]
}

/**
 * Adds uploaded members (static cohorts) and starts a calculation: it runs in the background,
 * and the answer already says `is_calculating`.
 */
async function recalculate(deps: CoreDeps, row: CohortRow, members: string[] | undefined): Promise<CohortRow> {
  if (members !== undefined) {
    if (!row.is_static) throw problems.validation('csv', 'Only static cohorts take a list of members.')
    await cohorts.addStaticMembers(deps.sql, row.project_id, row.id, members)
  }
  const started = await cohorts.startCalculation(deps.sql, row.id)
  if (!started) return row
  deps.cohortCalculations?.enqueue(started)
  return started
}

const definitionOnly = ({ csv: _csv, distinct_ids: _ids, ...write }: CohortWrite) => write

export async function createCohort(deps: CoreDeps, projectId: number, user: UserRow, input: CohortWrite): Promise<Cohort> {
  const members = staticMembers(input)
  if (members !== undefined && !input.is_static) throw problems.validation('csv', 'Only static cohorts take a list of members.')
  const row = await cohorts.insertCohort(deps.sql, projectId, user.id, definitionOnly(input))
  await flagsChanged(deps, projectId)
  const [cohort] = await toCohorts(deps, [await recalculate(deps, row, members)])
  return cohort!
}

/**
 * Updates a cohort; `deleted: true` is its (soft) deletion, `deleted: false` brings it back.
 * A new definition or new members start a calculation.
 */
export async function updateCohort(deps: CoreDeps, projectId: number, idParam: string, input: CohortWrite): Promise<Cohort> {
  const write = definitionOnly(input)
  const id = serialIdOrNotFound(idParam)
  const current = await cohorts.findCohort(deps.sql, projectId, id)
  if (!current) throw problems.notFound()
  if (write.filters !== undefined || write.groups !== undefined || write.is_static !== undefined) {
    const next = {
      id,
      name: write.name !== undefined ? write.name : current.name,
      filters: write.filters !== undefined ? write.filters : current.filters,
      groups: write.groups ?? current.groups,
      is_static: write.is_static ?? current.is_static,
    }
    await refuseLoops(deps.sql, projectId, id, next)
    await refuseBehaviourInFlagCohort(deps.sql, projectId, next)
  }
  let row = await cohorts.updateCohort(deps.sql, projectId, id, write)
  if (!row) throw problems.notFound()
  const members = staticMembers(input)
  const redefined = cohorts.DEFINITION_COLUMNS.some((c) => write[c] !== undefined) || (write.deleted === false && !row.deleted)
  if (!row.deleted && (redefined || members !== undefined)) row = await recalculate(deps, row, members)
  // Flags read cohort definitions, and static members per request.
  if (redefined || write.deleted !== undefined) await flagsChanged(deps, projectId)
  const [cohort] = await toCohorts(deps, [row])
  return cohort!
}

/**
 * The project's cohorts the person (by id or uuid) is in as of each one's last finished
 * calculation (or upload), as PostHog's `persons/cohorts/` answers them.
 */
export async function personCohorts(deps: CoreDeps, projectId: number, personIdParam: string): Promise<Cohort[]> {
  const uuid = await personUuid(deps, projectId, personIdParam)
  if (uuid === undefined) throw problems.notFound()
  const memberships = await cohortPeople.membershipsOf(deps.ch, projectId, uuid)
  const rows = await cohorts.findCohorts(deps.sql, projectId, [...new Set(memberships.map((m) => m.cohortId))])
  const current = rows.filter((row) => memberships.some((m) => m.cohortId === row.id && m.version === row.members_version))
  return toCohorts(
    deps,
    current.sort((a, b) => a.id - b.id),
  )
}

/** The cohort's members as of its last finished calculation, newest persons first. */
export async function cohortPersons(
  deps: CoreDeps,
  project: DisplayedProject,
  idParam: string,
  query: PersonsFilter,
  page: PageQuery,
): Promise<Page<CohortPerson>> {
  const row = await findCohort(deps, project.id, idParam)
  if (row.members_version === null) return { count: 0, ...page, results: [] }
  const members = await listPersons(deps, project, { ...query, cohort: { id: row.id, version: row.members_version } }, page)
  return { ...members, results: members.results.map(toCohortPerson) }
}
