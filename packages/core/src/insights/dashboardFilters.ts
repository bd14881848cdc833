import { dashboardFiltersProblem, isJsonObject, jsonNestsDeeperThan, MAX_JSON_DEPTH, problems } from '@burrow/contracts'

// A dashboard's filters, and how they change the queries of the insights it shows.

/** PostHog's dashboard filters: `date_from`, `date_to`, `properties`, `breakdown_filter` (and `interval`, `explicitDate`). */
export type DashboardFilters = Record<string, unknown>

/** Fields a higher layer sets outright when it has them. */
const SCALAR_FILTERS = ['breakdown_filter', 'interval', 'filterTestAccounts'] as const

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : [])
const asPropertyList = (properties: unknown): unknown[] => (isJsonObject(properties) ? [properties] : listOf(properties))

/**
 * A tile's `filters_overrides` over its dashboard's filters, as PostHog layers them: what the tile
 * sets wins, the date range as one unit (a tile's `date_from` never meets the dashboard's
 * `date_to`), and property filters of both apply together.
 */
export function mergeFilterLayers(base: DashboardFilters, override: DashboardFilters | null | undefined): DashboardFilters {
  if (!override || Object.keys(override).length === 0) return base
  if (Object.keys(base).length === 0) return override
  const merged: DashboardFilters = { ...base }
  for (const field of SCALAR_FILTERS) if (override[field] !== undefined && override[field] !== null) merged[field] = override[field]
  if (override.date_from != null || override.date_to != null) {
    merged.date_from = override.date_from ?? null
    merged.date_to = override.date_to ?? null
    delete merged.explicitDate
    if (override.explicitDate != null) merged.explicitDate = override.explicitDate
  }
  const properties = [...asPropertyList(base.properties), ...asPropertyList(override.properties)]
  if (properties.length > 0) merged.properties = properties
  return merged
}

const isPropertyGroup = (value: unknown): value is { type: 'AND' | 'OR'; values: unknown[] } =>
  isJsonObject(value) && (value.type === 'AND' || value.type === 'OR') && Array.isArray(value.values)

/** Whether a `properties` value (a list, a group, PostHog's legacy dict) filters on anything. */
function hasPropertyFilters(properties: unknown): boolean {
  if (Array.isArray(properties)) return properties.some((p) => (isPropertyGroup(p) ? hasPropertyFilters(p.values) : p != null))
  if (isPropertyGroup(properties)) return hasPropertyFilters(properties.values)
  return isJsonObject(properties) && Object.keys(properties).length > 0
}

/** An insight query's own properties AND the dashboard's, as PostHog nests them; a legacy dict it cannot nest is left alone. */
function andProperties(own: unknown, added: unknown): unknown {
  if (!hasPropertyFilters(own)) return added
  const asGroup = (p: unknown) => (Array.isArray(p) ? { type: 'AND', values: p } : p)
  if (!Array.isArray(own) && !isPropertyGroup(own)) return own
  return { type: 'AND', values: [asGroup(own), asGroup(added)] }
}

const INSIGHT_QUERY_KINDS = new Set(['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'LifecycleQuery'])
const KINDS_WITH_BREAKDOWN = new Set(['TrendsQuery', 'FunnelsQuery'])
const KINDS_WITH_INTERVAL = new Set(['TrendsQuery', 'LifecycleQuery'])

/**
 * The runnable query as a dashboard shows it (PostHog's `apply_dashboard_filters`): the
 * dashboard's date range replaces the query's when it sets one, its property filters are ANDed
 * with the query's, and its breakdown and interval replace the query's. The insight's stored
 * query is left as it is; this is a copy.
 */
export function applyDashboardFilters(query: unknown, filters: DashboardFilters | undefined): unknown {
  if (!filters || Object.keys(filters).length === 0 || !isJsonObject(query)) return query
  const setsDates = Boolean(filters.date_from) || Boolean(filters.date_to)
  const addedList = listOf(filters.properties).length > 0 ? listOf(filters.properties) : undefined
  if (query.kind === 'HogQLQuery') {
    // A HogQL query takes dashboard filters through its `{filters}` placeholder.
    const own = isJsonObject(query.filters) ? query.filters : {}
    const next: Record<string, unknown> = { ...own }
    if (setsDates) next.dateRange = { date_from: filters.date_from ?? null, date_to: filters.date_to ?? null }
    if (addedList) next.properties = [...listOf(own.properties), ...addedList]
    return { ...query, filters: next }
  }
  if (query.kind === 'EventsQuery') {
    const next: Record<string, unknown> = { ...query }
    if (setsDates) Object.assign(next, { after: filters.date_from ?? null, before: filters.date_to ?? null })
    if (addedList) next.properties = [...listOf(query.properties), ...addedList]
    return next
  }
  if (typeof query.kind !== 'string' || !INSIGHT_QUERY_KINDS.has(query.kind)) return query
  const next: Record<string, unknown> = { ...query }
  if (hasPropertyFilters(filters.properties)) next.properties = andProperties(query.properties, filters.properties)
  if (setsDates) {
    next.dateRange = {
      ...(isJsonObject(query.dateRange) ? query.dateRange : {}),
      date_from: filters.date_from ?? null,
      date_to: filters.date_to ?? null,
      ...(filters.explicitDate != null ? { explicitDate: filters.explicitDate } : {}),
    }
  }
  if (KINDS_WITH_BREAKDOWN.has(query.kind) && isJsonObject(filters.breakdown_filter) && Object.keys(filters.breakdown_filter).length > 0)
    next.breakdownFilter = filters.breakdown_filter
  if (KINDS_WITH_INTERVAL.has(query.kind) && typeof filters.interval === 'string') next.interval = filters.interval
  return next
}

/** PostHog's `filters_override` parameter: dashboard filters for one request, as JSON text (or the object a tRPC client sends). */
export function parseFiltersOverride(raw: unknown): DashboardFilters | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  const invalid = () => problems.validation('filters_override', 'Invalid JSON passed in filters_override parameter')
  let value: unknown = raw
  if (typeof raw === 'string') {
    if (jsonNestsDeeperThan(raw, MAX_JSON_DEPTH)) throw invalid()
    try {
      value = JSON.parse(raw) as unknown
    } catch {
      throw invalid()
    }
  }
  if (!isJsonObject(value)) throw invalid()
  const problem = dashboardFiltersProblem(value)
  if (problem) throw problems.validation('filters_override', problem)
  return value
}
