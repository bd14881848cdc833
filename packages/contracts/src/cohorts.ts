import { z } from 'zod'
import { personSchema, type Person } from './persons'
import { propertyOperatorSchema } from './propertyFilters'
import { userSummarySchema } from './users'

/** A condition of a cohort's `filters`: on a person property, another cohort, or behaviour. */
const cohortConditionSchema = z.looseObject({
  key: z.union([z.string().min(1), z.number()]),
  type: z.enum(['person', 'cohort', 'behavioral', 'static-cohort', 'precalculated-cohort'], {
    error: (issue) => `"${String(issue.input)}" is not a valid condition type.`,
  }),
  operator: propertyOperatorSchema.nullable().optional(),
  value: z.unknown().optional(),
  negation: z.boolean().optional(),
})

type CohortGroup = { type: 'AND' | 'OR'; values: Array<z.infer<typeof cohortConditionSchema> | CohortGroup> }

const cohortGroupSchema: z.ZodType<CohortGroup> = z.object({
  type: z.enum(['AND', 'OR']),
  values: z.array(z.union([cohortConditionSchema, z.lazy(() => cohortGroupSchema)])),
}).meta({ id: 'CohortFilterGroup' })

/** `filters`: PostHog's nested AND/OR groups of conditions under `properties`. */
export const cohortFiltersSchema = z.looseObject({ properties: cohortGroupSchema.optional() })

/** A legacy `groups` entry: property conditions, or an event performed within some days. */
const cohortLegacyGroupSchema = z.looseObject({
  properties: z.array(z.looseObject({ key: z.union([z.string(), z.number()]) })).optional(),
  action_id: z.number().int().optional(),
  event_id: z.string().optional(),
  days: z.union([z.number(), z.string()]).optional(),
  count: z.number().int().optional(),
  count_operator: z.enum(['gte', 'lte', 'eq']).optional(),
})

export const cohortSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  description: z.string(),
  groups: z.array(z.record(z.string(), z.unknown())),
  deleted: z.boolean(),
  filters: z.record(z.string(), z.unknown()).nullable(),
  is_calculating: z.boolean(),
  created_by: userSummarySchema.nullable(),
  created_at: z.string(),
  last_calculation: z.string().nullable(),
  errors_calculating: z.number().int(),
  count: z.number().int().nullable(),
  is_static: z.boolean(),
})
export type Cohort = z.infer<typeof cohortSchema>

export const cohortWritableSchema = z.object({
  name: z.string().max(400).nullable(),
  description: z.string().max(1000),
  groups: z.array(cohortLegacyGroupSchema),
  deleted: z.boolean(),
  filters: cohortFiltersSchema.nullable(),
  is_static: z.boolean(),
})
export const cohortCreateSchema = cohortWritableSchema.partial()
export const cohortUpdateSchema = cohortWritableSchema.partial()
export type CohortWrite = z.infer<typeof cohortUpdateSchema>

/** A member as the cohort persons endpoint lists it: a person, as the persons API shows them. */
export const cohortPersonSchema = personSchema
export type CohortPerson = Person
