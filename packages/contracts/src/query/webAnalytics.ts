import { z } from 'zod'
import { compareFilterSchema, dateRangeSchema, propertiesFieldSchema } from './common'
import { clientSide, modifiersSchema, nodeFields, unsupported } from './fields'

/**
 * PostHog's web analytics queries (its WebAnalyticsQueryBase and the kinds built on it): the
 * Web analytics page's overview tiles and its tables. Sessions are the events that share a
 * `$session_id`; see docs/queries.md for how each number is counted.
 */
const webAnalyticsQueryBase = {
  ...nodeFields,
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesFieldSchema.optional(),
  /** Leave out the events of the project's test accounts (its `test_account_filters`). */
  filterTestAccounts: z.boolean().nullish(),
  compareFilter: compareFilterSchema.nullish(),
  conversionGoal: unsupported('conversionGoal'),
  doPathCleaning: unsupported('doPathCleaning', [false]),
  /** Sampling answers estimates; without it (or disabled) every event is read. */
  sampling: unsupported('sampling', [{}, { enabled: false }]),
  includeRevenue: unsupported('includeRevenue', [false]),
  /** Deprecated in PostHog's schema, which says it is ignored. */
  useSessionsTable: clientSide,
  modifiers: modifiersSchema,
}

export const webOverviewQuerySchema = z.looseObject({
  kind: z.literal('WebOverviewQuery'),
  ...webAnalyticsQueryBase,
  /** The overview answers its five numbers in a fixed order: PostHog's runner does not read an order. */
  orderBy: clientSide,
})
export type WebOverviewQuery = z.infer<typeof webOverviewQuerySchema>

/** The breakdowns of PostHog's WebStatsBreakdown that the stats table answers. */
export const WEB_STATS_BREAKDOWNS = [
  'Page',
  'InitialPage',
  'InitialReferringDomain',
  'InitialUTMSource',
  'InitialUTMMedium',
  'InitialUTMCampaign',
  'Country',
  'DeviceType',
  'Browser',
  'OS',
] as const
export type WebStatsBreakdown = (typeof WEB_STATS_BREAKDOWNS)[number]

/** The columns a stats table may be ordered by (PostHog's WebAnalyticsOrderByFields that it answers). */
export const WEB_STATS_ORDER_FIELDS = ['Visitors', 'Views', 'BounceRate'] as const

/** PostHog's largest page of a table (its MAX_SELECT_RETURNED_ROWS); a larger limit is cut to it, as PostHog's. */
export const WEB_STATS_MAX_LIMIT = 50_000

export const webStatsTableQuerySchema = z.looseObject({
  kind: z.literal('WebStatsTableQuery'),
  ...webAnalyticsQueryBase,
  breakdownBy: z.enum(WEB_STATS_BREAKDOWNS, {
    error: (issue) => `breakdownBy ${JSON.stringify(issue.input)} is not supported: one of ${WEB_STATS_BREAKDOWNS.join(', ')}.`,
  }),
  includeBounceRate: z.boolean().nullish(),
  includeScrollDepth: unsupported('includeScrollDepth', [false]),
  includeAvgTimeOnPage: unsupported('includeAvgTimeOnPage', [false]),
  orderBy: z.tuple([z.enum(WEB_STATS_ORDER_FIELDS), z.enum(['ASC', 'DESC'])]).nullish(),
  limit: z.number().int().min(1).nullish(),
  offset: z.number().int().min(0).max(1_000_000).nullish(),
})
export type WebStatsTableQuery = z.infer<typeof webStatsTableQuerySchema>
