import { z } from 'zod'

/** A person as PostHog's persons API returns it. */
export const personSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    /** What the person is shown as: the first of the project's display-name properties, else a distinct id. */
    name: z.string(),
    distinct_ids: z.array(z.string()),
    properties: z.record(z.string(), z.unknown()),
    is_identified: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'Person' })
export type Person = z.infer<typeof personSchema>

export const personsListQuerySchema = z.object({
  search: z.string().optional(),
  distinct_id: z.string().optional(),
  /** PostHog's property filter (JSON text in the query string). */
  properties: z.unknown().optional(),
})

export const personDeleteQuerySchema = z.object({
  /** Also removes every event of the person's distinct ids. */
  delete_events: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
    .optional()
    .transform((v) => v === true || v === 'true' || v === '1'),
})
