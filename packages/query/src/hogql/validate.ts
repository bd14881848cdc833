import type { z } from 'zod'
import { refused } from './errors'

/**
 * A query checked against its schema, for callers that pass it on as received: a bad field is a
 * 400 naming it (the endpoint normally validates first, with DRF's wording).
 */
export function validQuery<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const attr = issue && issue.path.length > 0 ? issue.path.map(String).join('__') : undefined
  throw refused(issue?.message ?? 'Invalid query.', { ...(attr ? { attr } : {}), cause: parsed.error })
}
