import { z } from 'zod'
import { insightQueryBase, propertiesFieldSchema } from './common'

/** The event that starts or continues retention (PostHog's retention entity). */
export const retentionEntitySchema = z.looseObject({
  id: z.union([z.string().max(400), z.number()]).nullish(),
  type: z.enum(['events']).nullish(),
  kind: z.enum(['EventsNode']).nullish(),
  name: z.string().max(400).nullish(),
  properties: propertiesFieldSchema.optional(),
})
export type RetentionEntity = z.infer<typeof retentionEntitySchema>

export const RETENTION_PERIODS = ['Hour', 'Day', 'Week', 'Month'] as const

export const retentionQuerySchema = z.looseObject({
  kind: z.literal('RetentionQuery'),
  ...insightQueryBase,
  retentionFilter: z.looseObject({
    targetEntity: retentionEntitySchema.nullish(),
    returningEntity: retentionEntitySchema.nullish(),
    period: z.enum(RETENTION_PERIODS).nullish(),
    totalIntervals: z.number().int().min(1).max(120).nullish(),
    retentionType: z.enum(['retention_recurring', 'retention_first_time']).nullish(),
  }),
})
export type RetentionQuery = z.infer<typeof retentionQuerySchema>
