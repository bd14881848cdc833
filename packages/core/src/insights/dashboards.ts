import {
  isSerialIdNumber,
  problems,
  type Dashboard,
  type DashboardBasic,
  type DashboardCreate,
  type DashboardTile,
  type DashboardTileWrite,
  type DashboardUpdate,
  type Page,
  type PageQuery,
  type UserSummary,
} from '@burrow/contracts'
import { dashboards, insights, type DashboardRow, type DashboardTileRow, type ProjectRow, type Sql, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { serialIdOrNotFound } from '../ids'
import { mergeFilterLayers, parseFiltersOverride, type DashboardFilters } from './dashboardFilters'
import { copyInsight, toInsights, type InsightRefresh } from './insights'
import { searchTerms } from '../search'
import { userSummaries } from '../access/users'

/** PostHog's restriction level at which everyone in the project may edit; above it, access control is the old (v1) kind. */
const EVERYONE_CAN_EDIT = 21
/** PostHog's privilege level of an editor: dashboards have no collaborators of their own here, so whoever may see one may edit it. */
const CAN_EDIT = 37

function toBasic(row: DashboardRow, createdBy: UserSummary | null): DashboardBasic {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    pinned: row.pinned,
    created_at: row.created_at.toISOString(),
    created_by: createdBy,
    last_accessed_at: row.last_accessed_at?.toISOString() ?? null,
    last_viewed_at: null,
    // Sharing links are not served: no dashboard is shared.
    is_shared: false,
    deleted: row.deleted,
    creation_mode: row.creation_mode as DashboardBasic['creation_mode'],
    tags: row.tags,
    restriction_level: row.restriction_level,
    effective_restriction_level: row.restriction_level,
    effective_privilege_level: CAN_EDIT,
    user_access_level: 'editor',
    access_control_version: row.restriction_level > EVERYONE_CAN_EDIT ? 'v1' : 'v2',
    last_refresh: null,
    team_id: row.project_id,
  }
}

/** Where a tile sits in the `sm` layout, top to bottom then left to right; tiles without one come last. */
function layoutPosition(tile: DashboardTileRow): [number, number] | undefined {
  const sm = tile.layouts.sm
  if (typeof sm !== 'object' || sm === null || Array.isArray(sm)) return undefined
  const { x, y } = sm as Record<string, unknown>
  // PostHog's default for a coordinate a layout lacks.
  const at = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 100)
  return [at(y), at(x)]
}

/** The tiles in PostHog's order (its `sort_tiles_by_layout` on the `sm` layout), which is also what `order` numbers. */
function sortedTiles(tiles: readonly DashboardTileRow[]): DashboardTileRow[] {
  const keyed = tiles.map((tile) => ({ tile, at: layoutPosition(tile) }))
  keyed.sort((a, b) => {
    if (a.at && b.at) return a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.tile.id - b.tile.id
    if (a.at || b.at) return a.at ? -1 : 1
    return a.tile.id - b.tile.id
  })
  return keyed.map((k) => k.tile)
}

interface ShowOptions {
  refresh: InsightRefresh
  /** A request's `filters_override`, over the dashboard's own filters. */
  filtersOverride?: DashboardFilters | undefined
}

