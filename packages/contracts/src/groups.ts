import { z } from 'zod'

/** A group as PostHog's groups resource shows it. */
export const groupSchema = z.object({
  group_type_index: z.number().int(),
  group_key: z.string(),
  group_properties: z.record(z.string(), z.unknown()),
  created_at: z.string(),
})
export type Group = z.infer<typeof groupSchema>

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
  group_type_index: z.number().int().min(0).max(4),
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

export const groupsListQuerySchema = z.object({
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
export const groupPropertyValuesSchema = z.array(propertyCountSchema)
