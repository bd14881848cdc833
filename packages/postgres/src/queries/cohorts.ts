import type { Sql } from '../connect'
import { selectPage, type PageWindow } from './pages'

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

/** The project's cohorts, newest first, soft-deleted ones left out as PostHog's list does. */
export function listCohorts(sql: Sql, projectId: number, page: PageWindow): Promise<{ count: number; rows: CohortRow[] }> {
  return selectPage<CohortRow>(sql, { table: 'cohorts', where: sql`project_id = ${projectId} and not deleted`, orderBy: sql`id desc`, page })
}
