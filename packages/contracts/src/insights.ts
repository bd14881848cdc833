import { z } from 'zod'
import { drfBoolean, drfInteger, drfString } from './drf'
import { funnelsQuerySchema } from './query/funnels'
import { eventsQuerySchema, hogQLQuerySchema } from './query/hogql'
import { lifecycleQuerySchema } from './query/lifecycle'
import { REFRESH_MODES } from './query/request'
import { retentionQuerySchema } from './query/retention'
import { trendsQuerySchema } from './query/trends'
import { userSummarySchema } from './users'

/** The insight kinds an InsightVizNode shows, as PostHog's `source` takes them. */
const insightSourceSchema = z.discriminatedUnion('kind', [
  trendsQuerySchema,
  funnelsQuerySchema,
  retentionQuerySchema,
  lifecycleQuerySchema,
])

/**
 * An insight's `query`: PostHog's nodes that wrap a runnable query (`source`), or a HogQL query
 * itself. The display options PostHog keeps beside `source` are kept as sent.
 */
const insightQuerySchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('InsightVizNode'), source: insightSourceSchema }),
  z.looseObject({ kind: z.literal('DataTableNode'), source: z.discriminatedUnion('kind', [eventsQuerySchema, hogQLQuerySchema]) }),
  z.looseObject({ kind: z.literal('DataVisualizationNode'), source: hogQLQuerySchema }),
  hogQLQuerySchema,
])

export const insightSchema = z.object({
  id: z.number().int(),
  short_id: z.string(),
  name: z.string().nullable(),
  derived_name: z.string().nullable(),
  description: z.string(),
  query: z.record(z.string(), z.unknown()).nullable(),
  tags: z.array(z.string()),
  favorited: z.boolean(),
  saved: z.boolean(),
  deleted: z.boolean(),
  dashboards: z.array(z.number().int()),
  result: z.unknown(),
  last_refresh: z.string().nullable(),
  is_cached: z.boolean(),
  timezone: z.string(),
  created_at: z.string(),
  created_by: userSummarySchema.nullable(),
  last_modified_at: z.string(),
  last_modified_by: userSummarySchema.nullable(),
})
export type Insight = z.infer<typeof insightSchema>

const tagsSchema = z.array(drfString(z.string().max(255))).max(100)

export const insightWriteSchema = z
  .object({
    name: drfString(z.string().max(400).nullable()),
    derived_name: drfString(z.string().max(400).nullable()),
    description: drfString(z.string().max(400)),
    query: insightQuerySchema.nullable(),
    tags: tagsSchema,
    favorited: drfBoolean(),
    saved: drfBoolean(),
    deleted: drfBoolean(),
    /** The dashboards the insight is on: tiles are added and removed to match. */
    dashboards: z.array(drfInteger(z.number().int())).max(1000),
  })
  .partial()
export type InsightWrite = z.infer<typeof insightWriteSchema>

/** `refresh` as PostHog's insight endpoints read it: true computes anew, a mode says how the cache may serve. */
export const insightRefreshSchema = z.union([z.enum(REFRESH_MODES), drfBoolean()]).optional()

export const insightListQuerySchema = z.object({
  search: z.string().max(1000).optional(),
  saved: drfBoolean().optional(),
  favorited: drfBoolean().optional(),
  short_id: z.string().max(100).optional(),
  refresh: insightRefreshSchema,
})

const DASHBOARD_CREATION_MODES = ['default', 'template', 'duplicate'] as const
/** PostHog's restriction levels: everyone in the project can edit, or only those invited. */
const RESTRICTION_LEVELS = [21, 37] as const

export const dashboardBasicSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  description: z.string(),
  pinned: z.boolean(),
  created_at: z.string(),
  created_by: userSummarySchema.nullable(),
  last_accessed_at: z.string().nullable(),
  is_shared: z.boolean(),
  deleted: z.boolean(),
  creation_mode: z.enum(DASHBOARD_CREATION_MODES),
  tags: z.array(z.string()),
  restriction_level: z.number().int(),
})
export type DashboardBasic = z.infer<typeof dashboardBasicSchema>

const dashboardTileSchema = z.object({
  id: z.number().int(),
  insight: insightSchema.nullable(),
  text: z.record(z.string(), z.unknown()).nullable(),
  layouts: z.record(z.string(), z.unknown()),
  color: z.string().nullable(),
  last_refresh: z.string().nullable(),
  is_cached: z.boolean(),
})

export const dashboardSchema = dashboardBasicSchema.extend({
  tiles: z.array(dashboardTileSchema),
  filters: z.record(z.string(), z.unknown()),
})
export type Dashboard = z.infer<typeof dashboardSchema>

export const dashboardWriteSchema = z
  .object({
    name: drfString(z.string().max(400).nullable()),
    description: drfString(z.string().max(4000)),
    pinned: drfBoolean(),
    deleted: drfBoolean(),
    tags: tagsSchema,
    restriction_level: z.union(
      RESTRICTION_LEVELS.map((level) => z.literal(level)),
      {
        error: (issue) => `"${String(issue.input)}" is not a valid choice.`,
      },
    ),
    filters: z.record(z.string(), z.unknown(), { error: 'Filters must be a dictionary' }),
  })
  .partial()
export type DashboardWrite = z.infer<typeof dashboardWriteSchema>
