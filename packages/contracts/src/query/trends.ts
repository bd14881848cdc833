import { z } from 'zod'
import { breakdownFilterSchema, compareFilterSchema, eventsNodeSchema, insightQueryBase, intervalSchema, MAX_SERIES } from './common'
import { clientSide, unsupported } from './fields'

/** Displays that answer one number per series (`aggregated_value`) instead of a series over time. */
export const TOTAL_VALUE_DISPLAYS = ['BoldNumber', 'ActionsPie', 'ActionsTable', 'ActionsBarValue', 'WorldMap'] as const
/** Displays that draw the series over time as they are answered. */
export const TIME_SERIES_DISPLAYS = [
  'ActionsLineGraph',
  'ActionsBar',
  'ActionsAreaGraph',
  'ActionsStackedBar',
  'ActionsUnstackedBar',
] as const

const displaySchema = z
  .string()
  .max(64)
  .superRefine((display, ctx) => {
    if ((TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display) || (TIME_SERIES_DISPLAYS as readonly string[]).includes(display))
      return
    ctx.addIssue({ code: 'custom', message: `The display ${display} is not supported.` })
  })

/** PostHog's TrendsFilter. */
const trendsFilterSchema = z.looseObject({
  display: displaySchema.nullish(),
  smoothingIntervals: unsupported('smoothingIntervals', [1]),
  /** Series letters (A is the first series) with + - * / and parentheses; parsed by the trends runner. */
  formula: z.string().max(400).nullish(),
  /** A list of one formula, as `formula`; more than one is not supported. */
  formulas: z.array(z.string().max(400)).max(1, 'More than one formula is not supported.').nullish(),
  formulaNodes: unsupported('formulaNodes', [[]]),
  breakdown_histogram_bin_count: unsupported('breakdown_histogram_bin_count'),
  showLegend: clientSide,
  legendPosition: clientSide,
  showAlertThresholdLines: clientSide,
  aggregationAxisFormat: clientSide,
  aggregationAxisPrefix: clientSide,
  aggregationAxisPostfix: clientSide,
  decimalPlaces: clientSide,
  minDecimalPlaces: clientSide,
  xAxisLabel: clientSide,
  yAxisLabel: clientSide,
  showValuesOnSeries: clientSide,
  showLabelsOnSeries: clientSide,
  showPercentStackView: clientSide,
  stackBreakdownValues: clientSide,
  yAxisScaleType: clientSide,
  showMultipleYAxes: clientSide,
  hiddenLegendIndexes: clientSide,
  resultCustomizationBy: clientSide,
  resultCustomizations: clientSide,
  goalLines: clientSide,
  showTrendLines: clientSide,
  showAnnotations: clientSide,
  metricShowChange: clientSide,
  metricChangeIncreaseColor: clientSide,
  metricChangeDecreaseColor: clientSide,
  metricColorByDirection: clientSide,
  metricLineIncreaseColor: clientSide,
  metricLineDecreaseColor: clientSide,
  // Drawn by PostHog's client from the answered series (PostHog calls hideWeekends display-only).
  showConfidenceIntervals: clientSide,
  confidenceLevel: clientSide,
  showMovingAverage: clientSide,
  movingAverageIntervals: clientSide,
  detailedResultsAggregationType: clientSide,
  excludeBoxPlotOutliers: clientSide,
  hideWeekends: clientSide,
  metricSummary: clientSide,
})

export const trendsQuerySchema = z.looseObject({
  kind: z.literal('TrendsQuery'),
  ...insightQueryBase,
  series: z.array(eventsNodeSchema).min(1).max(MAX_SERIES),
  interval: intervalSchema.nullish(),
  trendsFilter: trendsFilterSchema.nullish(),
  breakdownFilter: breakdownFilterSchema.nullish(),
  compareFilter: compareFilterSchema.nullish(),
  /** Read by PostHog only with the CalendarHeatmap display, which is refused. */
  calendarHeatmapFilter: clientSide,
  conversionGoal: unsupported('conversionGoal'),
})
export type TrendsQuery = z.infer<typeof trendsQuerySchema>
