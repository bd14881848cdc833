import type postgres from 'postgres'
import type { Sql } from '../connect'
import { containsPattern, selectPage, type PageWindow } from './pages'

export interface InsightRow {
  id: number
  project_id: number
  short_id: string
  name: string | null
  derived_name: string | null
  description: string
  query: Record<string, unknown> | null
  tags: string[]
  favorited: boolean
  saved: boolean
  deleted: boolean
  created_by_id: number | null
  created_at: Date
  last_modified_by_id: number | null
  last_modified_at: Date
}

export interface InsightWrite {
  name?: string | null | undefined
  derived_name?: string | null | undefined
  description?: string | undefined
  query?: unknown
  tags?: string[] | undefined
  favorited?: boolean | undefined
  saved?: boolean | undefined
  deleted?: boolean | undefined
}

export interface InsightFilter {
  search: readonly string[]
  saved?: boolean | undefined
  /** Present: only the favorites. */
  favorited?: boolean | undefined
  shortId?: string | undefined
}

type Fragment = postgres.PendingQuery<postgres.Row[]>

const MATERIAL_FIELDS = ['name', 'description', 'query'] as const

function columnValues(sql: Sql, write: InsightWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (write.name !== undefined) values.name = write.name
  if (write.derived_name !== undefined) values.derived_name = write.derived_name
  if (write.description !== undefined) values.description = write.description
  if (write.query !== undefined) values.query = write.query === null ? null : sql.json(write.query as never)
  if (write.tags !== undefined) values.tags = sql.array(write.tags)
  if (write.favorited !== undefined) values.favorited = write.favorited
  if (write.saved !== undefined) values.saved = write.saved
  if (write.deleted !== undefined) values.deleted = write.deleted
  return values
}

export async function insertInsight(
  sql: Sql,
  insight: { projectId: number; shortId: string; userId: number; write: InsightWrite },
): Promise<InsightRow | undefined> {
  const values = {
    ...columnValues(sql, insight.write),
    project_id: insight.projectId,
    short_id: insight.shortId,
    created_by_id: insight.userId,
    last_modified_by_id: insight.userId,
  }
  // A short id already taken in the project answers nothing, and the caller draws another.
  const [row] = await sql<InsightRow[]>`
    insert into insights ${sql(values as never)} on conflict (project_id, short_id) do nothing returning *`
  return row
}

export async function updateInsight(
  sql: Sql,
  insight: { projectId: number; id: number; userId: number; write: InsightWrite },
): Promise<InsightRow | undefined> {
  const values = columnValues(sql, insight.write)
  // As PostHog counts them: only a new name, description or query modifies the insight.
  if (MATERIAL_FIELDS.some((field) => insight.write[field] !== undefined)) {
    Object.assign(values, { last_modified_by_id: insight.userId, last_modified_at: sql`now()` })
  }
  if (Object.keys(values).length === 0) return findInsight(sql, insight.projectId, insight.id)
  const [row] = await sql<InsightRow[]>`
    update insights set ${sql(values as never)} where project_id = ${insight.projectId} and id = ${insight.id} returning *`
  return row
}

export async function findInsight(sql: Sql, projectId: number, id: number): Promise<InsightRow | undefined> {
  const [row] = await sql<InsightRow[]>`select * from insights where project_id = ${projectId} and id = ${id}`
  return row
}

/** Each term in the name, the derived name, the description or a tag. */
function everyTermInText(sql: Sql, terms: readonly string[]): Fragment {
  return terms
    .map((term) => {
      const pattern = containsPattern(term)
      return sql`(name ilike ${pattern} or derived_name ilike ${pattern} or description ilike ${pattern}
        or exists (select 1 from unnest(tags) tag where tag ilike ${pattern}))`
    })
    .reduce((a, b) => sql`${a} and ${b}`, sql`true`)
}

/**
 * The project's insights, newest first, soft-deleted ones left out. As PostHog filters them:
 * `saved` takes in the insights on a dashboard too, and `favorited` keeps the favorites whatever
 * its value.
 */
export function listInsights(
  sql: Sql,
  projectId: number,
  filter: InsightFilter,
  page: PageWindow,
): Promise<{ count: number; rows: InsightRow[] }> {
  const saved =
    filter.saved === undefined
      ? sql`true`
      : filter.saved
        ? sql`(saved or exists (select 1 from dashboard_tiles t where t.insight_id = insights.id))`
        : sql`not saved`
  return selectPage<InsightRow>(sql, {
    table: 'insights',
    where: sql`project_id = ${projectId} and not deleted and ${everyTermInText(sql, filter.search)} and ${saved}
      and ${filter.favorited === undefined ? sql`true` : sql`favorited`}
      and ${filter.shortId === undefined ? sql`true` : sql`short_id = ${filter.shortId}`}`,
    orderBy: sql`id desc`,
    page,
  })
}

/** The project's live insights among these ids. */
export async function findInsights(sql: Sql, projectId: number, ids: readonly number[]): Promise<InsightRow[]> {
  if (ids.length === 0) return []
  return sql<InsightRow[]>`select * from insights where project_id = ${projectId} and id = any(${ids as number[]}) and not deleted`
}
