import { MAX_SERIAL_ID } from './ids'
import { z } from 'zod'
import { drfBoolean, drfInteger, drfString } from './drf'
import { isJsonObject } from './json'
import { kindNotServed } from './query/fields'
import { INTERVALS } from './query/common'
import { funnelsQuerySchema } from './query/funnels'
import { eventsQuerySchema, hogQLQuerySchema } from './query/hogql'
import { lifecycleQuerySchema } from './query/lifecycle'
import { pathsQuerySchema } from './query/paths'
import { REFRESH_MODES } from './query/request'
import { retentionQuerySchema } from './query/retention'
import { stickinessQuerySchema } from './query/stickiness'
import { trendsQuerySchema } from './query/trends'
import { userSummarySchema } from './users'

/** The insight kinds an InsightVizNode shows, as PostHog's `source` takes them. */
const insightSourceSchema = z.discriminatedUnion(
  'kind',
  [trendsQuerySchema, funnelsQuerySchema, retentionQuerySchema, lifecycleQuerySchema, stickinessQuerySchema, pathsQuerySchema],
  { error: kindNotServed },
)

/**
 * An insight's `query`: PostHog's nodes that wrap a runnable query (`source`), or a HogQL query
 * itself. The display options PostHog keeps beside `source` are kept as sent.
 */
export const insightQuerySchema = z.discriminatedUnion('kind', [
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
    /** PostHog's legacy filters: without a query, the insight's query is made from them, as PostHog makes it. */
    filters: z
      .record(z.string(), z.unknown())
      .refine((f) => JSON.stringify(f).length <= 64 * 1024, { message: 'Ensure this value is at most 65536 characters of JSON.' }),
  })
  .partial()
export type InsightWrite = z.infer<typeof insightWriteSchema>

/** `refresh` as PostHog's insight endpoints read it: true computes anew, a mode says how the cache may serve. */
export const insightRefreshSchema = z.union([z.enum(REFRESH_MODES), drfBoolean()]).optional()

/** PostHog's `filters_override`: dashboard filters for this one request, as JSON text in the query string. */
const filtersOverrideSchema = z.union([z.string().max(65_536), z.record(z.string(), z.unknown())]).optional()

export const insightGetQuerySchema = z.object({
  refresh: insightRefreshSchema,
  /** The dashboard the insight is seen on: its filters (and the tile's) apply to the result. */
  from_dashboard: drfInteger(z.number().int()).optional(),
  filters_override: filtersOverrideSchema,
})

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

/** A PATCH changes at most this many tiles: more is a script gone wrong, and each is a few statements. */
const MAX_TILES_PER_WRITE = 100
/** PostHog's bound on a text card. */
const MAX_TEXT_BODY = 4000
/** Bounds on JSON kept as it is sent, in characters of its JSON text. */
const MAX_FILTERS_JSON = 64 * 1024
const MAX_LAYOUTS_JSON = 16 * 1024
const MAX_COLORS_JSON = 64 * 1024

const jsonLength = (value: unknown) => JSON.stringify(value)?.length ?? 0

const isDateText = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.length <= 64)
const isPropertiesValue = (v: unknown) => v === undefined || v === null || Array.isArray(v) || isJsonObject(v)
const isOptionalObject = (v: unknown) => v === undefined || v === null || isJsonObject(v)
const isOptionalInterval = (v: unknown) => v === undefined || v === null || (INTERVALS as readonly unknown[]).includes(v)
const isOptionalBoolean = (v: unknown) => v === undefined || v === null || typeof v === 'boolean'

/**
 * What is wrong with dashboard filters (a dashboard's, a tile's `filters_overrides`, a request's
 * `filters_override`), if anything: PostHog's DashboardFilter fields must have its types, or
 * applying them to an insight's query would fail long after they were saved.
 */
