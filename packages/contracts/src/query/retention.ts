import { z } from 'zod'
import { dateRangeSchema, insightQueryBase, propertiesFieldSchema, unsupportedBreakdownFilter } from './common'
import { clientSide, nodeFields, unsupported } from './fields'

/** The event or action that starts or continues retention (PostHog's retention entity). */
export const retentionEntitySchema = z.looseObject({
  /** The event's name, or with type `actions` (kind `ActionsNode`) the action's id. */
  id: z.union([z.string().max(400), z.number()]).nullish(),
  type: z.enum(['events', 'actions']).nullish(),
  kind: z.enum(['EventsNode', 'ActionsNode']).nullish(),
  properties: propertiesFieldSchema.optional(),
  name: clientSide,
  custom_name: clientSide,
  order: clientSide,
  uuid: clientSide,
  ...nodeFields,
})
export type RetentionEntity = z.infer<typeof retentionEntitySchema>

export const RETENTION_PERIODS = ['Hour', 'Day', 'Week', 'Month'] as const

export const retentionQuerySchema = z.looseObject({
  kind: z.literal('RetentionQuery'),
  ...insightQueryBase,
  /** Cohorts are counted back from `date_to`; the range is never taken verbatim. */
  dateRange: dateRangeSchema.extend({ explicitDate: unsupported('explicitDate', [false]) }).nullish(),
  retentionFilter: z.looseObject({
    targetEntity: retentionEntitySchema.nullish(),
    returningEntity: retentionEntitySchema.nullish(),
    period: z.enum(RETENTION_PERIODS).nullish(),
    totalIntervals: z.number().int().min(1).max(120).nullish(),
    retentionType: z.enum(['retention_recurring', 'retention_first_time']).nullish(),
    /** A person counts in every period up to the last it came back in (PostHog's rolling retention). */
    cumulative: z.boolean().nullish(),
    /** How many returning events in a period make it count. */
    minimumOccurrences: z.number().int().min(1).max(1_000_000).nullish(),
    timeWindowMode: unsupported('timeWindowMode', ['strict_calendar_dates']),
    retentionCustomBrackets: unsupported('retentionCustomBrackets', [[]]),
    aggregationType: unsupported('aggregationType', ['count']),
    aggregationProperty: unsupported('aggregationProperty'),
    aggregationPropertyType: unsupported('aggregationPropertyType', ['event']),
    customAggregationTarget: unsupported('customAggregationTarget', [false]),
    /** Whether the client shows each period against the cohort or against the period before. */
    retentionReference: clientSide,
    meanRetentionCalculation: clientSide,
    display: clientSide,
    dashboardDisplay: clientSide,
    showTrendLines: clientSide,
    selectedInterval: clientSide,
    goalLines: clientSide,
    cohortLabelStartIndex: clientSide,
  }),
  breakdownFilter: unsupportedBreakdownFilter,
})
export type RetentionQuery = z.infer<typeof retentionQuerySchema>
