import { refused } from './errors'
import { hogqlIdentifier, hogqlString, hogqlValue } from './hogqlText'

/** One of PostHog's property filters, as the query schemas accept it. */
export interface PropertyFilter {
  key: string
  value?: unknown
  operator?: string | null | undefined
  type?: string | undefined
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

/**
 * The project's test account filters as HogQL conditions on events (what `filterTestAccounts`
 * adds); entries that are not property filters are left out, as PostHog's settings page cannot
 * save them.
 */
export function testAccountConditions(testAccountFilters: unknown): string[] {
  if (!Array.isArray(testAccountFilters)) return []
  return testAccountFilters
    .filter((f): f is PropertyFilter => typeof f === 'object' && f !== null && typeof (f as { key?: unknown }).key === 'string')
    .map((f) => propertyFilterToHogQL(f, 'filterTestAccounts'))
}

/** A property filter as a HogQL condition on events: event or person properties, cohort membership, or a HogQL expression. */
export function propertyFilterToHogQL(filter: PropertyFilter, attr: string): string {
  const type = filter.type ?? 'event'
  if (type === 'cohort') {
    const id = Number(filter.value)
    if (!Number.isSafeInteger(id)) throw refused('The value of a cohort filter must be the cohort id.', { attr })
    const members = `person_id IN (SELECT person_id FROM cohort_people WHERE cohort_id = ${id})`
    return filter.operator === 'not_in' ? `not(${members})` : members
  }
  // A HogQL filter's key is an expression; it is printed through the same allow-lists.
  if (type === 'hogql') return `(${filter.key})`
  const key = hogqlIdentifier(filter.key)
  let p: string
  if (type === 'event') p = `properties.${key}`
  else if (type === 'person') p = `person.properties.${key}`
  else throw refused(`Property filters of type "${type}" are not supported here; use event, person, cohort or hogql.`, { attr })
  const value = filter.value
  const values = (Array.isArray(value) ? value : [value]).map(asText)
  const first = values[0] ?? ''
  switch (filter.operator ?? 'exact') {
    case 'exact':
      return values.length === 1 ? `equals(${p}, ${hogqlString(first)})` : `(${p} IN (${values.map(hogqlValue).join(', ')}))`
    case 'is_not':
      return `(${p} IS NULL OR ${p} NOT IN (${values.map(hogqlValue).join(', ')}))`
    case 'icontains':
      return `ifNull(${p} ILIKE ${hogqlString(`%${escapeLike(first)}%`)}, false)`
    case 'not_icontains':
      return `ifNull(${p} NOT ILIKE ${hogqlString(`%${escapeLike(first)}%`)}, true)`
    case 'regex':
      return `ifNull(match(${p}, ${hogqlString(first)}), false)`
    case 'not_regex':
      return `ifNull(not(match(${p}, ${hogqlString(first)})), true)`
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const n = Number(first)
      if (!Number.isFinite(n)) throw refused(`The value of a "${filter.operator}" filter must be a number.`, { attr })
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.operator!]!
      return `ifNull(toFloat(${p}) ${op} ${n}, false)`
    }
    case 'is_set':
      return `(${p} IS NOT NULL)`
    case 'is_not_set':
      return `(${p} IS NULL)`
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after': {
      const op = filter.operator === 'is_date_exact' ? '=' : filter.operator === 'is_date_before' ? '<' : '>'
      return `ifNull(toDateTime(${p}) ${op} toDateTime(${hogqlString(first)}), false)`
    }
    default:
      throw refused(`"${String(filter.operator)}" is not a valid operator.`, { attr })
  }
}
