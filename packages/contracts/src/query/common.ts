import { z } from 'zod'
import { clientSide, modifiersSchema, nodeFields, unsupported } from './fields'

/**
 * Parts shared by PostHog's insight queries. Every field of PostHog's schema is declared (see
 * `./fields`): applied, refused unless it asks for nothing, or client-side. Objects stay loose for
 * fields PostHog's schema does not have.
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
  // A person counted once, in the interval of their first event of the series ever (PostHog's first-time users).
  'first_time_for_user',
  // The same, of their first event that also matches the filters.
  'first_matching_event_for_user',
  ...PROPERTY_MATHS,
  ...COUNT_PER_ACTOR_MATHS,
] as const
export const seriesMathSchema = z.enum(SERIES_MATHS)
export type SeriesMath = z.infer<typeof seriesMathSchema>
export type PropertyMath = (typeof PROPERTY_MATHS)[number]

/** PostHog's property filters (a list or a group), checked where they are turned into conditions. */
export const propertiesFieldSchema = z.unknown()

/** One event (or every event, when `event` is null), or one action, as a series or a step. */
export const eventsNodeSchema = z.looseObject({
  /** `ActionsNode`: the events of one of the project's actions (`id`) instead of one event name. */
  kind: z.enum(['EventsNode', 'ActionsNode']).default('EventsNode'),
  ...nodeFields,
  event: z.string().max(400).nullish(),
  /** An ActionsNode's action. */
  id: z.number().int().positive().nullish(),
  /** PostHog's runners label a series by its event, not by `name`. */
  name: clientSide,
  custom_name: z.string().max(400).nullish(),
  math: seriesMathSchema.nullish(),
  math_property: z.string().min(1).max(400).nullish(),
  properties: propertiesFieldSchema.optional(),
  /** Filters the interface does not let the user edit: applied with `properties`. */
  fixedProperties: propertiesFieldSchema.optional(),
  math_multiplier: unsupported('math_multiplier', [1]),
  math_property_type: unsupported('math_property_type', ['event_properties']),
  math_property_revenue_currency: unsupported('math_property_revenue_currency'),
  math_hogql: unsupported('math_hogql'),
  math_group_type_index: unsupported('math_group_type_index'),
  optionalInFunnel: unsupported('optionalInFunnel', [false]),
  /** For tables of events; PostHog's insight runners do not read them. */
  limit: clientSide,
  orderBy: clientSide,
})
export type EventsNode = z.infer<typeof eventsNodeSchema>

/** The breakdown fields PostHog has that no kind applies yet. */
const unsupportedBreakdownFields = {
  breakdown_normalize_url: unsupported('breakdown_normalize_url', [false]),
  breakdown_path_cleaning: unsupported('breakdown_path_cleaning', [false]),
  breakdowns: unsupported('breakdowns', [[]]),
  breakdown_group_type_index: unsupported('breakdown_group_type_index'),
  breakdown_histogram_bin_count: unsupported('breakdown_histogram_bin_count'),
}

export const breakdownFilterSchema = z.looseObject({
  breakdown_type: z.enum(['event', 'person']).nullish(),
  breakdown: z.union([z.string().min(1).max(400), z.number()]).nullish(),
  breakdown_limit: z.number().int().min(1).max(1000).nullish(),
  breakdown_hide_other_aggregation: z.boolean().nullish(),
  ...unsupportedBreakdownFields,
})
export type BreakdownFilter = z.infer<typeof breakdownFilterSchema>

/** The fields every insight query takes (PostHog's InsightsQueryBase). */
export const insightQueryBase = {
  ...nodeFields,
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesFieldSchema.optional(),
  /** Leave out the events of the project's test accounts (its `test_account_filters`). */
  filterTestAccounts: z.boolean().nullish(),
  aggregation_group_type_index: unsupported('aggregation_group_type_index'),
  samplingFactor: unsupported('samplingFactor', [1]),
  dataColorTheme: clientSide,
  modifiers: modifiersSchema,
}

/** A series list is bounded: each series is one more scan of the events. */
export const MAX_SERIES = 20

export const compareFilterSchema = z.looseObject({
  compare: z.boolean().nullish(),
  /** A relative date (`-1y`, `-14d`): the previous period is the current one moved back by it. */
  compare_to: z.string().max(32).nullish(),
})

/** A compare filter where a kind has none: comparing nothing passes. */
export const unsupportedCompareFilter = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return
    if (typeof value === 'object' && !Array.isArray(value) && !(value as { compare?: unknown }).compare) return
    ctx.addIssue({ code: 'custom', path: ['compare'], message: 'Comparing to another period is not supported for this kind.' })
  })
  .optional()

/** A breakdown where a kind has none: a filter that breaks down by nothing passes. */
export const unsupportedBreakdownFilter = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return
    if (typeof value === 'object' && !Array.isArray(value)) {
      const filter = value as Record<string, unknown>
      const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0)
      if (empty(filter.breakdown) && empty(filter.breakdowns)) return
    }
    ctx.addIssue({ code: 'custom', path: ['breakdown'], message: 'Breakdowns are not supported for this kind.' })
  })
  .optional()