/** The full form, with the tiles and their insights' results computed under the dashboard's filters. */
async function toDashboard(deps: CoreDeps, project: ProjectRow, row: DashboardRow, options: ShowOptions): Promise<Dashboard> {
  const filters: DashboardFilters = { ...row.filters, ...options.filtersOverride }
  const tiles = sortedTiles(await dashboards.dashboardTiles(deps.sql, row.id))
  const insightIds = tiles.flatMap((t) => (t.insight_id === null ? [] : [t.insight_id]))
  const insightRows = await insights.findInsights(deps.sql, project.id, insightIds)
  // Computed in the order the tiles are shown, as PostHog does, so the top of the dashboard is ready first.
  insightRows.sort((a, b) => insightIds.indexOf(a.id) - insightIds.indexOf(b.id))
  const tileFilters = new Map(
    tiles.flatMap((t) => (t.insight_id === null ? [] : [[t.insight_id, mergeFilterLayers(filters, t.filters_overrides)]])),
  )
  const shown = new Map(
    (await toInsights(deps, project, insightRows, { refresh: options.refresh, filters: tileFilters })).map((insight) => [
      insight.id,
      insight,
    ]),
  )
  const texts = new Map(
    (
      await dashboards.findTexts(
        deps.sql,
        project.id,
        tiles.flatMap((t) => (t.text_id === null ? [] : [t.text_id])),
      )
    ).map((text) => [text.id, text]),
  )
  const summary = await userSummaries(deps, [
    row.created_by_id,
    ...[...texts.values()].flatMap((t) => [t.created_by_id, t.last_modified_by_id]),
  ])
  return {
    ...toBasic(row, summary(row.created_by_id)),
    filters,
    variables: {},
    breakdown_colors: row.breakdown_colors,
    data_color_theme_id: row.data_color_theme_id,
    persisted_filters: Object.keys(row.filters).length > 0 ? row.filters : null,
    persisted_variables: null,
    quick_filter_ids: [],
    tiles: tiles.map((tile, order): DashboardTile => {
      const insight = tile.insight_id === null ? null : (shown.get(tile.insight_id) ?? null)
      const text = tile.text_id === null ? undefined : texts.get(tile.text_id)
      return {
        id: tile.id,
        insight,
        text: text
          ? {
              id: text.id,
              body: text.body,
              created_by: summary(text.created_by_id),
              last_modified_at: text.last_modified_at.toISOString(),
              last_modified_by: summary(text.last_modified_by_id),
              team: text.project_id,
            }
          : null,
        button_tile: null,
        layouts: tile.layouts,
        color: tile.color,
        filters_overrides: tile.filters_overrides,
        show_description: tile.show_description,
        transparent_background: tile.transparent_background,
        order,
        last_refresh: insight?.last_refresh ?? null,
        is_cached: insight?.is_cached ?? false,
      }
    }),
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

/**
 * Retrieving a dashboard is opening it: its `last_accessed_at` moves to now. A soft-deleted one is
 * gone, as in PostHog. `filters_override` shows it under other filters for this request only.
 */
export async function getDashboard(
  deps: CoreDeps,
  project: ProjectRow,
  idParam: string,
  query: { refresh?: InsightRefresh; filters_override?: unknown },
): Promise<Dashboard> {
  const filtersOverride = parseFiltersOverride(query.filters_override)
  const row = await dashboards.touchDashboard(deps.sql, project.id, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  return toDashboard(deps, project, row, { refresh: query.refresh, filtersOverride })
}

const isEmpty = (value: unknown) =>
  value === null ||
  value === undefined ||
  (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value).length === 0)

const displayOf = (tile: DashboardTileRow): dashboards.TileDisplay => ({
  layouts: tile.layouts,
  color: tile.color,
  filters_overrides: tile.filters_overrides,
  show_description: tile.show_description,
  transparent_background: tile.transparent_background,
})

/**
 * Puts the source dashboard's shown tiles on the new one, with their layouts and display settings:
 * insight tiles show the same insights (or copies of them, with `duplicate_tiles`), and text
 * cards are copied, so that editing one never edits the other dashboard's.
 */
async function copyTiles(tx: Sql, projectId: number, user: UserRow, from: DashboardRow, to: DashboardRow, deep: boolean): Promise<void> {
  const tiles = sortedTiles(await dashboards.dashboardTiles(tx, from.id))
  const insightRows = new Map(
    (
      await insights.findInsights(
        tx,
        projectId,
        tiles.flatMap((t) => (t.insight_id === null ? [] : [t.insight_id])),
      )
    ).map((r) => [r.id, r]),
  )
  const texts = new Map(
    (
      await dashboards.findTexts(
        tx,
        projectId,
        tiles.flatMap((t) => (t.text_id === null ? [] : [t.text_id])),
      )
    ).map((t) => [t.id, t]),
  )
  for (const tile of tiles) {
    const display = displayOf(tile)
    if (tile.insight_id !== null) {
      const insight = insightRows.get(tile.insight_id)
      if (!insight) continue
      const insightId = deep ? (await copyInsight(tx, user.id, insight)).id : insight.id
      await dashboards.insertTile(tx, { dashboardId: to.id, insightId, display })
    } else if (tile.text_id !== null) {
      const text = await dashboards.insertText(tx, { projectId, body: texts.get(tile.text_id)?.body ?? null, createdById: user.id })
      await dashboards.insertTile(tx, { dashboardId: to.id, textId: text.id, display })
    }
  }
}

/**
 * Creates a dashboard, empty or (`use_dashboard`) as a copy of another of the project's: its tiles,
 * and its filters unless the request gives some. Templates are not shipped: any `use_template`
 * is refused as PostHog refuses a key it does not know.
 */
export async function createDashboard(deps: CoreDeps, project: ProjectRow, user: UserRow, input: DashboardCreate): Promise<Dashboard> {
  const {
    use_template: useTemplate,
    use_dashboard: useDashboard,
    duplicate_tiles: duplicateTiles,
    quick_filter_ids: _none,
    ...write
  } = input
  if (useDashboard && useTemplate) throw problems.validation(null, '`use_dashboard` and `use_template` cannot be used together')
  if (useTemplate) throw problems.validation('use_template', `Invalid template provided: ${useTemplate}`)
  let source: DashboardRow | undefined
  if (useDashboard) {
    source = isSerialIdNumber(useDashboard) ? await dashboards.findDashboard(deps.sql, project.id, useDashboard) : undefined
    if (!source || source.deleted) throw problems.validation('use_dashboard', 'Invalid value provided')
  }
  const from = source
  const row = await deps.sql.begin(async (tx) => {
    const created = await dashboards.insertDashboard(tx, project.id, user.id, {
      ...write,
      creation_mode: from ? 'duplicate' : 'default',
      // As PostHog: the request's filters when it gives some, else the source's.
      filters: !isEmpty(write.filters) ? write.filters : (from?.filters ?? write.filters),
      ...(from && !isEmpty(from.breakdown_colors) ? { breakdown_colors: from.breakdown_colors } : {}),
      ...(from?.data_color_theme_id ? { data_color_theme_id: from.data_color_theme_id } : {}),
    })
    if (from) await copyTiles(tx, project.id, user, from, created, duplicateTiles === true)
    return created
  })
  return toDashboard(deps, project, row, { refresh: undefined })
}

/** The dashboard's tile of that id (deleted or not: a PATCH can bring one back), or a 400 naming it. */
async function tileOfDashboard(tx: Sql, dashboardId: number, id: number): Promise<DashboardTileRow> {
  const [tile] = await dashboards.tilesOfDashboard(tx, dashboardId, [id])
  if (!tile) throw problems.validation('tiles', `Tile ${id} is not a tile of this dashboard.`)
  return tile
}

const DISPLAY_FIELDS = ['deleted', 'color', 'layouts', 'filters_overrides', 'show_description', 'transparent_background'] as const

function displayChange(tile: DashboardTileWrite): dashboards.TileDisplay {
  return {
    ...(tile.deleted !== undefined ? { deleted: tile.deleted === true } : {}),
    ...(tile.color !== undefined ? { color: tile.color } : {}),
    ...(tile.layouts !== undefined ? { layouts: tile.layouts } : {}),
    ...(tile.filters_overrides !== undefined ? { filters_overrides: tile.filters_overrides } : {}),
    ...(tile.show_description !== undefined ? { show_description: tile.show_description } : {}),
    ...(tile.transparent_background !== undefined ? { transparent_background: tile.transparent_background } : {}),
  }
}

/**
 * One tile of a PATCH, as PostHog's `_update_tiles` reads it: a `text` creates a text card or
 * edits one of this dashboard's (`text.id`, or the text of tile `id`); otherwise an `id` with
 * display settings changes that tile's, never its insight. Ids are looked up in this dashboard only.
 */
async function applyTile(tx: Sql, project: ProjectRow, user: UserRow, dashboardId: number, tile: DashboardTileWrite): Promise<void> {
  const display = displayChange(tile)
  if (tile.text) {
    const { id: textId, body } = tile.text
    if (textId !== undefined && textId !== null) {
      const holder = await dashboards.tileOfText(tx, project.id, dashboardId, textId)
      if (!holder || (tile.id != null && tile.id !== holder.id)) throw problems.validation('text', 'Text tile not found.')
      await dashboards.updateText(tx, project.id, textId, { body, modifiedById: user.id })
      await dashboards.updateTile(tx, dashboardId, holder.id, display)
      return
    }
    if (tile.id != null) {
      const target = await tileOfDashboard(tx, dashboardId, tile.id)
      if (target.text_id === null) throw problems.validation('tiles', `Tile ${tile.id} shows an insight, not a text.`)
      await dashboards.updateText(tx, project.id, target.text_id, { body, modifiedById: user.id })
      await dashboards.updateTile(tx, dashboardId, tile.id, display)
      return
    }
    const text = await dashboards.insertText(tx, { projectId: project.id, body: body ?? null, createdById: user.id })
    await dashboards.insertTile(tx, { dashboardId, textId: text.id, display })
    return
  }
  // A tile that changes nothing PostHog reads (an insight tile sent back as it was read) is left alone.
  if (!DISPLAY_FIELDS.some((field) => tile[field] !== undefined)) return
  if (tile.id == null) throw problems.validation('tiles', 'A tile without a text needs the id of one of the dashboard’s tiles.')
  await tileOfDashboard(tx, dashboardId, tile.id)
  await dashboards.updateTile(tx, dashboardId, tile.id, display)
}

/**
 * Updates a dashboard, in one transaction. `deleted: true` is its (soft) deletion, with its tiles
 * (and, with `delete_insights`, the insights it alone shows); only a PATCH with `deleted: false`
 * finds it again, and brings back its tiles and the deleted insights they show. `tiles` are
 * applied after the other fields.
 */
export async function updateDashboard(
  deps: CoreDeps,
  project: ProjectRow,
  user: UserRow,
  idParam: string,
  input: DashboardUpdate,
): Promise<Dashboard> {
  const { tiles, delete_insights: deleteInsights, quick_filter_ids: _none, ...write } = input
  const id = serialIdOrNotFound(idParam)
  const row = await deps.sql.begin(async (tx) => {
    const current = await dashboards.findDashboard(tx, project.id, id)
    if (!current || (current.deleted && write.deleted !== false)) throw problems.notFound()
    if (current.deleted) {
      await dashboards.setAllTilesDeleted(tx, id, false)
      await dashboards.undeleteInsightsOn(tx, project.id, id)
    } else if (write.deleted === true) {
      if (deleteInsights) await dashboards.deleteInsightsOnlyOn(tx, project.id, id)
      await dashboards.setAllTilesDeleted(tx, id, true)
    }
    const updated = await dashboards.updateDashboard(tx, project.id, id, write)
    if (!updated) throw problems.notFound()
    for (const tile of tiles ?? []) await applyTile(tx, project, user, id, tile)
    return updated
  })
  return toDashboard(deps, project, row, { refresh: undefined })
}
