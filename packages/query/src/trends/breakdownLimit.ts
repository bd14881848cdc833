import { BREAKDOWN_NULL, BREAKDOWN_NULL_DISPLAY, BREAKDOWN_OTHER, BREAKDOWN_OTHER_DISPLAY } from '../events'

export const DEFAULT_BREAKDOWN_LIMIT = 25

export interface ValueSeries {
  value: string
  /** One number per bucket (one for a total). */
  data: number[]
}

/** PostHog's order of breakdown values: real values first, then no value, then Other. */
const placeOf = (value: string) => (value === BREAKDOWN_OTHER ? 2 : value === BREAKDOWN_NULL ? 1 : 0)
const byValue = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const total = (data: number[]) => data.reduce((a, b) => a + b, 0)

/** Breakdown rows in PostHog's order: real values by their total over the range (then by value), no value, Other. */
export function orderBreakdown<T extends ValueSeries>(series: T[]): T[] {
  return series
    .map((s) => ({ s, place: placeOf(s.value), total: total(s.data) }))
    .sort((a, b) => a.place - b.place || b.total - a.total || byValue(a.s.value, b.s.value))
    .map(({ s }) => s)
}

/**
 * The values of a breakdown with the most weight kept, the rest summed into PostHog's Other
 * value, as PostHog ranks them (`orderBreakdown`): no value is the first to go into Other.
 */
export function limitBreakdown(series: ValueSeries[], limit: number): ValueSeries[] {
  const ranked = orderBreakdown(series)
  if (ranked.length <= limit) return ranked
  const kept = ranked.slice(0, limit)
  const rest = ranked.slice(limit)
  const other = rest[0]!.data.map((_, i) => rest.reduce((sum, s) => sum + (s.data[i] ?? 0), 0))
  return [...kept, { value: BREAKDOWN_OTHER, data: other }]
}

/** A breakdown value as PostHog labels it. */
export function breakdownLabel(value: string): string {
  if (value === BREAKDOWN_OTHER) return BREAKDOWN_OTHER_DISPLAY
  if (value === BREAKDOWN_NULL) return BREAKDOWN_NULL_DISPLAY
  return value
}
