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
  breakdown_colors: unknown
  data_color_theme_id: number | null
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
  breakdown_colors?: unknown
  data_color_theme_id?: number | null | undefined
  creation_mode?: string | undefined
}

export interface DashboardTileRow {
  id: number
  dashboard_id: number
  insight_id: number | null
  text_id: number | null
  layouts: Record<string, unknown>
  color: string | null
  deleted: boolean
  filters_overrides: Record<string, unknown> | null
  show_description: boolean | null
  transparent_background: boolean | null
}

/** A tile's display settings, as PATCH `tiles` and copies write them. */
export interface TileDisplay {
  layouts?: Record<string, unknown> | undefined
  color?: string | null | undefined
  deleted?: boolean | undefined
  filters_overrides?: Record<string, unknown> | null | undefined
  show_description?: boolean | null | undefined
  transparent_background?: boolean | null | undefined
}

export interface DashboardTextRow {
  id: number
  project_id: number
  body: string | null
  created_by_id: number | null
  last_modified_by_id: number | null
  last_modified_at: Date
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
  if (write.breakdown_colors !== undefined) values.breakdown_colors = sql.json(write.breakdown_colors as never)
  if (write.data_color_theme_id !== undefined) values.data_color_theme_id = write.data_color_theme_id
  if (write.creation_mode !== undefined) values.creation_mode = write.creation_mode
  return values
}

function tileValues(sql: Sql, display: TileDisplay): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (display.layouts !== undefined) values.layouts = sql.json(display.layouts as never)
  if (display.color !== undefined) values.color = display.color
  if (display.deleted !== undefined) values.deleted = display.deleted
  if (display.filters_overrides !== undefined)
    values.filters_overrides = display.filters_overrides === null ? null : sql.json(display.filters_overrides as never)
  if (display.show_description !== undefined) values.show_description = display.show_description
  if (display.transparent_background !== undefined) values.transparent_background = display.transparent_background
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

/** The tiles a dashboard shows: not deleted, and a text or a live insight, in the order they were added. */
export function dashboardTiles(sql: Sql, dashboardId: number): Promise<DashboardTileRow[]> {
  return sql<DashboardTileRow[]>`
    select t.* from dashboard_tiles t
    left join insights i on i.id = t.insight_id
    where t.dashboard_id = ${dashboardId} and not t.deleted and (t.insight_id is null or not i.deleted)
    order by t.id`
}

/** The dashboard's tiles among these ids, deleted ones included: a tile can be brought back by its id. */
export function tilesOfDashboard(sql: Sql, dashboardId: number, ids: readonly number[]): Promise<DashboardTileRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return sql<DashboardTileRow[]>`
    select * from dashboard_tiles where dashboard_id = ${dashboardId} and id = any(${ids as number[]})`
}

/** The shown tile of the dashboard that holds this text, if the text is the project's. */
export async function tileOfText(sql: Sql, projectId: number, dashboardId: number, textId: number): Promise<DashboardTileRow | undefined> {
  const [row] = await sql<DashboardTileRow[]>`
    select t.* from dashboard_tiles t join dashboard_texts x on x.id = t.text_id
    where t.dashboard_id = ${dashboardId} and t.text_id = ${textId} and x.project_id = ${projectId} and not t.deleted`
  return row
}

/** The live tile showing the insight on a live dashboard of the project (PostHog's `from_dashboard`), with the dashboard. */
export async function insightTileOnDashboard(
  sql: Sql,
  projectId: number,
  dashboardId: number,
  insightId: number,
): Promise<{ tile: DashboardTileRow; dashboard: DashboardRow } | undefined> {
  const dashboard = await findDashboard(sql, projectId, dashboardId)
  if (!dashboard || dashboard.deleted) return undefined
  const [tile] = await sql<DashboardTileRow[]>`
    select * from dashboard_tiles where dashboard_id = ${dashboardId} and insight_id = ${insightId} and not deleted`
  return tile && { tile, dashboard }
}

export async function insertTile(
  sql: Sql,
  tile: { dashboardId: number; insightId?: number | undefined; textId?: number | undefined; display: TileDisplay },
): Promise<DashboardTileRow> {
  const values = {
    ...tileValues(sql, tile.display),
    dashboard_id: tile.dashboardId,
    insight_id: tile.insightId ?? null,
    text_id: tile.textId ?? null,
  }
  const [row] = await sql<DashboardTileRow[]>`insert into dashboard_tiles ${sql(values as never)} returning *`
  return row!
}

