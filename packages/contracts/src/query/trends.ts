import { z } from 'zod'
import {
  breakdownFilterSchema,
  compareFilterSchema,
  eventsNodeSchema,
  insightQueryBase,
  intervalSchema,
  MAX_SERIES,
  SERIES_MATHS,
} from './common'
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
  'ActionsLineGraphCumulative',
] as const

const displaySchema = z
  .string()
  .max(64)
  .superRefine((display, ctx) => {
    if ((TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display) || (TIME_SERIES_DISPLAYS as readonly string[]).includes(display))
      return
    ctx.addIssue({ code: 'custom', message: `The display ${display} is not supported.` })
  })

/** A HogQL expression of a breakdown or a math: long enough for a multiIf over many cases. */
const MAX_EXPRESSION_LENGTH = 4_000

/** A trend's series: also counting the groups of one type (`unique_group` with `math_group_type_index`). */
const trendsSeriesSchema = eventsNodeSchema
  .extend({
    math: z.enum([...SERIES_MATHS, 'unique_group', 'hogql']).nullish(),
    math_group_type_index: z.number().int().min(0).max(4).nullish(),
    /** With `math: hogql`: a HogQL aggregate over the series' events, as `sum(properties.price)`. */
    math_hogql: z.string().min(1).max(MAX_EXPRESSION_LENGTH).nullish(),
  })
  .superRefine((node, ctx) => {
    if (node.math === 'hogql' && !node.math_hogql)
      ctx.addIssue({ code: 'custom', path: ['math_hogql'], message: 'math hogql aggregates with an expression: give math_hogql.' })
    if (node.math_hogql && node.math !== 'hogql')
      ctx.addIssue({ code: 'custom', path: ['math_hogql'], message: 'math_hogql is read with math hogql only.' })
    const typed = node.math_group_type_index !== undefined && node.math_group_type_index !== null
    if (node.math === 'unique_group' && !typed)
      ctx.addIssue({
        code: 'custom',
        path: ['math_group_type_index'],
        message: 'unique_group counts the groups of a type: give math_group_type_index.',
      })
    // PostHog's actives with a group type count groups; only unique_group does here.
    if (typed && (node.math === 'dau' || node.math === 'weekly_active' || node.math === 'monthly_active'))
      ctx.addIssue({
        code: 'custom',
        path: ['math_group_type_index'],
        message: `Counting groups with ${node.math} is not supported: use unique_group.`,
      })
  })

/** What a trend breaks down by: an event's or person's property, or a HogQL expression over the event. */
const trendsBreakdownTypeSchema = z.enum(['event', 'person', 'hogql'])

/** Each cohort of a cohort breakdown is one more membership test per event. */
export const MAX_BREAKDOWN_COHORTS = 25

/** A cohort breakdown's cohorts: their ids, and `all` for every person (PostHog's "all users"). */
const cohortBreakdownSchema = z
  .array(z.union([z.number(), z.string().max(400)]))
  .min(1)
  .max(MAX_BREAKDOWN_COHORTS, `At most ${MAX_BREAKDOWN_COHORTS} cohorts can be broken down by.`)

/** A histogram of more bins is no longer readable as a chart; each bin is one branch of the bucketing. */
const MAX_HISTOGRAM_BINS = 100
/** PostHog's own limit on properties broken down by at once. */
const MAX_BREAKDOWNS = 3

