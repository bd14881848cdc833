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

const scalar = z.union([z.string(), z.number(), z.boolean()])

/** One condition on a property: `{key, value, operator, type}`. */
export const propertyFilterSchema = z.looseObject({
  key: z.union([z.string().min(1), z.number()]).transform(String),
  value: z.union([scalar, z.array(scalar)]).nullable().optional(),
  operator: propertyOperatorSchema.nullable().optional().transform((op) => op ?? 'exact'),
  type: z.string().optional().transform((t) => t ?? 'event'),
})
export type PropertyFilter = z.infer<typeof propertyFilterSchema>
