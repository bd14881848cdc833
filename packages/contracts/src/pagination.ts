import { z } from 'zod'

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 1000
/** The largest offset ClickHouse's `OFFSET {offset:UInt32}` and PostgreSQL's reads take as given. */
export const MAX_PAGE_OFFSET = 2 ** 32 - 1

/**
 * `limit` and `offset` as PostHog reads them: a missing, non-numeric or non-positive limit
 * means the default, a larger one is capped; a bad offset means 0, one past MAX_PAGE_OFFSET is refused.
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
    .transform((v, ctx) => {
      const n = Number.parseInt(queryText(v), 10)
      if (!Number.isFinite(n) || n <= 0) return 0
      // The stores count rows in 32 bits: a larger offset would wrap round to an early page.
      if (n > MAX_PAGE_OFFSET) {
        ctx.issues.push({ code: 'too_big', origin: 'number', maximum: MAX_PAGE_OFFSET, inclusive: true, input: n })
        return z.NEVER
      }
      return n
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
    /** The query parameters that lead to the next page, where it is not simply the next offset (keyset paging). */
    next_params: z.record(z.string(), z.string()).optional(),
  })
}

/** A page of items before the transport turns it into the envelope with absolute links. */
export interface Page<T> {
  count: number
  limit: number
  offset: number
  results: T[]
  /** The query parameters that lead to the next page, where it is not simply the next offset (keyset paging). */
  next_params?: Record<string, string> | undefined
}
