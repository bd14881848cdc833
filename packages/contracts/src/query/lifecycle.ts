import { z } from 'zod'
import { eventsNodeSchema, insightQueryBase, intervalSchema } from './common'
import { clientSide, unsupported } from './fields'

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const

export const lifecycleQuerySchema = z.looseObject({
  kind: z.literal('LifecycleQuery'),
  ...insightQueryBase,
  /** Count the groups of this type (their `$group_N` key) instead of persons. */
  aggregation_group_type_index: z.number().int().min(0).max(4).nullish(),
  /** Lifecycle follows one event. */
  series: z.array(eventsNodeSchema).length(1),
  interval: intervalSchema.nullish(),
  lifecycleFilter: z
    .looseObject({
      /** Which statuses the chart shows; every status is answered, as PostHog answers them. */
      toggledLifecycles: z.array(z.enum(LIFECYCLE_STATUSES)).nullish(),
      showValuesOnSeries: clientSide,
      showPercentagesOnSeries: clientSide,
      showLegend: clientSide,
      legendPosition: clientSide,
      stacked: clientSide,
    })
    .nullish(),
  customAggregationTarget: unsupported('customAggregationTarget', [false]),
})
export type LifecycleQuery = z.infer<typeof lifecycleQuerySchema>
