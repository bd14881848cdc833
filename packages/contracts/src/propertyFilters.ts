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
