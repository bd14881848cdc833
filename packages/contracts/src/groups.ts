import { z } from 'zod'

/** A group as PostHog's groups resource shows it. */
export const groupSchema = z.object({
  group_type_index: z.number().int(),
  group_key: z.string(),
  group_properties: z.record(z.string(), z.unknown()),
  created_at: z.string(),
})
export type Group = z.infer<typeof groupSchema>

/** `find` shows the group with the short id of its notes' notebook, which Burrow does not keep: always null. */
export const foundGroupSchema = groupSchema.extend({ notebook: z.string().nullable() })
export type FoundGroup = z.infer<typeof foundGroupSchema>

/** A group type as PostHog's `groups_types` resource shows it. */
export const groupTypeSchema = z.object({
  group_type: z.string(),
  group_type_index: z.number().int(),
  name_singular: z.string().nullable(),
  name_plural: z.string().nullable(),
  detail_dashboard: z.number().int().nullable(),
  default_columns: z.array(z.string()).nullable(),
  created_at: z.string().nullable(),
})
export type GroupType = z.infer<typeof groupTypeSchema>

/** What `update_metadata` takes for each group type: its names (read-only fields are ignored). */
export const groupTypeMetadataSchema = z
  .array(
    z.object({
      group_type_index: z.number().int().min(0).max(4),
      name_singular: z.string().max(400).nullable().optional(),
      name_plural: z.string().max(400).nullable().optional(),
    }),
  )
  .max(5)

/** `set_default_columns`: the property columns the group type's list shows. */
export const groupTypeDefaultColumnsSchema = z.object({
  group_type_index: z.number().int().min(0).max(4),
  default_columns: z.array(z.string().max(400)).max(100).nullable(),
})

/** A group created through the API, as PostHog's CreateGroupSerializer takes it. */
export const groupCreateSchema = z.object({
  // Any integer of the model's field; an index the project has no type at is a 404, as PostHog answers it.
  group_type_index: z.number().int().min(-2147483648).max(2147483647),
  group_key: z.string().min(1).max(400),
  group_properties: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .transform((p) => p ?? {}),
})
export type GroupCreate = z.infer<typeof groupCreateSchema>

/** A query value as text (a repeated parameter counts by its first occurrence). */
const queryValue = z
  .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
  .transform((v) => String(Array.isArray(v) ? (v[0] ?? '') : v))
  .optional()

/** DRF's cursor pagination parameter: an opaque position from a `next` or `previous` link. */
export const groupsListQuerySchema = z.object({
  cursor: z.string().max(1000).optional().meta({ description: 'Where the page starts: the cursor of a next or previous link' }),
  group_type_index: queryValue.meta({ description: 'The group type to list (required)' }),
  group_key: queryValue.meta({ description: 'Only groups whose key contains this text' }),
  search: queryValue.meta({ description: 'Only groups whose properties contain this text, or whose key is it' }),
})

export const groupFindQuerySchema = z.object({
  group_type_index: queryValue.meta({ description: 'The group type (required)' }),
  group_key: queryValue.meta({ description: 'The key of the group (required)' }),
})

export const groupPropertyValuesQuerySchema = z.object({
  group_type_index: queryValue.meta({ description: 'The group type (required)' }),
  key: queryValue.meta({ description: 'The property (required)' }),
  value: queryValue.meta({ description: 'Only values that contain this text' }),
})

const propertyCountSchema = z.object({ name: z.string(), count: z.number().int() })

/** Each group type's property keys (by type index, as text) with how many groups have them. */
export const groupPropertyDefinitionsSchema = z.record(z.string(), z.array(propertyCountSchema))
/** A property's most common values; `refreshing` is always false, as PostHog answers groups'. */
export const groupPropertyValuesSchema = z.object({ results: z.array(propertyCountSchema), refreshing: z.boolean() })

/**
 * `update_property`: the group is named in the query, the property in the body. Key and value are
 * checked by the procedure so that a missing one answers PostHog's message.
 */
export const groupUpdatePropertySchema = groupFindQuerySchema.extend({
  data: z.object({
    key: z.unknown().optional().meta({ description: 'The property to set' }),
    value: z.unknown().optional().meta({ description: 'Its value (any JSON but null)' }),
  }),
})

/** `delete_property`: the group in the query, the property's name as `$unset` in the body. */
export const groupDeletePropertySchema = groupFindQuerySchema.extend({
  data: z.object({ $unset: z.unknown().optional().meta({ description: 'The name of the property to remove' }) }),
})

/** The group type the path names; anything but an index the project has is a 404. */
export const groupTypeIndexPathSchema = z.object({ group_type_index: z.string().max(20) })

/** A page of a cursor-paginated list, before the REST facade turns the cursors into links. */
export function cursorPageSchema<T extends z.ZodType>(item: T) {
  return z.object({ next_cursor: z.string().nullable(), previous_cursor: z.string().nullable(), results: z.array(item) })
}
export interface CursorPage<T> {
  next_cursor: string | null
  previous_cursor: string | null
  results: T[]
}
