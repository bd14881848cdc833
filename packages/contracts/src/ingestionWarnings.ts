import { z } from 'zod'

/** One ingestion warning: what kind of problem, its details (PostHog's camelCase keys), and when. */
export const ingestionWarningSchema = z.object({
  type: z.string(),
  timestamp: z.string(),
  details: z.record(z.string(), z.unknown()),
})
export type IngestionWarning = z.infer<typeof ingestionWarningSchema>

/** The warnings of one type over the last 30 days, as PostHog's ingestion warnings endpoint sums them up. */
export const ingestionWarningSummarySchema = z.object({
  type: z.string(),
  /** The time of the most recent warning of this type. */
  lastSeen: z.string().nullable(),
  /** `[count, "YYYY-MM-DD"]` per day that had warnings of this type. */
  sparkline: z.array(z.tuple([z.number().int(), z.string()])),
  /** The 50 most recent warnings, newest first. */
  warnings: z.array(ingestionWarningSchema),
  count: z.number().int(),
})
export type IngestionWarningSummary = z.infer<typeof ingestionWarningSummarySchema>

export const ingestionWarningsResponseSchema = z.object({ results: z.array(ingestionWarningSummarySchema) })
export type IngestionWarningsResponse = z.infer<typeof ingestionWarningsResponseSchema>

/** The search text of `?q=`, bounded like the other free-text filters. */
export const ingestionWarningsQuerySchema = z.object({ q: z.string().max(1000).optional() })
