import { z } from 'zod'
import { breakdownFilterSchema, eventsNodeSchema, insightQueryBase, unsupportedCompareFilter } from './common'
import { clientSide, unsupported } from './fields'

export const FUNNEL_WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const

/**
 * A funnel's breakdown: as trends take it, or as a list of one property, the form PostHog's own
 * funnel tests send. Several properties at once are refused.
 */
const funnelBreakdownFilterSchema = breakdownFilterSchema.extend({
  /** `hogql`: `breakdown` is a HogQL expression over each event. */
  breakdown_type: z.enum(['event', 'person', 'hogql']).nullish(),
  breakdown: z
    .union([
      z.string().min(1).max(4_000),
      z.number(),
      z
        .array(z.union([z.string().min(1).max(400), z.number()]))
        .max(1, { message: 'Breaking a funnel down by several properties at once is not supported.' }),
    ])
    .nullish(),
  breakdown_hide_other_aggregation: unsupported('breakdown_hide_other_aggregation', [false]),
})

/** PostHog's FunnelsFilter. */
const funnelsFilterSchema = z.looseObject({
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
  funnelAggregateByHogQL: unsupported('funnelAggregateByHogQL'),
  customAggregationTarget: unsupported('customAggregationTarget', [false]),
  hideIncompleteConversionWindowPeriods: unsupported('hideIncompleteConversionWindowPeriods', [false]),
  /** How PostHog computes the funnel (with its UDF or in SQL); the answer is the same. */
  useUdf: clientSide,
  layout: clientSide,
  hiddenLegendBreakdowns: clientSide,
  /** Whether the client shows each step's conversion against the first step or the one before. */
  funnelStepReference: clientSide,
  resultCustomizations: clientSide,
  goalLines: clientSide,
  showTrendLines: clientSide,
  showLegend: clientSide,
  legendPosition: clientSide,
  showValuesOnSeries: clientSide,
  breakdownSorting: clientSide,
  showAnnotations: clientSide,
})

export const funnelsQuerySchema = z.looseObject({
  kind: z.literal('FunnelsQuery'),
  ...insightQueryBase,
  series: z.array(eventsNodeSchema).min(2).max(20),
  interval: z.string().nullish(),
  breakdownFilter: funnelBreakdownFilterSchema.nullish(),
  funnelsFilter: funnelsFilterSchema.nullish(),
  compareFilter: unsupportedCompareFilter,
})
export type FunnelsQuery = z.infer<typeof funnelsQuerySchema>
