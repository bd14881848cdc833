import { BREAKDOWN_NULL, BREAKDOWN_NULL_DISPLAY, BREAKDOWN_OTHER, BREAKDOWN_OTHER_DISPLAY } from '../events'

export const DEFAULT_BREAKDOWN_LIMIT = 25

export interface ValueSeries {
  value: string
  /** One number per bucket (one for a total). */
  data: number[]
}

/**
 * The values of a breakdown with the most weight kept, the rest summed into PostHog's Other
 * value, as PostHog ranks them: by their total over the range, then by the value.
 */
export function limitBreakdown(series: ValueSeries[], limit: number): ValueSeries[] {
  const ranked = series
    .map((s) => ({ ...s, total: s.data.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
  if (ranked.length <= limit) return ranked.map(({ value, data }) => ({ value, data }))
  const kept = ranked.slice(0, limit).map(({ value, data }) => ({ value, data }))
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
