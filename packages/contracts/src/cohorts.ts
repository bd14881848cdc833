import { z } from 'zod'
import { drfBoolean, drfString } from './drf'
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

const cohortGroupSchema: z.ZodType<CohortGroup> = z
  .object({
    type: z.enum(['AND', 'OR']),
    values: z.array(z.union([cohortConditionSchema, z.lazy(() => cohortGroupSchema)])),
  })
  .meta({ id: 'CohortFilterGroup' })

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
  name: drfString(z.string().max(400).nullable()),
  description: drfString(z.string().max(1000)),
  groups: z.array(cohortLegacyGroupSchema),
  deleted: drfBoolean(),
  filters: cohortFiltersSchema.nullable(),
  is_static: drfBoolean(),
})
/** A form field's JSON (multipart uploads send text), or the JSON itself. */
const formJson = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v
    try {
      return JSON.parse(v) as unknown
    } catch {
      return v
    }
  }, schema)

/** The members of a static cohort: an uploaded CSV of distinct ids (first column), or a list of them. */
const staticMembersSchema = z.object({
  csv: z
    .string()
    .max(50 * 1024 * 1024)
    .optional(),
  distinct_ids: z.array(z.string().min(1).max(400)).max(100_000).optional(),
})

const cohortWritableFields = cohortWritableSchema
  .extend({
    groups: formJson(cohortWritableSchema.shape.groups),
    filters: formJson(cohortWritableSchema.shape.filters),
  })
  .partial()
  .extend(staticMembersSchema.shape)
export const cohortCreateSchema = cohortWritableFields
export const cohortUpdateSchema = cohortWritableFields
export type CohortWrite = z.infer<typeof cohortUpdateSchema>

/** A member as the cohort persons endpoint lists it: a person, as the persons API shows them. */
export const cohortPersonSchema = personSchema
export type CohortPerson = Person
