import {
  problems,
  type Dashboard,
  type DashboardBasic,
  type DashboardWrite,
  type Page,
  type PageQuery,
  type UserSummary,
} from '@burrow/contracts'
import { dashboards, insights, type DashboardRow, type ProjectRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from './deps'
import { serialIdOrNotFound } from './ids'
import { toInsights, type InsightRefresh } from './insights'
import { searchTerms } from './search'
import { userSummaries } from './users'

function toBasic(row: DashboardRow, createdBy: UserSummary | null): DashboardBasic {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    pinned: row.pinned,
    created_at: row.created_at.toISOString(),
    created_by: createdBy,
    last_accessed_at: row.last_accessed_at?.toISOString() ?? null,
    // Sharing links are not served: no dashboard is shared.
    is_shared: false,
    deleted: row.deleted,
    creation_mode: row.creation_mode as DashboardBasic['creation_mode'],
    tags: row.tags,
    restriction_level: row.restriction_level,
  }
}

/** The full form, with the tiles and their insights' results. */
async function toDashboard(deps: CoreDeps, project: ProjectRow, row: DashboardRow, refresh: InsightRefresh): Promise<Dashboard> {
  const summary = await userSummaries(deps, [row.created_by_id])
  const tiles = await dashboards.dashboardTiles(deps.sql, row.id)
  const insightRows = await insights.findInsights(
    deps.sql,
    project.id,
    tiles.flatMap((t) => (t.insight_id === null ? [] : [t.insight_id])),
  )
  const shown = new Map((await toInsights(deps, project, insightRows, { refresh })).map((insight) => [insight.id, insight]))
  return {
    ...toBasic(row, summary(row.created_by_id)),
    tiles: tiles.map((tile) => {
      const insight = tile.insight_id === null ? null : (shown.get(tile.insight_id) ?? null)
      return {
        id: tile.id,
        insight,
        text: tile.text,
        layouts: tile.layouts,
        color: tile.color,
        last_refresh: insight?.last_refresh ?? null,
        is_cached: insight?.is_cached ?? false,
      }
    }),
    filters: row.filters,
  }
}

export async function listDashboards(
  deps: CoreDeps,
  projectId: number,
  query: PageQuery & { search?: string | undefined },
): Promise<Page<DashboardBasic>> {
  const page = { limit: query.limit, offset: query.offset }
  const { count, rows } = await dashboards.listDashboards(deps.sql, projectId, page, searchTerms(query.search))
  const summary = await userSummaries(
    deps,
    rows.map((r) => r.created_by_id),
  )
  return { count, ...page, results: rows.map((row) => toBasic(row, summary(row.created_by_id))) }
}

/** Retrieving a dashboard is opening it: its `last_accessed_at` moves to now. A soft-deleted one is gone, as in PostHog. */
export async function getDashboard(deps: CoreDeps, project: ProjectRow, idParam: string, refresh: InsightRefresh): Promise<Dashboard> {
  const row = await dashboards.touchDashboard(deps.sql, project.id, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  return toDashboard(deps, project, row, refresh)
}

export async function createDashboard(deps: CoreDeps, project: ProjectRow, user: UserRow, input: DashboardWrite): Promise<Dashboard> {
  const row = await dashboards.insertDashboard(deps.sql, project.id, user.id, input)
  return toDashboard(deps, project, row, undefined)
}

/**
 * Updates a dashboard; `deleted: true` is its (soft) deletion, after which its insights no longer
 * list it, and only a PATCH with `deleted: false` finds it again, with its tiles.
 */
export async function updateDashboard(deps: CoreDeps, project: ProjectRow, idParam: string, input: DashboardWrite): Promise<Dashboard> {
  const id = serialIdOrNotFound(idParam)
  const current = await dashboards.findDashboard(deps.sql, project.id, id)
  if (!current || (current.deleted && input.deleted !== false)) throw problems.notFound()
  const row = await dashboards.updateDashboard(deps.sql, project.id, id, input)
  if (!row) throw problems.notFound()
  return toDashboard(deps, project, row, undefined)
}
