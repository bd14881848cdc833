import { z } from 'zod'
import { kindNotServed, modifiersSchema, nodeFields, clientSide, unsupported } from './fields'
import { funnelsQuerySchema } from './funnels'
import { LIFECYCLE_STATUSES, lifecycleQuerySchema } from './lifecycle'
import { retentionQuerySchema } from './retention'
import { STICKINESS_OPERATORS, stickinessQuerySchema } from './stickiness'
import { trendsQuerySchema } from './trends'

/**
 * PostHog's ActorsQuery: the persons of the project (its persons list), or the persons behind one
 * data point of an insight (its persons modal), with `source` saying which point.
 */

/** PostHog's paginator answers 100 rows unless asked; a page is bounded here to a thousand. */
export const ACTORS_DEFAULT_LIMIT = 100
export const ACTORS_MAX_LIMIT = 1000

/** A person property as a column: `properties.email`, `properties.$initial_browser`. */
export const PERSON_PROPERTY_COLUMN = /^properties\.([A-Za-z0-9_$][A-Za-z0-9_$\-:]{0,199})$/

/** The columns the runner answers: the person (as PostHog's object), its fields and properties, and the point's own columns. */
export const ACTOR_COLUMNS = [
  'person',
  'actor',
  'id',
  'created_at',
  'is_identified',
  'person.$delete',
  'event_count',
  'event_distinct_ids',
  'appearances',
] as const

const columnSchema = z
  .string()
  .trim()
  .max(400)
  .superRefine((column, ctx) => {
    if ((ACTOR_COLUMNS as readonly string[]).includes(column) || PERSON_PROPERTY_COLUMN.test(column)) return
    ctx.addIssue({ code: 'custom', message: `The column ${column} is not supported.` })
  })

/** What a page may be ordered by: a column with ASC or DESC (`person` orders by the email, as PostHog's does). */
const ORDERABLE = /^(person|actor|id|created_at|event_count|properties\.[A-Za-z0-9_$][A-Za-z0-9_$\-:]{0,199})(\s+(ASC|DESC))?$/i

const orderSchema = z
  .string()
  .trim()
  .max(400)
  .superRefine((order, ctx) => {
    if (ORDERABLE.test(order)) return
    ctx.addIssue({ code: 'custom', message: `Ordering by ${order} is not supported.` })
  })

/** The fields every actors source has (PostHog's InsightActorsQueryBase). */
const actorsSourceBase = {
  ...nodeFields,
  /** PostHog's session recordings of each person's matching events: there are no recordings here. */
  includeRecordings: unsupported('includeRecordings', [false]),
  modifiers: modifiersSchema,
  response: clientSide,
}

const dayField = z.union([z.string().trim().min(1).max(64), z.number().int().min(-100_000).max(100_000)]).nullish()
const compareField = z.enum(['current', 'previous']).nullish()
const seriesField = z.number().int().min(0).max(100).nullish()

/** PostHog's InsightActorsQuery: the point of a trend (day, series, breakdown, compare), a lifecycle bar (day, status), a stickiness bar (day) or a retention cohort (interval). */
export const insightActorsQuerySchema = z.looseObject({
  kind: z.literal('InsightActorsQuery'),
  ...actorsSourceBase,
  source: z.discriminatedUnion('kind', [trendsQuerySchema, lifecycleQuerySchema, stickinessQuerySchema, retentionQuerySchema], {
    error: kindNotServed,
  }),
  day: dayField,
  status: z.enum(LIFECYCLE_STATUSES).nullish(),
  /** A retention cohort's row (0 is the first). */
  interval: z.number().int().min(0).max(100_000).nullish(),
  series: seriesField,
  breakdown: z.union([z.string().max(400), z.number(), z.array(z.union([z.string().max(400), z.number()])).max(3)]).nullish(),
  compare: compareField,
})
export type InsightActorsQuery = z.infer<typeof insightActorsQuerySchema>

/** PostHog's StickinessActorsQuery: the persons active in `day` intervals (or, with `operator`, at least or at most that many). */
export const stickinessActorsQuerySchema = z.looseObject({
  kind: z.literal('StickinessActorsQuery'),
  ...actorsSourceBase,
  source: stickinessQuerySchema,
  day: dayField,
  series: seriesField,
  compare: compareField,
  operator: z.enum(STICKINESS_OPERATORS).nullish(),
})
export type StickinessActorsQuery = z.infer<typeof stickinessActorsQuerySchema>

/** PostHog's FunnelsActorsQuery: the persons who reached step N (positive) or dropped off before step |N| (negative). */
export const funnelsActorsQuerySchema = z.looseObject({
  kind: z.literal('FunnelsActorsQuery'),
  ...actorsSourceBase,
  source: funnelsQuerySchema,
  funnelStep: z
    .number()
    .int()
    .min(-20)
    .max(20)
    .refine((step) => step !== 0 && step !== -1, 'funnelStep counts steps from 1; -1 would be dropping off before the first step.')
    .nullish(),
  funnelStepBreakdown: z.union([z.string().max(400), z.number(), z.array(z.union([z.string().max(400), z.number()])).max(1)]).nullish(),
  funnelCustomSteps: unsupported('funnelCustomSteps', [[]]),
  funnelTrendsDropOff: unsupported('funnelTrendsDropOff', [false]),
  funnelTrendsEntrancePeriodStart: unsupported('funnelTrendsEntrancePeriodStart'),
})
export type FunnelsActorsQuery = z.infer<typeof funnelsActorsQuerySchema>

export const actorsSourceSchema = z.discriminatedUnion(
  'kind',
  [insightActorsQuerySchema, stickinessActorsQuerySchema, funnelsActorsQuerySchema],
  { error: kindNotServed },
)
export type ActorsSource = z.infer<typeof actorsSourceSchema>

/** PostHog's ActorsQuery. */
export const actorsQuerySchema = z.looseObject({
  kind: z.literal('ActorsQuery'),
  ...nodeFields,
  source: actorsSourceSchema.nullish(),
  select: z.array(columnSchema).min(1).max(50).nullish(),
  /** Persons whose email or name, id or one of their distinct ids holds this text (case aside), as PostHog searches them. */
  search: z.string().max(400).nullish(),
  orderBy: z.array(orderSchema).max(10).nullish(),
  limit: z.number().int().min(1).max(ACTORS_MAX_LIMIT).nullish(),
  offset: z.number().int().min(0).max(1_000_000).nullish(),
  /** Person property filters: not applied here. */
  properties: unsupported('properties', [[]]),
  fixedProperties: unsupported('fixedProperties', [[]]),
  modifiers: modifiersSchema,
  response: clientSide,
})
export type ActorsQuery = z.infer<typeof actorsQuerySchema>