/** A trend's breakdown: as every kind takes it, and into bins of a numeric property (PostHog's histogram breakdown). */
const trendsBreakdownFilterSchema = breakdownFilterSchema
  .extend({
    breakdown_type: z.enum([...trendsBreakdownTypeSchema.options, 'cohort', 'group']).nullish(),
    /** With `group`: the group type whose properties the breakdown reads (the events' `$group_N`). */
    breakdown_group_type_index: z.number().int().min(0).max(4).nullish(),
    /** A property, a HogQL expression, or with `cohort` the cohorts (a list, or one id or `all`). */
    breakdown: z.union([z.string().min(1).max(MAX_EXPRESSION_LENGTH), z.number(), cohortBreakdownSchema]).nullish(),
    breakdown_histogram_bin_count: z.number().int().min(1).max(MAX_HISTOGRAM_BINS).nullish(),
    /** URLs without their trailing `/`, `?` and `#` (an empty one is `/`), so that one page is one value. */
    breakdown_normalize_url: z.boolean().nullish(),
    /** Several properties at once (PostHog's multiple breakdowns); each row's value is the list of their values. */
    breakdowns: z
      .array(
        z.looseObject({
          property: z.union([z.string().min(1).max(MAX_EXPRESSION_LENGTH), z.number()]),
          type: trendsBreakdownTypeSchema.nullish(),
          histogram_bin_count: unsupported('histogram_bin_count'),
          normalize_url: z.boolean().nullish(),
          group_type_index: unsupported('group_type_index'),
          breakdown_bins: unsupported('breakdown_bins', [[]]),
        }),
      )
      .max(MAX_BREAKDOWNS, `At most ${MAX_BREAKDOWNS} breakdowns are supported, as in PostHog.`)
      .nullish(),
  })
  .superRefine((filter, ctx) => {
    const listed = Array.isArray(filter.breakdown)
    const cohorts = filter.breakdown_type === 'cohort'
    if (listed && !cohorts)
      ctx.addIssue({
        code: 'custom',
        path: ['breakdown'],
        message: 'A breakdown is one property or expression; a list names cohorts, with breakdown_type cohort.',
      })
    const typed = filter.breakdown_group_type_index !== undefined && filter.breakdown_group_type_index !== null
    if (filter.breakdown_type === 'group' && !typed)
      ctx.addIssue({
        code: 'custom',
        path: ['breakdown_group_type_index'],
        message: 'A group breakdown reads one group type: give breakdown_group_type_index.',
      })
    if (typed && filter.breakdown_type !== 'group')
      ctx.addIssue({
        code: 'custom',
        path: ['breakdown_group_type_index'],
        message: 'breakdown_group_type_index is read with breakdown_type group only.',
      })
    // The list is checked here, not item by item, so that the refusal names the breakdown.
    const given = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown]
    const cohortValue = (v: unknown) => v === 'all' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0)
    if (cohorts && !given.every(cohortValue))
      ctx.addIssue({ code: 'custom', path: ['breakdown'], message: 'A cohort breakdown names cohorts by id, or all.' })
  })

/** Each formula is one more pass over the answered rows; a chart of more is not readable anyway. */
const MAX_FORMULAS = 10
/** A year of days: a wider average would smooth a chart flat. */
const MAX_SMOOTHING_INTERVALS = 366

/** PostHog's TrendsFilter. */
const trendsFilterSchema = z.looseObject({
  display: displaySchema.nullish(),
  /** A trailing moving average over this many intervals, the current one included (PostHog floors it). */
  smoothingIntervals: z.number().int().min(1).max(MAX_SMOOTHING_INTERVALS).nullish(),
  /** Series letters (A is the first series) with + - * / and parentheses; parsed by the trends runner. */
  formula: z.string().max(400).nullish(),
  /** Several formulas, each answered as its own rows. */
  formulas: z.array(z.string().max(400)).max(MAX_FORMULAS).nullish(),
  /** Formulas with their own names; when given, they take the place of `formula` and `formulas`, as in PostHog. */
  formulaNodes: z
    .array(z.looseObject({ formula: z.string().max(400), custom_name: z.string().max(400).nullish() }))
    .max(MAX_FORMULAS)
    .nullish(),
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
  series: z.array(trendsSeriesSchema).min(1).max(MAX_SERIES),
  interval: intervalSchema.nullish(),
  trendsFilter: trendsFilterSchema.nullish(),
  breakdownFilter: trendsBreakdownFilterSchema.nullish(),
  compareFilter: compareFilterSchema.nullish(),
  /** Read by PostHog only with the CalendarHeatmap display, which is refused. */
  calendarHeatmapFilter: clientSide,
  conversionGoal: unsupported('conversionGoal'),
})
export type TrendsQuery = z.infer<typeof trendsQuerySchema>
