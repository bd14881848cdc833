import { randomInt } from 'node:crypto'
import {
  analyticsQuerySchema,
  ApiProblem,
  insightQuerySchema,
  isSerialIdNumber,
  problems,
  type Insight,
  type InsightWrite,
  type Page,
  type PageQuery,
  type RefreshMode,
} from '@burrow/contracts'
import { dashboards, insights, type InsightRow, type ProjectRow, type Sql, type UserRow } from '@burrow/postgres'
import { applyDashboardFilters, mergeFilterLayers, parseFiltersOverride, type DashboardFilters } from './dashboardFilters'
import type { CoreDeps } from '../deps'
import { serialIdOrNotFound } from '../ids'
import { legacyFiltersToQuery } from './insightFilters'
import { runQueryRequest } from '../queries'
import { searchTerms } from '../search'
import { userSummaries } from '../access/users'

/** `refresh` as the insight endpoints take it: true always computes; a mode as `/query/` takes it. */
export type InsightRefresh = RefreshMode | boolean | undefined

const SHORT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const SHORT_ID_LENGTH = 8
/** A collision in 62^8 ids is rare; a few draws make it vanish. */
const SHORT_ID_ATTEMPTS = 5

/** PostHog's short ids: 8 letters and digits, drawn at random, that links to an insight carry. */
function generateShortId(): string {
  let id = ''
  for (let i = 0; i < SHORT_ID_LENGTH; i++) id += SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)]
  return id
}

interface InsightResult {
  result: unknown
  last_refresh: string | null
  is_cached: boolean
}

const NO_RESULT: InsightResult = { result: null, last_refresh: null, is_cached: false }

/** The query the runner computes for an insight's node: a node's `source`, or the query itself. */
function runnableQuery(query: Record<string, unknown> | null): unknown {
  if (query === null) return undefined
  return query.kind === 'HogQLQuery' ? query : query.source
}

/**
 * How an answer computes its insights' results: `refresh` as the client asked, and `strict` where
 * a query that cannot be computed fails the request with its message (PostHog's retrieve);
 * elsewhere (lists, dashboards, writes) it leaves that insight's result empty, so that one broken
 * insight does not take the others down with it.
 */
interface ResultOptions {
  refresh: InsightRefresh
  strict?: boolean
  /** The dashboard filters each insight (by id) is computed with, where it is shown on a dashboard. */
  filters?: ReadonlyMap<number, DashboardFilters>
}

/** The insight's result through the `/query/` runner and its cache. */
async function insightResult(deps: CoreDeps, project: ProjectRow, row: InsightRow, options: ResultOptions): Promise<InsightResult> {
  const parsed = analyticsQuerySchema.safeParse(applyDashboardFilters(runnableQuery(row.query), options.filters?.get(row.id)))
  if (!parsed.success) return NO_RESULT
  try {
    const answer = await runQueryRequest(deps, project, { query: parsed.data, refresh: options.refresh ?? 'blocking' })
    return { result: answer.results, last_refresh: answer.last_refresh, is_cached: answer.is_cached }
  } catch (err: unknown) {
    if (options.strict && err instanceof ApiProblem) throw err
    if (!(err instanceof ApiProblem)) deps.log(`insight ${row.id} of project ${project.id} could not be computed`, err)
    return NO_RESULT
  }
}

/** Insights as the API answers them, their results computed one after the other within the project's query slots. */
export async function toInsights(deps: CoreDeps, project: ProjectRow, rows: InsightRow[], options: ResultOptions): Promise<Insight[]> {
  const summary = await userSummaries(
    deps,
    rows.flatMap((r) => [r.created_by_id, r.last_modified_by_id]),
  )
  const onDashboards = await dashboards.dashboardsOfInsights(
    deps.sql,
    rows.map((r) => r.id),
  )
  const answers: Insight[] = []
  for (const row of rows) {
    const result = row.deleted ? NO_RESULT : await insightResult(deps, project, row, options)
    answers.push({
      id: row.id,
      short_id: row.short_id,
      name: row.name,
      derived_name: row.derived_name,
      description: row.description,
      query: row.query,
      tags: row.tags,
      favorited: row.favorited,
      saved: row.saved,
      deleted: row.deleted,
      dashboards: onDashboards.get(row.id) ?? [],
      ...result,
      timezone: project.timezone || 'UTC',
      created_at: row.created_at.toISOString(),
      created_by: summary(row.created_by_id),
      last_modified_at: row.last_modified_at.toISOString(),
      last_modified_by: summary(row.last_modified_by_id),
    })
  }
  return answers
}

async function toInsight(deps: CoreDeps, project: ProjectRow, row: InsightRow, options: ResultOptions): Promise<Insight> {
  const [insight] = await toInsights(deps, project, [row], options)
  return insight!
}

export async function listInsights(
  deps: CoreDeps,
  project: ProjectRow,
  query: PageQuery & {
    search?: string | undefined
    saved?: boolean | undefined
    favorited?: boolean | undefined
    short_id?: string | undefined
    refresh?: InsightRefresh
  },
): Promise<Page<Insight>> {
  const page = { limit: query.limit, offset: query.offset }
  const filter = { search: searchTerms(query.search), saved: query.saved, favorited: query.favorited, shortId: query.short_id }
  const { count, rows } = await insights.listInsights(deps.sql, project.id, filter, page)
  return { count, ...page, results: await toInsights(deps, project, rows, { refresh: query.refresh }) }
}

