import { z } from 'zod'
import { insightQueryBase } from './common'
import { unsupported } from './fields'

/** What a path is made of: pages (`$current_url`), screens (`$screen_name`), or events not starting with `$`. */
export const PATH_TYPES = ['$pageview', '$screen', 'custom_event'] as const
export type PathType = (typeof PATH_TYPES)[number]

/** PostHog's default number of steps a path is followed for, and the most this service follows. */
export const DEFAULT_PATH_STEPS = 5
export const MAX_PATH_STEPS = 20
/** PostHog's default number of links answered, and the most this service answers. */
export const DEFAULT_PATH_EDGES = 50
export const MAX_PATH_EDGES = 1000

/** A rule that rewrites a path item: every match of `regex` (ClickHouse's re2) is replaced by `alias`. */
export const pathCleaningFilterSchema = z.looseObject({
  regex: z.string().min(1).max(1000),
  alias: z.string().max(1000).nullish(),
  /** The console's ordering of the rules; they are applied in the order of the list. */
  order: z.number().nullish(),
})
export type PathCleaningFilter = z.infer<typeof pathCleaningFilterSchema>

const pathText = z.string().max(2000)

/** PostHog's PathsFilter. */
export const pathsFilterSchema = z.looseObject({
  includeEventTypes: z
    .array(z.union([z.enum(PATH_TYPES), z.literal('hogql')]))
    .max(PATH_TYPES.length + 1)
    .superRefine((types, ctx) => {
      if (types.includes('hogql')) ctx.addIssue({ code: 'custom', message: 'Paths of a HogQL expression (hogql) are not supported.' })
    })
    .nullish(),
  /** Paths start at the first time this item is reached (a trailing slash is left out). */
  startPoint: pathText.nullish(),
  /** Paths end at the first time this item is reached. */
  endPoint: pathText.nullish(),
  /** Wildcard patterns (`*`): items matching one count as that pattern. */
  pathGroupings: z.array(z.string().min(1).max(400)).max(100).nullish(),
  /** Path items (URLs, screens, event names) left out. */
  excludeEvents: z.array(pathText).max(200).nullish(),
  stepLimit: z.number().int().min(1).max(MAX_PATH_STEPS).nullish(),
  edgeLimit: z.number().int().min(1).max(MAX_PATH_EDGES).nullish(),
  minEdgeWeight: z.number().int().min(0).nullish(),
  maxEdgeWeight: z.number().int().min(0).nullish(),
  /** Apply the project's `path_cleaning_filters`. */
  pathReplacements: z.boolean().nullish(),
  /** Cleaning rules of this query, applied after the project's. */
  localPathCleaningFilters: z.array(pathCleaningFilterSchema).max(50).nullish(),
  pathsHogQLExpression: unsupported('pathsHogQLExpression'),
  /** For the persons of a path (an actors query), which is not served. */
  pathStartKey: unsupported('pathStartKey'),
  pathEndKey: unsupported('pathEndKey'),
  pathDropoffKey: unsupported('pathDropoffKey'),
  /** Older PostHog clients' paths after or before a funnel step. */
  funnelPaths: unsupported('funnelPaths'),
  funnelFilter: unsupported('funnelFilter', [{}]),
})
export type PathsFilter = z.infer<typeof pathsFilterSchema>

/**
 * PostHog's PathsQuery: the steps persons take from one page, screen or event to the next, in
 * sessions split after 30 minutes without an event, as links between numbered steps.
 */
export const pathsQuerySchema = z.looseObject({
  kind: z.literal('PathsQuery'),
  ...insightQueryBase,
  pathsFilter: pathsFilterSchema.nullish(),
  /** Paths before, after or between the steps of a funnel. */
  funnelPathsFilter: unsupported('funnelPathsFilter'),
})
export type PathsQuery = z.infer<typeof pathsQuerySchema>
