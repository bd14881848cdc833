import { z } from 'zod'

/** The user summary embedded in resources (`created_by`, `updated_by`, `verified_by`). */
export const userSummarySchema = z.object({
  id: z.number().int(),
  uuid: z.uuid(),
  distinct_id: z.string(),
  first_name: z.string(),
  email: z.string(),
})
export type UserSummary = z.infer<typeof userSummarySchema>
