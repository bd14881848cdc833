import { z } from 'zod'

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 1000

/**
 * `limit` and `offset` as PostHog reads them: a missing, non-numeric or non-positive limit
 * means the default, a larger one is capped; a bad offset means 0, a huge one the largest safe integer.
 */
/** A query value as text; a repeated parameter counts by its first occurrence. */
const queryText = (v: unknown): string =>
  Array.isArray(v) ? queryText(v[0]) : typeof v === 'string' || typeof v === 'number' ? String(v) : ''

export const pageQuerySchema = z.object({
  limit: z
    .unknown()
    .transform((v) => {
      const n = Number.parseInt(queryText(v), 10)
      return Number.isFinite(n) && n > 0 ? Math.min(n, MAX_PAGE_LIMIT) : DEFAULT_PAGE_LIMIT
    })
    .optional()
    .transform((v) => v ?? DEFAULT_PAGE_LIMIT)
    .meta({ type: 'integer', description: `Page size: ${DEFAULT_PAGE_LIMIT} by default, at most ${MAX_PAGE_LIMIT}` }),
  offset: z
    .unknown()
    .transform((v) => {
      const n = Number.parseInt(queryText(v), 10)
      // Beyond the integers that survive JSON and the database drivers, no page has items anyway.
      return Number.isFinite(n) && n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0
    })
    .optional()
    .transform((v) => v ?? 0)
    .meta({ type: 'integer', description: 'How many items to skip' }),
})
export type PageQuery = z.infer<typeof pageQuerySchema>

/** A page as procedures return it; the REST facade turns it into the envelope with links. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    results: z.array(item),
  })
}

/** A page of items before the transport turns it into the envelope with absolute links. */
export interface Page<T> {
  count: number
  limit: number
  offset: number
  results: T[]
}
