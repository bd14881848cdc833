import { z } from 'zod'

/**
 * Parts shared by PostHog's insight queries. Objects are loose: PostHog's clients send fields we
 * do not act on (`filterTestAccounts`, `modifiers`, display options), and those must not fail a query.
 */

/** A date or a relative date (`-7d`, `-1m`, `mStart`, `all`) as PostHog's date pickers send them. */
const dateText = z.string().trim().min(1).max(64)

export const dateRangeSchema = z.looseObject({
  date_from: dateText.nullish(),
  date_to: dateText.nullish(),
  /** Take both ends exactly as given, not widened to whole intervals. */
  explicitDate: z.boolean().nullish(),
})
export type DateRange = z.infer<typeof dateRangeSchema>

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const
export const intervalSchema = z.enum(INTERVALS)
export type Interval = z.infer<typeof intervalSchema>

/** The ways a series counts: events, actors, sessions, or a statistic of a numeric property. */
export const PROPERTY_MATHS = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const
/** How many of the series' events each person did in an interval, summed up over the persons. */
export const COUNT_PER_ACTOR_MATHS = [
  'avg_count_per_actor',
  'min_count_per_actor',
  'max_count_per_actor',
  'median_count_per_actor',
  'p75_count_per_actor',
  'p90_count_per_actor',
  'p95_count_per_actor',
  'p99_count_per_actor',
] as const
export const SERIES_MATHS = [
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  ...PROPERTY_MATHS,
  ...COUNT_PER_ACTOR_MATHS,
] as const
export const seriesMathSchema = z.enum(SERIES_MATHS)
export type SeriesMath = z.infer<typeof seriesMathSchema>
export type PropertyMath = (typeof PROPERTY_MATHS)[number]

/** PostHog's property filters (a list or a group), checked where they are turned into conditions. */
export const propertiesFieldSchema = z.unknown()

/** One event (or every event, when `event` is null) as a series or a step. */
export const eventsNodeSchema = z.looseObject({
  kind: z.literal('EventsNode').default('EventsNode'),
  event: z.string().max(400).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  math: seriesMathSchema.nullish(),
  math_property: z.string().min(1).max(400).nullish(),
  properties: propertiesFieldSchema.optional(),
})
export type EventsNode = z.infer<typeof eventsNodeSchema>

export const breakdownFilterSchema = z.looseObject({
  breakdown_type: z.enum(['event', 'person']).nullish(),
  breakdown: z.union([z.string().min(1).max(400), z.number()]).nullish(),
  breakdown_limit: z.number().int().min(1).max(1000).nullish(),
  breakdown_hide_other_aggregation: z.boolean().nullish(),
})
export type BreakdownFilter = z.infer<typeof breakdownFilterSchema>

/** The fields every insight query takes. */
export const insightQueryBase = {
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesFieldSchema.optional(),
  filterTestAccounts: z.boolean().nullish(),
  samplingFactor: z.number().nullish(),
  modifiers: z.record(z.string(), z.unknown()).nullish(),
}

/** A series list is bounded: each series is one more scan of the events. */
export const MAX_SERIES = 20
