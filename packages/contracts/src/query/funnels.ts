import { z } from 'zod'
import { breakdownFilterSchema, eventsNodeSchema, insightQueryBase } from './common'

export const FUNNEL_WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const

export const funnelsQuerySchema = z.looseObject({
  kind: z.literal('FunnelsQuery'),
  ...insightQueryBase,
  series: z.array(eventsNodeSchema).min(2).max(20),
  interval: z.string().nullish(),
  breakdownFilter: breakdownFilterSchema.nullish(),
  funnelsFilter: z
    .looseObject({
      funnelWindowInterval: z.number().int().min(1).max(100_000).nullish(),
      funnelWindowIntervalUnit: z.enum(FUNNEL_WINDOW_UNITS).nullish(),
      funnelOrderType: z.enum(['ordered', 'strict', 'unordered']).nullish(),
      funnelVizType: z.enum(['steps', 'trends', 'time_to_convert']).nullish(),
      funnelFromStep: z.number().int().min(0).nullish(),
      funnelToStep: z.number().int().min(1).nullish(),
      // PostHog clamps the bins to 1–90; a larger number is taken as 90.
      binCount: z.number().int().min(1).max(1_000_000).nullish(),
      breakdownAttributionType: z.enum(['first_touch', 'last_touch', 'all_events', 'step']).nullish(),
      /** The step (0-based) whose event gives the breakdown value, with `breakdownAttributionType: step`. */
      breakdownAttributionValue: z.number().int().min(0).nullish(),
      exclusions: z
        .array(eventsNodeSchema.extend({ funnelFromStep: z.number().int().min(0), funnelToStep: z.number().int().min(1) }))
        .max(20)
        .nullish(),
    })
    .nullish(),
})
export type FunnelsQuery = z.infer<typeof funnelsQuerySchema>
