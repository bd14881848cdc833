import type { PropertyCondition, PropertyExpression } from '@burrow/clickhouse'
import { ApiProblem, problems, PROPERTY_FILTER_LIMITS as LIMITS, PROPERTY_OPERATORS, type PropertyOperator } from '@burrow/contracts'
import { isValidPattern } from '@burrow/flags'
import { isJsonObject, isSerialIdNumber } from '@burrow/contracts'
import { absoluteDate } from '../apiDates'

const OPERATORS = new Set<string>(PROPERTY_OPERATORS)
const FILTER_TYPES = new Set(['event', 'person'])

const invalid = (detail: string, attr = 'properties') => problems.validation(attr, detail)

function scalarText(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length > LIMITS.maxValueLength) throw invalid(`Property filter values may have at most ${LIMITS.maxValueLength} characters.`)
    return value
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw invalid('Property filter values must be strings, numbers or booleans.')
}

/** The conditions and values a filter holds so far, checked against the limits as it is read. */
interface Budget {
  conditions: number
  values: number
}

function spend(budget: Budget, c: PropertyCondition): PropertyCondition {
  budget.conditions += 1
  budget.values += Array.isArray(c.value) ? c.value.length : 1
  if (budget.conditions > LIMITS.maxConditions) throw invalid(`A property filter may have at most ${LIMITS.maxConditions} conditions.`)
  if (budget.values > LIMITS.maxValues) throw invalid(`A property filter may compare at most ${LIMITS.maxValues} values.`)
  return c
}

/**
 * One `{key, value, operator, type}` item, its value checked against what the operator needs;
 * a bad item is a 400 naming `attr`.
 */
export function propertyCondition(item: Record<string, unknown>, attr = 'properties'): PropertyCondition {
  try {
    return condition(item)
  } catch (err) {
    if (err instanceof ApiProblem) err.body.attr = attr
    throw err
  }
}

function condition(item: Record<string, unknown>): PropertyCondition {
  const key = item.key
  if ((typeof key !== 'string' || key === '') && typeof key !== 'number') throw invalid('Each property filter needs a key.')
  if (typeof key === 'string' && key.length > LIMITS.maxValueLength)
    throw invalid(`Property filter keys may have at most ${LIMITS.maxValueLength} characters.`)
  const operator = (item.operator ?? 'exact') as string
  if (!OPERATORS.has(operator)) throw invalid(`"${operator}" is not a valid operator.`)
  const type = (item.type ?? 'event') as string
  if (!FILTER_TYPES.has(type)) throw invalid(`Property filters of type "${type}" are not supported here.`)
  const base = { key: String(key), operator: operator as PropertyOperator, type: type as 'event' | 'person' }
  const value = item.value
  switch (operator) {
    case 'is_set':
    case 'is_not_set':
      return { ...base, value: null }
    case 'exact':
    case 'is_not':
      return { ...base, value: (Array.isArray(value) ? value : [value]).map(scalarText) }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN
      if (!Number.isFinite(n)) throw invalid(`The "${operator}" operator needs a number, not ${JSON.stringify(value)}.`)
      return { ...base, value: n }
    }
    case 'regex':
    case 'not_regex': {
      const pattern = scalarText(value)
      // ClickHouse's match() reads it, with RE2 as flags do.
      if (!isValidPattern(pattern)) throw invalid(`${JSON.stringify(pattern)} is not a valid regular expression.`)
      return { ...base, value: pattern }
    }
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after': {
      const text = scalarText(value)
      const date = absoluteDate(text)
      if (date === undefined) throw invalid(`${JSON.stringify(text)} is not a date.`)
      return { ...base, value: date }
    }
    default:
      return { ...base, value: scalarText(value) }
  }
}

/** A filter or a group of them, as items of a list or of a group are. */
function expression(value: unknown, depth: number, budget: Budget): PropertyExpression {
  if (depth > LIMITS.maxDepth) throw invalid('Property filter groups are nested too deeply.')
  if (Array.isArray(value)) return { type: 'AND', values: value.map((v) => expression(v, depth + 1, budget)) }
  if (!isJsonObject(value)) throw invalid('Each property filter must be an object.')
  if (value.type === 'AND' || value.type === 'OR') {
    if (!Array.isArray(value.values)) throw invalid('A property group needs a list of values.')
    return { type: value.type, values: value.values.map((v) => expression(v, depth + 1, budget)) }
  }
  if (value.type === 'cohort') {
    // Membership of a cohort's current members; pinCohortVersions looks their version up.
    const id = Number(value.value)
    if (!isSerialIdNumber(id)) throw invalid(`${JSON.stringify(value.value)} is not a cohort id.`)
    budget.conditions += 1
    if (budget.conditions > LIMITS.maxConditions) throw invalid(`A property filter may have at most ${LIMITS.maxConditions} conditions.`)
    return { type: 'cohort', cohortId: id, version: 0, negated: value.operator === 'not_in' || value.negation === true }
  }
  return spend(budget, condition(value))
}

/** The whole filter: a list, a group, or PostHog's legacy dict `{"<key>[__<operator>]": value}`. */
function topLevel(value: unknown): PropertyExpression {
  const budget: Budget = { conditions: 0, values: 0 }
  if (!isJsonObject(value) || 'key' in value || value.type === 'AND' || value.type === 'OR') return expression(value, 0, budget)
  return {
    type: 'AND',
    values: Object.entries(value).map(([name, v]) => {
      const split = name.lastIndexOf('__')
      const op = split > 0 ? name.slice(split + 2) : ''
      return spend(
        budget,
        OPERATORS.has(op) ? condition({ key: name.slice(0, split), operator: op, value: v }) : condition({ key: name, value: v }),
      )
    }),
  }
}

/**
 * The `properties` filter of a request (a JSON text in a query string, or the value a tRPC
 * client sent) as a filter tree; anything malformed is a 400 naming `properties`.
 */
export function parsePropertyFilters(raw: unknown): PropertyExpression | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  let value: unknown = raw
  if (typeof raw === 'string') {
    if (Buffer.byteLength(raw) > LIMITS.maxTextBytes)
      throw invalid(`A property filter may be at most ${LIMITS.maxTextBytes / 1024} KB of JSON.`)
    try {
      value = JSON.parse(raw) as unknown
    } catch {
      throw invalid('Properties are unparsable!')
    }
  }
  return topLevel(value)
}
