import { z } from 'zod'

/** PostHog's property operators, as events filters, cohorts and flags accept them. */
export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
] as const
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number]

export const propertyOperatorSchema = z.enum(PROPERTY_OPERATORS, {
  error: (issue) => `"${String(issue.input)}" is not a valid operator.`,
})

/**
 * How large a property filter of a read may be. Each condition is a scan of every row's
 * properties, and the engine answers one read at a time, so a filter of hundreds of conditions
 * would hold every other tenant's reads; what a person builds by hand stays well inside these.
 */
export const PROPERTY_FILTER_LIMITS = {
  /** The filter's JSON text, before it is parsed. */
  maxTextBytes: 64 * 1024,
  /** Conditions, over every group. */
  maxConditions: 50,
  /** Values compared, over every condition (a list of `exact` values counts each). */
  maxValues: 500,
  /** Characters of one key or value. */
  maxValueLength: 1_000,
  /** Groups within groups. */
  maxDepth: 10,
} as const
