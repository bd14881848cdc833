import { BREAKDOWN_NULL, BREAKDOWN_NULL_DISPLAY, BREAKDOWN_OTHER, BREAKDOWN_OTHER_DISPLAY } from '../events'
import { BREAKDOWN_PART_SEPARATOR } from './aggregation'

export const DEFAULT_BREAKDOWN_LIMIT = 25

export interface ValueSeries {
  value: string
  /** One number per bucket (one for a total). */
  data: number[]
}

/** PostHog's order of breakdown values: real values first, then no value, then Other (in any of several properties). */
function placeOf(value: string): number {
  const values = value.split(BREAKDOWN_PART_SEPARATOR)
  return values.includes(BREAKDOWN_OTHER) ? 2 : values.includes(BREAKDOWN_NULL) ? 1 : 0
}
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
 * value (`other`: Other in each property when there are several), as PostHog ranks them
 * (`orderBreakdown`): no value is the first to go into Other.
 */
export function limitBreakdown(series: ValueSeries[], limit: number, other: string): ValueSeries[] {
  const ranked = orderBreakdown(series)
  if (ranked.length <= limit) return ranked
  const kept = ranked.slice(0, limit)
  const rest = ranked.slice(limit)
  const summed = rest[0]!.data.map((_, i) => rest.reduce((sum, s) => sum + (s.data[i] ?? 0), 0))
  return [...kept, { value: other, data: summed }]
}

/** A breakdown value as PostHog labels it: several properties' values joined by `::`, as they are. */
export function breakdownLabel(value: string): string {
  if (value.includes(BREAKDOWN_PART_SEPARATOR)) return value.split(BREAKDOWN_PART_SEPARATOR).join('::')
  if (value === BREAKDOWN_OTHER) return BREAKDOWN_OTHER_DISPLAY
  if (value === BREAKDOWN_NULL) return BREAKDOWN_NULL_DISPLAY
  return value
}
