import { z } from 'zod'

/** An element of an autocapture `elements_chain`, as PostHog's events API parses it. */
export const elementSchema = z.object({
  event: z.string().nullable(),
  text: z.string().nullable(),
  tag_name: z.string().nullable(),
  attr_class: z.array(z.string()).nullable(),
  href: z.string().nullable(),
  attr_id: z.string().nullable(),
  nth_child: z.number().int().nullable(),
  nth_of_type: z.number().int().nullable(),
  attributes: z.record(z.string(), z.string()),
  order: z.number().int(),
})
export type Element = z.infer<typeof elementSchema>

export const eventPersonSchema = z.object({
  is_identified: z.boolean(),
  distinct_ids: z.array(z.string()),
  properties: z.record(z.string(), z.unknown()),
})

/** A stored event as the private API returns it. */
export const eventSchema = z.object({
  id: z.string(),
  distinct_id: z.string(),
  properties: z.record(z.string(), z.unknown()),
  event: z.string(),
  timestamp: z.string(),
  person: eventPersonSchema.nullable(),
  elements: z.array(elementSchema),
  elements_chain: z.string(),
})
export type ApiEvent = z.infer<typeof eventSchema>