export function dashboardFiltersProblem(filters: Record<string, unknown>): string | undefined {
  if (jsonLength(filters) > MAX_FILTERS_JSON) return `Filters may be at most ${MAX_FILTERS_JSON} characters of JSON.`
  if (!isDateText(filters.date_from)) return 'date_from must be a date or a relative date such as -7d.'
  if (!isDateText(filters.date_to)) return 'date_to must be a date or a relative date such as -7d.'
  if (!isPropertiesValue(filters.properties)) return 'properties must be a list of property filters.'
  if (!isOptionalObject(filters.breakdown_filter)) return 'breakdown_filter must be a dictionary.'
  if (!isOptionalInterval(filters.interval)) return `interval must be one of ${INTERVALS.join(', ')}.`
  if (!isOptionalBoolean(filters.explicitDate)) return 'explicitDate must be a boolean.'
  return undefined
}

/** Dashboard filters as a field: a dictionary, checked by dashboardFiltersProblem. */
const dashboardFiltersSchema = (notADict: string) =>
  z.record(z.string(), z.unknown(), { error: notADict }).superRefine((filters, ctx) => {
    const problem = dashboardFiltersProblem(filters)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })

const boundedJson = <T extends z.ZodType>(schema: T, max: number) =>
  schema.refine((value) => jsonLength(value) <= max, { message: `Ensure this value is at most ${max} characters of JSON.` })

/** A text card as PostHog answers it. */
const dashboardTextSchema = z.object({
  id: z.number().int(),
  body: z.string().nullable(),
  created_by: userSummarySchema.nullable(),
  last_modified_at: z.string(),
  last_modified_by: userSummarySchema.nullable(),
  team: z.number().int(),
})

export const dashboardBasicSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  description: z.string(),
  pinned: z.boolean(),
  created_at: z.string(),
  created_by: userSummarySchema.nullable(),
  last_accessed_at: z.string().nullable(),
  /** When the caller last opened it: views are not recorded, so always null. */
  last_viewed_at: z.string().nullable(),
  is_shared: z.boolean(),
  deleted: z.boolean(),
  creation_mode: z.enum(DASHBOARD_CREATION_MODES),
  tags: z.array(z.string()),
  restriction_level: z.number().int(),
  effective_restriction_level: z.number().int(),
  /** 37: the caller can edit (no dashboard has collaborators of its own here). */
  effective_privilege_level: z.number().int(),
  user_access_level: z.string().nullable(),
  access_control_version: z.enum(['v1', 'v2']),
  last_refresh: z.string().nullable(),
  team_id: z.number().int(),
})
export type DashboardBasic = z.infer<typeof dashboardBasicSchema>

const dashboardTileSchema = z.object({
  id: z.number().int(),
  insight: insightSchema.nullable(),
  text: dashboardTextSchema.nullable(),
  /** Button tiles are not served. */
  button_tile: z.null(),
  layouts: z.record(z.string(), z.unknown()),
  color: z.string().nullable(),
  filters_overrides: z.record(z.string(), z.unknown()).nullable(),
  show_description: z.boolean().nullable(),
  transparent_background: z.boolean().nullable(),
  /** The tile's place when the tiles are read by their `sm` layout, top to bottom, then left to right. */
  order: z.number().int(),
  last_refresh: z.string().nullable(),
  is_cached: z.boolean(),
})
export type DashboardTile = z.infer<typeof dashboardTileSchema>

export const dashboardSchema = dashboardBasicSchema.extend({
  /** The filters that apply to the tiles: the stored ones, with a request's `filters_override` over them. */
  filters: z.record(z.string(), z.unknown()),
  variables: z.record(z.string(), z.unknown()),
  breakdown_colors: z.unknown(),
  data_color_theme_id: z.number().int().nullable(),
  persisted_filters: z.record(z.string(), z.unknown()).nullable(),
  persisted_variables: z.record(z.string(), z.unknown()).nullable(),
  quick_filter_ids: z.array(z.string()),
  tiles: z.array(dashboardTileSchema),
})
export type Dashboard = z.infer<typeof dashboardSchema>

export const dashboardGetQuerySchema = z.object({ refresh: insightRefreshSchema, filters_override: filtersOverrideSchema })

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

