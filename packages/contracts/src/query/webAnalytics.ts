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
