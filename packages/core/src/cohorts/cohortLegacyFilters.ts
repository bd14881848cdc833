import { isJsonObject } from '@burrow/contracts'
import type { CohortRow } from '@burrow/postgres'

type Json = Record<string, unknown>

/** PostHog's property group as a dictionary: an empty group is `{}`. */
const group = (type: 'AND' | 'OR', values: unknown[]): Json => (values.length === 0 ? {} : { type, values })

/** A legacy group naming an event (or action) performed, as PostHog's behavioural condition. */
function performed(legacy: Json): Json {
  const count = Math.max(0, Math.trunc(Number(legacy.count ?? 0)) || 0)
  const condition: Json = {
    key: legacy.action_id ?? legacy.event_id,
    type: 'behavioral',
    value: count > 0 ? 'performed_event_multiple' : 'performed_event',
    event_type: legacy.action_id ? 'actions' : 'events',
    time_interval: 'day',
    time_value: legacy.days || 365,
    operator_value: count,
  }
  if (legacy.count_operator != null) condition.operator = legacy.count_operator
  return condition
}

/**
 * The `filters` a cohort answers: its own when it has any, else those PostHog derives from the
 * legacy `groups` (an OR of AND groups), so that clients reading `filters` see every cohort's conditions.
 */
export function legacyFilters(row: Pick<CohortRow, 'filters' | 'groups'>): Json {
  if (isJsonObject(row.filters) && Object.keys(row.filters).length > 0) return row.filters
  const groups: Json[] = []
  for (const legacy of row.groups) {
    if (!isJsonObject(legacy)) return { properties: {} }
    if (Array.isArray(legacy.properties) && legacy.properties.length > 0) {
      groups.push(
        group(
          'AND',
          legacy.properties.filter(isJsonObject).map((p) => ({ ...p, type: p.type ?? 'person' })),
        ),
      )
    } else if (legacy.action_id || legacy.event_id) {
      groups.push(group('AND', [performed(legacy)]))
    } else {
      // PostHog reads a group of neither kind as no conditions at all.
      return { properties: {} }
    }
  }
  return { properties: group('OR', groups) }
}
