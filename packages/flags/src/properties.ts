import { propertyDate, parseDateText } from './dates'
import { isValidPattern, matchesPattern } from './patterns'
import { matchesSemver, SEMVER_OPERATORS, type SemverOperator } from './semver'
import type { FlagProperty } from './types'
import { asNumber, comparedText, comparedValue, text } from './values'

export interface MatchOptions {
  /** The project's timezone: dates without an offset are wall clocks there. */
  timezone?: string | undefined
}

/**
 * Whether a property condition holds for the given properties, with the PostHog flag server's
 * semantics: values compare as text (non-strings as their JSON), case-insensitively; a boolean
 * filter value compares truthiness; numbers compare as numbers; a missing property satisfies
 * only the negative operators. A condition PostHog cannot evaluate (a filter value of the wrong
 * kind) holds for neither side.
 */
export function matchProperty(property: FlagProperty, values: Record<string, unknown>, options: MatchOptions = {}): boolean {
  const operator = property.operator ?? 'exact'
  const present = Object.hasOwn(values, property.key)
  const actual = comparedValue(values[property.key])
  const expected = property.value
  if (operator === 'is_set') return present
  if (operator === 'is_not_set') return !present
  // Every other operator needs a filter value.
  if (expected === undefined || expected === null) return false
  if (SEMVER_OPERATORS.has(operator)) return present && matchesSemver(operator as SemverOperator, actual, expected)
  switch (operator) {
    case 'exact':
      return present && matchesExactly(expected, actual)
    case 'is_not':
      return !present || !matchesExactly(expected, actual)
    case 'icontains':
      return present && asciiLower(comparedText(actual)).includes(asciiLower(text(expected)))
    case 'not_icontains':
      return !present || !asciiLower(comparedText(actual)).includes(asciiLower(text(expected)))
    case 'icontains_multi':
      return present && containsAny(actual, expected)
    case 'not_icontains_multi':
      return !present || !containsAny(actual, expected)
    case 'starts_with':
      return present && asciiLower(comparedText(actual)).startsWith(asciiLower(text(expected)))
    case 'not_starts_with':
      return !present || !asciiLower(comparedText(actual)).startsWith(asciiLower(text(expected)))
    case 'ends_with':
      return present && asciiLower(comparedText(actual)).endsWith(asciiLower(text(expected)))
    case 'not_ends_with':
      return !present || !asciiLower(comparedText(actual)).endsWith(asciiLower(text(expected)))
    // A pattern that does not compile (or runs out of time) holds for neither operator, as in PostHog.
    case 'regex':
      return present && matchesPattern(text(expected), comparedText(actual)) === true
    case 'not_regex':
      return isValidPattern(text(expected)) && (!present || matchesPattern(text(expected), comparedText(actual)) === false)
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return present && compareNumbers(operator, actual, expected)
    case 'between':
    case 'not_between':
      return betweenHolds(operator, present, actual, expected)
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after':
      return present && compareDates(operator, actual, expected, options.timezone ?? 'UTC')
    default:
      return false
  }
}

/** Anything but printable ASCII and line breaks, where toLowerCase could differ from ASCII lower-casing. */
const NON_ASCII = /[^ -~\t\n\r]/

/**
 * ASCII-only lower-casing, as the server does for the substring operators. ASCII text takes
 * the engine's own lower-casing; other text has its runs of capitals lowered, one call per run.
 */
function asciiLower(value: string): string {
  if (!NON_ASCII.test(value)) return value.toLowerCase()
  return value.replace(/[A-Z]+/g, (run) => run.toLowerCase())
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

/** `exact` compares with Unicode lower-casing ("ÄRGER" is "ärger"), unlike the substring operators. */
function matchesExactly(expected: unknown, actual: unknown): boolean {
  if (booleanLike(expected)) return truthy(expected) === truthy(actual)
  const wanted = comparedText(actual).toLowerCase()
  return (Array.isArray(expected) ? expected : [expected]).some((candidate) => text(candidate).toLowerCase() === wanted)
}

/** Whether the value contains any of the filter's texts (one text or a list), ASCII case-insensitively. */
function containsAny(actual: unknown, expected: unknown): boolean {
  const haystack = asciiLower(comparedText(actual))
  return (Array.isArray(expected) ? expected : [expected]).some((needle) => haystack.includes(asciiLower(text(needle))))
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

/** The [min, max] of a `between` filter, or undefined when it is not two numbers in order. */
export function betweenBounds(expected: unknown): [number, number] | undefined {
  if (!Array.isArray(expected) || expected.length !== 2) return undefined
  const low = asNumber(expected[0])
  const high = asNumber(expected[1])
  if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) return undefined
  return [low, high]
}

/** Inclusive at both ends; a missing value is outside the range, a value that is no number in neither. */
function betweenHolds(operator: 'between' | 'not_between', present: boolean, actual: unknown, expected: unknown): boolean {
  if (!present) return operator === 'not_between'
  const bounds = betweenBounds(expected)
  const value = asNumber(actual)
  if (bounds === undefined || value === undefined || Number.isNaN(value)) return false
  const inside = value >= bounds[0] && value <= bounds[1]
  return operator === 'between' ? inside : !inside
}

function compareDates(
  operator: 'is_date_exact' | 'is_date_before' | 'is_date_after',
  actual: unknown,
  expected: unknown,
  timezone: string,
): boolean {
  // The filter's date is always text; the property's may also be epoch seconds.
  if (typeof expected !== 'string') return false
  const now = Date.now()
  const a = propertyDate(actual, timezone, now)
  const b = parseDateText(expected, timezone, now)
  if (a === undefined || b === undefined) return false
  if (operator === 'is_date_before') return a < b
  if (operator === 'is_date_after') return a > b
  return a === b
}
