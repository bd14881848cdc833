import { z } from 'zod'

/** PostHog's error body (drf-exceptions-hog), used by every error answer of the service. */
export const apiErrorBodySchema = z.object({
  type: z.string(),
  code: z.string(),
  detail: z.string(),
  attr: z.string().nullable(),
})
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>
