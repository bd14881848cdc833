import { z } from 'zod'
import { actorsQuerySchema } from './actors'
import { kindNotServed, unsupported } from './fields'
import { funnelsQuerySchema } from './funnels'
import { eventsQuerySchema, hogQLQuerySchema } from './hogql'
import { lifecycleQuerySchema } from './lifecycle'
import { pathsQuerySchema } from './paths'
import { retentionQuerySchema } from './retention'
import { stickinessQuerySchema } from './stickiness'
import { trendsQuerySchema } from './trends'
import { webOverviewQuerySchema, webStatsTableQuerySchema } from './webAnalytics'

/** Every query kind the endpoint runs, told apart by `kind`. */
export const analyticsQuerySchema = z.discriminatedUnion(
  'kind',
  [
    trendsQuerySchema,
    lifecycleQuerySchema,
    funnelsQuerySchema,
    retentionQuerySchema,
    stickinessQuerySchema,
    pathsQuerySchema,
    hogQLQuerySchema,
    eventsQuerySchema,
    webOverviewQuerySchema,
    webStatsTableQuerySchema,
    actorsQuerySchema,
  ],
  { error: kindNotServed },
)
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>
export type QueryKind = AnalyticsQuery['kind']

/**
 * How a request may use the cache: `blocking` computes unless a fresh answer is cached,
 * `force_blocking` always computes, `force_cache` answers only from the cache, the async modes
 * answer at once with a `query_status` to poll.
 */
export const REFRESH_MODES = [
  'blocking',
  'force_blocking',
  'force_cache',
  'async',
  'force_async',
  'lazy_async',
  'async_except_on_cache_miss',
] as const
export type RefreshMode = (typeof REFRESH_MODES)[number]

export const queryRequestSchema = z.object({
  query: analyticsQuerySchema,
  /** PostHog's clients send booleans too: true is `force_blocking`, false `blocking`. */
  refresh: z.union([z.enum(REFRESH_MODES), z.boolean()]).nullish(),
  client_query_id: z.string().min(1).max(200).nullish(),
  name: z.string().max(400).nullish(),
  async: z.boolean().nullish(),
  filters_override: unsupported('filters_override', [{}]),
  variables_override: unsupported('variables_override', [{}]),
  limit_context: unsupported('limit_context'),
})
export type QueryRequest = z.infer<typeof queryRequestSchema>

export const queryProgressSchema = z.object({
  bytes_read: z.number(),
  rows_read: z.number(),
  estimated_rows_total: z.number(),
  time_elapsed: z.number(),
  active_cpu_time: z.number(),
})

/** Where an async query stands, as `GET .../query/:id/` answers it. */
export const queryStatusSchema = z.object({
  id: z.string(),
  query_async: z.literal(true),
  team_id: z.number().int(),
  error: z.boolean(),
  complete: z.boolean(),
  error_message: z.string().nullable(),
  results: z.unknown().nullable(),
  pickup_time: z.string().nullable(),
  start_time: z.string().nullable(),
  end_time: z.string().nullable(),
  expiration_time: z.string().nullable(),
  query_progress: queryProgressSchema.nullable(),
})
export type QueryStatus = z.infer<typeof queryStatusSchema>

export const resolvedDateRangeSchema = z.object({ date_from: z.string(), date_to: z.string() })
export type ResolvedDateRange = z.infer<typeof resolvedDateRangeSchema>

/** The answer of `POST .../query/`; the fields of `results` depend on the kind. */
export const queryResponseSchema = z.looseObject({
  results: z.unknown(),
  timings: z.array(z.object({ k: z.string(), t: z.number() })),
  hogql: z.string().nullable(),
  error: z.string().nullable(),
  is_cached: z.boolean(),
  last_refresh: z.string().nullable(),
  next_allowed_client_refresh: z.string().nullable(),
  cache_target_age: z.string().nullable(),
  cache_key: z.string(),
  timezone: z.string(),
  calculation_trigger: z.string().nullable(),
  query_status: queryStatusSchema.nullable(),
  resolved_date_range: resolvedDateRangeSchema.nullable(),
  modifiers: z.record(z.string(), z.unknown()),
})
export type QueryResponse = z.infer<typeof queryResponseSchema>
