import { z } from 'zod'
import { breakdownFilterSchema, eventsNodeSchema, insightQueryBase, intervalSchema, MAX_SERIES } from './common'

/** Displays that answer one number per series (`aggregated_value`) instead of a series over time. */
export const TOTAL_VALUE_DISPLAYS = ['BoldNumber', 'ActionsPie', 'ActionsTable', 'ActionsBarValue', 'WorldMap'] as const

export const trendsQuerySchema = z.looseObject({
  kind: z.literal('TrendsQuery'),
  ...insightQueryBase,
  series: z.array(eventsNodeSchema).min(1).max(MAX_SERIES),
  interval: intervalSchema.nullish(),
  trendsFilter: z.looseObject({ display: z.string().max(64).nullish() }).nullish(),
  breakdownFilter: breakdownFilterSchema.nullish(),
  compareFilter: z
    .looseObject({
      compare: z.boolean().nullish(),
      /** A relative date (`-1y`, `-14d`): the previous period is the current one moved back by it. */
      compare_to: z.string().max(32).nullish(),
    })
    .nullish(),
})
export type TrendsQuery = z.infer<typeof trendsQuerySchema>
