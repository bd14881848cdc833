import { z } from 'zod'
import { drfBoolean, drfString, formJson } from './drf'
import type { Person } from './persons'
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

/**
 * The root group; `{}` is a cohort without conditions, which is how a cohort made of empty
 * legacy `groups` answers its `filters`, so that what a client read it can send back.
 */
const cohortRootSchema = z.preprocess(
  (value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0
      ? { type: 'AND', values: [] }
      : value,
  cohortGroupSchema,
)

const FILTERS_NEED_PROPERTIES = "Filters must be a dictionary with a 'properties' key."

/** `filters`: PostHog's nested AND/OR groups of conditions under `properties`, which it requires. */
export const cohortFiltersSchema = z
  .looseObject({ properties: cohortRootSchema.optional() }, { error: FILTERS_NEED_PROPERTIES })
  .refine((filters) => filters.properties !== undefined, { message: FILTERS_NEED_PROPERTIES })

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

/** A member as the cohort persons endpoint lists it: PostHog's serialized person (an actor of an insight), `id` its uuid. */
export const cohortPersonSchema = z.object({
  type: z.literal('person'),
  id: z.string(),
  uuid: z.string(),
  created_at: z.string(),
  properties: z.record(z.string(), z.unknown()),
  is_identified: z.boolean(),
  name: z.string(),
  distinct_ids: z.array(z.string()),
  matched_recordings: z.array(z.unknown()),
  value_at_data_point: z.number().nullable(),
})
export type CohortPerson = z.infer<typeof cohortPersonSchema>

export function toCohortPerson(person: Person): CohortPerson {
  return {
    type: 'person',
    id: person.uuid,
    uuid: person.uuid,
    created_at: person.created_at,
    properties: person.properties,
    is_identified: person.is_identified,
    name: person.name,
    distinct_ids: person.distinct_ids,
    matched_recordings: [],
    value_at_data_point: null,
  }
}

/** How many distinct ids of a person its CSV row carries (PostHog's `distinct_id_limit`). */
const CSV_DISTINCT_IDS = 10

/**
 * A member as a row of the CSV export, as PostHog's `persons` action writes it: the email lifted
 * out of the properties into a column of its own, at most ten distinct ids, without the fields
 * only insights use. The export's columns are then sorted by name, as PostHog's CSV renderer
 * sorts them when a view names none.
 */
export function cohortPersonCsvRow(member: CohortPerson): Record<string, unknown> {
  const { email, ...properties } = member.properties
  return {
    id: member.id,
    ...(email ? { email } : {}),
    name: member.name,
    created_at: member.created_at,
    properties: email ? properties : member.properties,
    distinct_ids: member.distinct_ids.slice(0, CSV_DISTINCT_IDS),
  }
}

/** `GET persons/cohorts/?person_id=`: the cohorts a person (its id or uuid) is in. */
export const personCohortsQuerySchema = z.object({
  person_id: z.string().trim().min(1, 'Give the person: person_id.').max(64),
})
export const personCohortsSchema = z.object({ results: z.array(cohortSchema) })