const dashboardWriteSchema = z
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
    filters: dashboardFiltersSchema('Filters must be a dictionary'),
    breakdown_colors: boundedJson(
      z
        .unknown()
        .refine((value) => value !== null && value !== undefined, { message: 'This field may not be null.', params: { code: 'null' } }),
      MAX_COLORS_JSON,
    ),
    data_color_theme_id: drfInteger(z.number().int().min(1).max(MAX_SERIAL_ID)).nullable(),
    /**
     * Quick filters are not served, so none can be named: as PostHog answers an id it does not
     * have. An empty list (or null) is what every dashboard has.
     */
    quick_filter_ids: z
      .array(drfString(z.string().max(200)))
      .max(100)
      .nullable()
      .superRefine((ids, ctx) => {
        if (!ids || ids.length === 0) return
        const invalid = ids.find((id) => !UUID_PATTERN.test(id))
        ctx.addIssue({
          code: 'custom',
          message: invalid !== undefined ? `Invalid UUID: ${invalid}` : `Quick filters not found: ${ids.join(', ')}`,
        })
      }),
  })
  .partial()

export const dashboardCreateSchema = dashboardWriteSchema.extend({
  /** A template's key: no templates are shipped, so any key is refused as PostHog refuses an unknown one. */
  use_template: drfString(z.string().max(400)).optional(),
  /** The id of a dashboard of the project whose tiles and filters the new one starts with. */
  use_dashboard: drfInteger(z.number().int()).nullable().optional(),
  /** With `use_dashboard`: copy the insights too, rather than showing the same ones. */
  duplicate_tiles: drfBoolean().optional(),
})
export type DashboardCreate = z.infer<typeof dashboardCreateSchema>

const tileIdSchema = drfInteger(z.number().int().min(1).max(MAX_SERIAL_ID))

/**
 * A tile of PATCH `tiles`: with `text`, a text card to create (no `text.id`) or to edit; otherwise
 * the display settings of the dashboard's tile `id`. What else a client sends back from the
 * dashboard it read (`insight`, `order`, `is_cached`...) is ignored, as PostHog ignores it.
 */
const dashboardTileWriteSchema = z.object({
  id: tileIdSchema.nullish(),
  text: z
    .object({
      id: tileIdSchema.nullish(),
      // Bounded by MAX_TEXT_BODY where the whole PATCH is checked, which reports it as PostHog does.
      body: drfString(z.string().nullable()).optional(),
    })
    .nullish(),
  deleted: drfBoolean().nullish(),
  color: drfString(z.string().max(400).nullable()).optional(),
  layouts: boundedJson(z.record(z.string(), z.unknown()), MAX_LAYOUTS_JSON).optional(),
  filters_overrides: dashboardFiltersSchema('Filters must be a dictionary').nullable().optional(),
  show_description: drfBoolean().nullable().optional(),
  transparent_background: drfBoolean().nullable().optional(),
})
export type DashboardTileWrite = z.infer<typeof dashboardTileWriteSchema>

export const dashboardUpdateSchema = dashboardWriteSchema
  .extend({
    /** Applied after the other fields, one after the other. */
    tiles: z.array(dashboardTileWriteSchema).max(MAX_TILES_PER_WRITE),
    /** With `deleted: true`: also delete the insights shown on this dashboard only. */
    delete_insights: drfBoolean(),
  })
  .partial()
  .superRefine((update, ctx) => {
    // PostHog reports a text card's errors under `text`, whichever tile it was.
    for (const tile of update.tiles ?? []) {
      const body = tile.text?.body
      if (typeof body === 'string' && body.length > MAX_TEXT_BODY) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'string',
          maximum: MAX_TEXT_BODY,
          path: ['text', 'body'],
          message: `Text body cannot exceed ${MAX_TEXT_BODY} characters`,
        })
        return
      }
    }
  })
export type DashboardUpdate = z.infer<typeof dashboardUpdateSchema>
