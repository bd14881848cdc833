import { replaceNul } from '@burrow/core'
import { drop, ok, type Step } from '../pipeline'

const MAX_DISTINCT_ID_LENGTH = 200

/**
 * A distinct id as it is stored: NUL as U+FFFD (PostgreSQL holds no U+0000), and at most 200
 * characters (whole code points), as PostHog keeps.
 */
export function storedDistinctId(text: string): string {
  const id = replaceNul(text)
  return id.length > MAX_DISTINCT_ID_LENGTH ? Array.from(id).slice(0, MAX_DISTINCT_ID_LENGTH).join('') : id
}

/** JSON text with object keys sorted, as PostHog stringifies non-string distinct ids. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}

/**
 * The distinct id from the top level (`distinct_id`, `$distinct_id`) or the properties.
 * Missing or empty: the event is dropped (the spec's second and third silent drops).
 * Non-strings are stringified; NUL becomes U+FFFD; at most 200 characters are kept.
 */
export const resolveDistinctId: Step = {
  name: 'resolve_distinct_id',
  run(event) {
    const input = event.input
    const properties = input.properties
    let value = input.distinct_id ?? input.$distinct_id
    if ((value === undefined || value === null) && properties && typeof properties === 'object') {
      value = (properties as Record<string, unknown>).distinct_id
    }
    if (value === undefined || value === null) return drop('missing_distinct_id')
    const id = typeof value === 'string' ? value : canonicalJson(value)
    if (id.trim() === '') return drop('empty_distinct_id')
    event.distinctId = storedDistinctId(id)
    return ok
  },
}
