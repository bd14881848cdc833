import type { Sql } from '../connect'
import { everyTermIn, selectPage, type PageWindow } from './pages'

export interface FeatureFlagRow {
  id: number
  project_id: number
  key: string
  name: string
  filters: Record<string, unknown>
  active: boolean
  deleted: boolean
  ensure_experience_continuity: boolean
  is_remote_configuration: boolean
  version: number
  created_by_id: number | null
  created_at: Date
  updated_at: Date
}

export interface FeatureFlagWrite {
  key?: string | undefined
  name?: string | undefined
  filters?: Record<string, unknown> | undefined
  active?: boolean | undefined
  deleted?: boolean | undefined
  ensure_experience_continuity?: boolean | undefined
  is_remote_configuration?: boolean | undefined
}

function columnValues(sql: Sql, write: FeatureFlagWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const column of ['key', 'name', 'active', 'deleted', 'ensure_experience_continuity', 'is_remote_configuration'] as const) {
    if (write[column] !== undefined) values[column] = write[column]
  }
  if (write.filters !== undefined) values.filters = sql.json(write.filters as never)
  return values
}

/**
 * Inserts a flag, first removing a soft-deleted flag of the same key (PostHog does the same);
 * undefined when a live flag already has the key.
 */
export async function insertFeatureFlag(
  sql: Sql,
  projectId: number,
  createdById: number,
  write: FeatureFlagWrite & { key: string },
): Promise<FeatureFlagRow | undefined> {
  await sql`delete from feature_flags where project_id = ${projectId} and key = ${write.key} and deleted`
  const values = { ...columnValues(sql, write), project_id: projectId, created_by_id: createdById }
  const [row] = await sql<FeatureFlagRow[]>`
    insert into feature_flags ${sql(values as never)}
    on conflict (project_id, key) where not deleted do nothing
    returning *`
  return row
}

/** Updates a flag and bumps its version; undefined when no such flag, 'conflict' when the key is taken. */
export async function updateFeatureFlag(
  sql: Sql,
  projectId: number,
  id: number,
  write: FeatureFlagWrite,
): Promise<FeatureFlagRow | undefined | 'conflict'> {
  try {
    const [row] = await sql<FeatureFlagRow[]>`
      update feature_flags set ${sql({ ...columnValues(sql, write), updated_at: sql`now()` } as never)}, version = version + 1
      where project_id = ${projectId} and id = ${id}
      returning *`
    return row
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'conflict'
    throw err
  }
}

export async function findFeatureFlag(sql: Sql, projectId: number, id: number): Promise<FeatureFlagRow | undefined> {
  const [row] = await sql<FeatureFlagRow[]>`select * from feature_flags where project_id = ${projectId} and id = ${id}`
  return row
}

/** A live flag by its key. */
export async function findFeatureFlagByKey(sql: Sql, projectId: number, key: string): Promise<FeatureFlagRow | undefined> {
  const [row] = await sql<FeatureFlagRow[]>`select * from feature_flags where project_id = ${projectId} and key = ${key} and not deleted`
  return row
}

/** The project's live flags, newest first, optionally those whose key or name contains each search term, and by `active`. */
export function listFeatureFlags(
  sql: Sql,
  projectId: number,
  query: PageWindow & { search?: readonly string[] | undefined; active?: boolean | undefined },
): Promise<{ count: number; rows: FeatureFlagRow[] }> {
  const where = sql`project_id = ${projectId} and not deleted
    and ${everyTermIn(sql, ['key', 'name'], query.search ?? [])}
    ${query.active === undefined ? sql`` : sql`and active = ${query.active}`}`
  return selectPage<FeatureFlagRow>(sql, { table: 'feature_flags', where, orderBy: sql`created_at desc, id desc`, page: query })
}

/** Every active, live flag of a project: what evaluation needs. */
export async function activeFeatureFlags(sql: Sql, projectId: number): Promise<FeatureFlagRow[]> {
  return sql<FeatureFlagRow[]>`
    select * from feature_flags where project_id = ${projectId} and active and not deleted order by id`
}

/** Every flag that is not deleted, active or not: what SDKs evaluating locally need. */
export async function liveFeatureFlags(sql: Sql, projectId: number): Promise<FeatureFlagRow[]> {
  return sql<FeatureFlagRow[]>`select * from feature_flags where project_id = ${projectId} and not deleted order by id`
}