/** A soft-deleted insight is gone for the API, as in PostHog, except to a PATCH that brings it back. */
async function findInsight(deps: CoreDeps, projectId: number, idParam: string, options: { undeleting: boolean }): Promise<InsightRow> {
  const row = await insights.findInsight(deps.sql, projectId, serialIdOrNotFound(idParam))
  if (!row || (row.deleted && !options.undeleting)) throw problems.notFound()
  return row
}

/**
 * An insight with its result; `from_dashboard` computes it as that dashboard shows it (its
 * filters, the tile's overrides), when the insight is on it, and `filters_override` lays filters
 * of the request's own over those.
 */
export async function getInsight(
  deps: CoreDeps,
  project: ProjectRow,
  idParam: string,
  query: { refresh?: InsightRefresh; from_dashboard?: number | undefined; filters_override?: unknown },
): Promise<Insight> {
  const row = await findInsight(deps, project.id, idParam, { undeleting: false })
  const override = parseFiltersOverride(query.filters_override)
  const shownOn =
    query.from_dashboard === undefined || !isSerialIdNumber(query.from_dashboard)
      ? undefined
      : await dashboards.insightTileOnDashboard(deps.sql, project.id, query.from_dashboard, row.id)
  const base = { ...(shownOn?.dashboard.filters ?? {}), ...override }
  const filters = mergeFilterLayers(base, shownOn?.tile.filters_overrides)
  return toInsight(deps, project, row, { refresh: query.refresh, strict: true, filters: new Map([[row.id, filters]]) })
}

/**
 * The dashboards an insight is to be on: deleted ones are left out, as PostHog leaves them out,
 * and an id that names no dashboard of the project is refused.
 */
async function dashboardsToShowOn(deps: CoreDeps, projectId: number, ids: readonly number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined
  const wanted = [...new Set(ids)]
  const states = await dashboards.dashboardStates(deps.sql, projectId, wanted)
  if (states.length < wanted.length) throw problems.validation(null, 'Dashboard not found')
  return states.filter((d) => !d.deleted).map((d) => d.id)
}

/**
 * The insight's columns from a write. Without a query, legacy `filters` become one, as PostHog
 * converts them; a conversion this service cannot run is refused naming `filters`, as a query
 * would be.
 */
function rowWrite({ dashboards: _dashboards, filters, ...write }: InsightWrite): insights.InsightWrite {
  if ((write.query !== undefined && write.query !== null) || !filters || Object.keys(filters).length === 0) return write
  const query = legacyFiltersToQuery(filters)
  const parsed = insightQuerySchema.safeParse(query)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 1 ? ` (${issue.path.slice(1).join('.')})` : ''
    throw problems.validation('filters', `These filters make a query that cannot be run${where}: ${issue?.message ?? 'invalid query'}`)
  }
  return { ...write, query }
}

/** A new insight row under a short id of its own. */
async function insertWithShortId(sql: Sql, projectId: number, userId: number, write: insights.InsightWrite): Promise<InsightRow> {
  for (let attempt = 1; attempt <= SHORT_ID_ATTEMPTS; attempt++) {
    const row = await insights.insertInsight(sql, { projectId, shortId: generateShortId(), userId, write })
    if (row) return row
  }
  throw new Error(`no free short id for an insight of project ${projectId} after ${SHORT_ID_ATTEMPTS} attempts`)
}

/** A copy of an insight, created by the user, as PostHog's duplication of a dashboard with `duplicate_tiles` makes it. */
export function copyInsight(sql: Sql, userId: number, row: InsightRow): Promise<InsightRow> {
  return insertWithShortId(sql, row.project_id, userId, {
    name: row.name ? `${row.name} (Copy)` : null,
    derived_name: row.derived_name,
    description: row.description,
    query: row.query,
    tags: row.tags,
    favorited: row.favorited,
    saved: row.saved,
  })
}

export async function createInsight(deps: CoreDeps, project: ProjectRow, user: UserRow, input: InsightWrite): Promise<Insight> {
  const onDashboards = await dashboardsToShowOn(deps, project.id, input.dashboards)
  const row = await insertWithShortId(deps.sql, project.id, user.id, rowWrite(input))
  if (onDashboards !== undefined) await dashboards.setInsightDashboards(deps.sql, row.id, onDashboards)
  return toInsight(deps, project, row, { refresh: undefined })
}

/**
 * Updates an insight; `deleted: true` is its (soft) deletion, which takes it off its dashboards,
 * and `deleted: false` brings it back; `dashboards` names the dashboards it is on.
 */
export async function updateInsight(
  deps: CoreDeps,
  project: ProjectRow,
  user: UserRow,
  idParam: string,
  input: InsightWrite,
): Promise<Insight> {
  const current = await findInsight(deps, project.id, idParam, { undeleting: input.deleted === false })
  const onDashboards = input.deleted ? [] : await dashboardsToShowOn(deps, project.id, input.dashboards)
  const row = await insights.updateInsight(deps.sql, { projectId: project.id, id: current.id, userId: user.id, write: rowWrite(input) })
  if (!row) throw problems.notFound()
  if (onDashboards !== undefined) await dashboards.setInsightDashboards(deps.sql, row.id, onDashboards)
  return toInsight(deps, project, row, { refresh: undefined })
}
