import { z } from 'zod'
import { eventsNodeSchema, insightQueryBase, intervalSchema } from './common'

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const

export const lifecycleQuerySchema = z.looseObject({
  kind: z.literal('LifecycleQuery'),
  ...insightQueryBase,
  /** Lifecycle follows one event. */
  series: z.array(eventsNodeSchema).length(1),
  interval: intervalSchema.nullish(),
  lifecycleFilter: z.looseObject({ toggledLifecycles: z.array(z.enum(LIFECYCLE_STATUSES)).nullish() }).nullish(),
})
export type LifecycleQuery = z.infer<typeof lifecycleQuerySchema>
