import type { Sql } from '../connect'
import { everyTermIn, selectPage, type PageWindow } from './pages'

export interface DashboardRow {
  id: number
  project_id: number
  name: string | null
  description: string
  pinned: boolean
  deleted: boolean
  creation_mode: string
  restriction_level: number
  tags: string[]
  filters: Record<string, unknown>
  created_by_id: number | null
  created_at: Date
  last_accessed_at: Date | null
}

export interface DashboardWrite {
  name?: string | null | undefined
  description?: string | undefined
  pinned?: boolean | undefined
  deleted?: boolean | undefined
  restriction_level?: number | undefined
  tags?: string[] | undefined
  filters?: Record<string, unknown> | undefined
}

export interface DashboardTileRow {
  id: number
  dashboard_id: number
  insight_id: number | null
  text: Record<string, unknown> | null
  layouts: Record<string, unknown>
  color: string | null
}

function columnValues(sql: Sql, write: DashboardWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (write.name !== undefined) values.name = write.name
  if (write.description !== undefined) values.description = write.description
  if (write.pinned !== undefined) values.pinned = write.pinned
  if (write.deleted !== undefined) values.deleted = write.deleted
  if (write.restriction_level !== undefined) values.restriction_level = write.restriction_level
  if (write.tags !== undefined) values.tags = sql.array(write.tags)
  if (write.filters !== undefined) values.filters = sql.json(write.filters as never)
  return values
}

export async function insertDashboard(sql: Sql, projectId: number, userId: number, write: DashboardWrite): Promise<DashboardRow> {
  const values = { ...columnValues(sql, write), project_id: projectId, created_by_id: userId }
  const [row] = await sql<DashboardRow[]>`insert into dashboards ${sql(values as never)} returning *`
  return row!
}

export async function updateDashboard(sql: Sql, projectId: number, id: number, write: DashboardWrite): Promise<DashboardRow | undefined> {
  const values = columnValues(sql, write)
  if (Object.keys(values).length === 0) return findDashboard(sql, projectId, id)
  const [row] = await sql<DashboardRow[]>`
    update dashboards set ${sql(values as never)} where project_id = ${projectId} and id = ${id} returning *`
  return row
}

export async function findDashboard(sql: Sql, projectId: number, id: number): Promise<DashboardRow | undefined> {
  const [row] = await sql<DashboardRow[]>`select * from dashboards where project_id = ${projectId} and id = ${id}`
  return row
}

/** Marks a live dashboard as opened now (PostHog's `last_accessed_at`, set when one is retrieved). */
export async function touchDashboard(sql: Sql, projectId: number, id: number): Promise<DashboardRow | undefined> {
  const [row] = await sql<DashboardRow[]>`
    update dashboards set last_accessed_at = now() where project_id = ${projectId} and id = ${id} and not deleted returning *`
  return row
}

/** The project's dashboards, pinned ones first, then by name, soft-deleted ones left out, as PostHog's list answers them. */
export function listDashboards(
  sql: Sql,
  projectId: number,
  page: PageWindow,
  search: readonly string[] = [],
): Promise<{ count: number; rows: DashboardRow[] }> {
  return selectPage<DashboardRow>(sql, {
    table: 'dashboards',
    where: sql`project_id = ${projectId} and not deleted and ${everyTermIn(sql, ['name', 'description'], search)}`,
    orderBy: sql`pinned desc, name asc nulls last, id`,
    page,
  })
}

/** The tiles of a dashboard whose insight is live, in the order they were added. */
export function dashboardTiles(sql: Sql, dashboardId: number): Promise<DashboardTileRow[]> {
  return sql<DashboardTileRow[]>`
    select t.id, t.dashboard_id, t.insight_id, t.text, t.layouts, t.color from dashboard_tiles t
    left join insights i on i.id = t.insight_id
    where t.dashboard_id = ${dashboardId} and (t.insight_id is null or not i.deleted)
    order by t.id`
}

/** The live dashboards each of these insights is on. */
export async function dashboardsOfInsights(sql: Sql, insightIds: readonly number[]): Promise<Map<number, number[]>> {
  const byInsight = new Map<number, number[]>()
  if (insightIds.length === 0) return byInsight
  const rows = await sql<{ insight_id: number; dashboard_id: number }[]>`
    select t.insight_id, t.dashboard_id from dashboard_tiles t join dashboards d on d.id = t.dashboard_id
    where t.insight_id = any(${insightIds as number[]}) and not d.deleted
    order by t.dashboard_id`
  for (const row of rows) byInsight.set(row.insight_id, [...(byInsight.get(row.insight_id) ?? []), row.dashboard_id])
  return byInsight
}

/** Which of these ids name dashboards of the project, and whether each is deleted. */
export function dashboardStates(sql: Sql, projectId: number, ids: readonly number[]): Promise<Array<{ id: number; deleted: boolean }>> {
  if (ids.length === 0) return Promise.resolve([])
  return sql<Array<{ id: number; deleted: boolean }>>`
    select id, deleted from dashboards where project_id = ${projectId} and id = any(${ids as number[]})`
}

/** Puts the insight on exactly these dashboards, in one statement: tiles are added for new ones and removed from the others. */
export async function setInsightDashboards(sql: Sql, insightId: number, dashboardIds: readonly number[]): Promise<void> {
  await sql`
    with removed as (
      delete from dashboard_tiles where insight_id = ${insightId} and not (dashboard_id = any(${dashboardIds as number[]}::int[]))
    )
    insert into dashboard_tiles (dashboard_id, insight_id)
    select unnest(${dashboardIds as number[]}::int[]), ${insightId}
    on conflict (dashboard_id, insight_id) do nothing`
}
