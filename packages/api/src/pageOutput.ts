import { z } from 'zod'

/** A page as procedures return it; the REST facade wraps it in the envelope with links. */
export function pageOutput<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    results: z.array(item),
  })
}