/** Changes a tile's display settings (and which text it shows); its insight is never changed here. */
export async function updateTile(
  sql: Sql,
  dashboardId: number,
  id: number,
  change: TileDisplay & { textId?: number | undefined },
): Promise<void> {
  const values = tileValues(sql, change)
  if (change.textId !== undefined) values.text_id = change.textId
  if (Object.keys(values).length === 0) return
  await sql`update dashboard_tiles set ${sql(values as never)} where dashboard_id = ${dashboardId} and id = ${id}`
}

/** Deletes or brings back every tile of the dashboard, as deleting and restoring the dashboard does in PostHog. */
export async function setAllTilesDeleted(sql: Sql, dashboardId: number, deleted: boolean): Promise<void> {
  await sql`update dashboard_tiles set deleted = ${deleted} where dashboard_id = ${dashboardId}`
}

/**
 * Soft-deletes the insights shown on this dashboard and on no other live one (PostHog's
 * `delete_insights`): an insight that another dashboard still shows stays.
 */
export async function deleteInsightsOnlyOn(sql: Sql, projectId: number, dashboardId: number): Promise<void> {
  await sql`
    update insights i set deleted = true
    where i.project_id = ${projectId} and not i.deleted
      and exists (select 1 from dashboard_tiles t where t.dashboard_id = ${dashboardId} and t.insight_id = i.id and not t.deleted)
      and not exists (
        select 1 from dashboard_tiles o join dashboards d on d.id = o.dashboard_id
        where o.insight_id = i.id and o.dashboard_id <> ${dashboardId} and not o.deleted and not d.deleted)`
}

/** Brings back the deleted insights the dashboard's tiles show (PostHog's restore of a dashboard). */
export async function undeleteInsightsOn(sql: Sql, projectId: number, dashboardId: number): Promise<void> {
  await sql`
    update insights i set deleted = false
    where i.project_id = ${projectId} and i.deleted
      and exists (select 1 from dashboard_tiles t where t.dashboard_id = ${dashboardId} and t.insight_id = i.id and not t.deleted)`
}

/** The live dashboards each of these insights is shown on. */
export async function dashboardsOfInsights(sql: Sql, insightIds: readonly number[]): Promise<Map<number, number[]>> {
  const byInsight = new Map<number, number[]>()
  if (insightIds.length === 0) return byInsight
  const rows = await sql<{ insight_id: number; dashboard_id: number }[]>`
    select t.insight_id, t.dashboard_id from dashboard_tiles t join dashboards d on d.id = t.dashboard_id
    where t.insight_id = any(${insightIds as number[]}) and not t.deleted and not d.deleted
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

/**
 * Shows the insight on exactly these live dashboards, in one statement. As in PostHog a tile taken
 * off is only marked deleted, so that putting the insight back brings the same tile back, with its
 * layout and colour; tiles on deleted dashboards are left for the dashboard's restore.
 */
export async function setInsightDashboards(sql: Sql, insightId: number, dashboardIds: readonly number[]): Promise<void> {
  await sql`
    with removed as (
      update dashboard_tiles t set deleted = true from dashboards d
      where d.id = t.dashboard_id and t.insight_id = ${insightId} and not t.deleted and not d.deleted
        and not (t.dashboard_id = any(${dashboardIds as number[]}::int[]))
    )
    insert into dashboard_tiles (dashboard_id, insight_id)
    select unnest(${dashboardIds as number[]}::int[]), ${insightId}
    on conflict (dashboard_id, insight_id) do update set deleted = false`
}

export async function insertText(
  sql: Sql,
  text: { projectId: number; body: string | null; createdById: number },
): Promise<DashboardTextRow> {
  const [row] = await sql<DashboardTextRow[]>`
    insert into dashboard_texts (project_id, body, created_by_id) values (${text.projectId}, ${text.body}, ${text.createdById})
    returning *`
  return row!
}

/** An edit of a text: its body when given, and who edited it when. */
export async function updateText(
  sql: Sql,
  projectId: number,
  id: number,
  edit: { body?: string | null | undefined; modifiedById: number },
): Promise<void> {
  const values: Record<string, unknown> = { last_modified_by_id: edit.modifiedById, last_modified_at: sql`now()` }
  if (edit.body !== undefined) values.body = edit.body
  await sql`update dashboard_texts set ${sql(values as never)} where project_id = ${projectId} and id = ${id}`
}

export function findTexts(sql: Sql, projectId: number, ids: readonly number[]): Promise<DashboardTextRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return sql<DashboardTextRow[]>`select * from dashboard_texts where project_id = ${projectId} and id = any(${ids as number[]})`
}
