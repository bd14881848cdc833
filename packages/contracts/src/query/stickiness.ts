import { z } from 'zod'
import {
  compareFilterSchema,
  eventsNodeSchema,
  insightQueryBase,
  intervalSchema,
  MAX_SERIES,
  SERIES_MATHS,
  unsupportedBreakdownFilter,
} from './common'
import { clientSide } from './fields'

/**
 * A stickiness series. PostHog's stickiness counts the persons behind each series whatever its
 * math, save `unique_group`, which counts the groups of `math_group_type_index` instead (persons
 * again without one). `math: hogql` is refused, as everywhere.
 */
const stickinessSeriesSchema = eventsNodeSchema.extend({
  math: z.enum([...SERIES_MATHS, 'unique_group']).nullish(),
  math_group_type_index: z.number().int().min(0).max(4).nullish(),
})

export const STICKINESS_OPERATORS = ['gte', 'lte', 'exact'] as const

/** PostHog's StickinessFilter. */
const stickinessFilterSchema = z.looseObject({
  /** An interval counts for a person only when the person did the series' event this many times in it. */
  stickinessCriteria: z.looseObject({ operator: z.enum(STICKINESS_OPERATORS), value: z.number().int().min(0).max(1_000_000) }).nullish(),
  /** `cumulative`: each number is of the persons active in that many intervals or more. */
  computedAs: z.enum(['non_cumulative', 'cumulative']).nullish(),
  display: clientSide,
  showLegend: clientSide,
  showValuesOnSeries: clientSide,
  showMultipleYAxes: clientSide,
  hiddenLegendIndexes: clientSide,
  resultCustomizationBy: clientSide,
  resultCustomizations: clientSide,
})

/** PostHog's StickinessQuery: for each series, how many persons were active in exactly 1, 2, … N of the range's intervals. */
export const stickinessQuerySchema = z.looseObject({
  kind: z.literal('StickinessQuery'),
  ...insightQueryBase,
  series: z.array(stickinessSeriesSchema).min(1).max(MAX_SERIES),
  interval: intervalSchema.nullish(),
  /** How many intervals make one period: periods are counted back from the end of the range. */
  intervalCount: z.number().int().min(1).max(1000).nullish(),
  stickinessFilter: stickinessFilterSchema.nullish(),
  compareFilter: compareFilterSchema.nullish(),
  /** PostHog's stickiness has no breakdown: one asked for is refused rather than left out. */
  breakdownFilter: unsupportedBreakdownFilter,
})
export type StickinessQuery = z.infer<typeof stickinessQuerySchema>
