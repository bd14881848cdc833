import type { FlagProperty } from './types'
import { isValidPattern, matchesPattern } from './patterns'

/**
 * Whether a property condition holds for the given properties, with the PostHog flag server's
 * semantics: values compare as text (non-strings as their JSON), case-insensitively; a boolean
 * filter value compares truthiness; numbers compare as numbers; a missing property satisfies
 * only the negative operators.
 */
export function matchProperty(property: FlagProperty, values: Record<string, unknown>): boolean {
  const operator = property.operator ?? 'exact'
  const present = Object.hasOwn(values, property.key)
  const actual = values[property.key]
  const expected = property.value
  switch (operator) {
    case 'is_set':
      return present
    case 'is_not_set':
      return !present
    case 'exact':
      return present && matchesExactly(expected, actual)
    case 'is_not':
      return !present || !matchesExactly(expected, actual)
    case 'icontains':
      return present && lower(text(actual)).includes(lower(text(expected)))
    case 'not_icontains':
      return !present || !lower(text(actual)).includes(lower(text(expected)))
    case 'starts_with':
      return present && lower(text(actual)).startsWith(lower(text(expected)))
    case 'not_starts_with':
      return !present || !lower(text(actual)).startsWith(lower(text(expected)))
    case 'ends_with':
      return present && lower(text(actual)).endsWith(lower(text(expected)))
    case 'not_ends_with':
      return !present || !lower(text(actual)).endsWith(lower(text(expected)))
    // A pattern that does not compile holds for neither operator, as in PostHog.
    case 'regex':
      return present && matchesPattern(text(expected), text(actual)) === true
    case 'not_regex':
      return isValidPattern(text(expected)) && (!present || matchesPattern(text(expected), text(actual)) === false)
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return present && compareNumbers(operator, actual, expected)
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after':
      return present && compareDates(operator, actual, expected)
    default:
      return false
  }
}

/** Strings as they are; anything else as its JSON (5 → "5", true → "true"). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}

/** ASCII-only lower-casing, as the server does. */
function lower(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase())
}

/** true/false, "true"/"false" in any case, or a list of only those. */
function booleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true
  if (typeof value === 'string') return value.toLowerCase() === 'true' || value.toLowerCase() === 'false'
  return Array.isArray(value) && value.every(booleanLike)
}

/** The truth of a value next to a boolean filter: only true and "true" are true (a list: all of them). */
function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.toLowerCase() === 'true'
  return Array.isArray(value) && value.every(truthy)
}

function matchesExactly(expected: unknown, actual: unknown): boolean {
  if (booleanLike(expected)) return truthy(expected) === truthy(actual)
  const wanted = lower(text(actual))
  return (Array.isArray(expected) ? expected : [expected]).some((candidate) => lower(text(candidate)) === wanted)
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value)
    return Number.isFinite(n) ? n : undefined
  }
  return undefined
}

function compareNumbers(operator: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: unknown): boolean {
  const a = asNumber(actual)
  const b = asNumber(expected)
  if (a === undefined || b === undefined) return false
  if (operator === 'gt') return a > b
  if (operator === 'gte') return a >= b
  if (operator === 'lt') return a < b
  return a <= b
}

const RELATIVE = /^-?(\d+)([hdwmy])$/

/** A date, or a relative one such as `-7d` (hours, days, weeks, months, years before now). */
function asDate(value: unknown, now: Date): number | undefined {
  if (typeof value === 'string') {
    const relative = RELATIVE.exec(value)
    if (relative) {
      const n = Number(relative[1])
      const d = new Date(now)
      const unit = relative[2]
      if (unit === 'h') d.setUTCHours(d.getUTCHours() - n)
      else if (unit === 'd') d.setUTCDate(d.getUTCDate() - n)
      else if (unit === 'w') d.setUTCDate(d.getUTCDate() - 7 * n)
      else if (unit === 'm') d.setUTCMonth(d.getUTCMonth() - n)
      else d.setUTCFullYear(d.getUTCFullYear() - n)
      return d.getTime()
    }
  }
  if (typeof value !== 'string' && typeof value !== 'number') return undefined
  const time = new Date(value).getTime()
  return Number.isNaN(time) ? undefined : time
}

function compareDates(operator: 'is_date_exact' | 'is_date_before' | 'is_date_after', actual: unknown, expected: unknown): boolean {
  const now = new Date()
  const a = asDate(actual, now)
  const b = asDate(expected, now)
  if (a === undefined || b === undefined) return false
  if (operator === 'is_date_before') return a < b
  if (operator === 'is_date_after') return a > b
  return a === b
}
