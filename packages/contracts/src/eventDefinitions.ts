import { z } from 'zod'
import { drfBoolean, drfInteger, drfString } from './drf'
import { userSummarySchema } from './users'

export const eventDefinitionSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  owner: z.number().int().nullable(),
  description: z.string(),
  tags: z.array(z.string()),
  volume_30_day: z.number().int().nullable(),
  query_usage_30_day: z.number().int().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string(),
  updated_by: userSummarySchema.nullable(),
  last_seen_at: z.string().nullable(),
  last_updated_at: z.string(),
  verified: z.boolean(),
  verified_at: z.string().nullable(),
  verified_by: userSummarySchema.nullable(),
  is_action: z.boolean(),
  action_id: z.number().int().nullable(),
  is_calculating: z.boolean(),
  last_calculated_at: z.string().nullable(),
  created_by: userSummarySchema.nullable(),
  post_to_chat: z.boolean(),
})
export type EventDefinition = z.infer<typeof eventDefinitionSchema>

export const eventDefinitionUpdateSchema = z
  .object({
    owner: drfInteger(z.number().int().nullable()),
    description: drfString(z.string().max(10_000).nullable()).transform((d) => d ?? ''),
    tags: z
      .array(z.string().trim().min(1).max(255))
      .max(100)
      .transform((tags) => [...new Set(tags)]),
    verified: drfBoolean(),
    post_to_chat: drfBoolean(),
  })
  .partial()
export type EventDefinitionUpdate = z.infer<typeof eventDefinitionUpdateSchema>
