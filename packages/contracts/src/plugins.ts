import { z } from 'zod'
import { drfBoolean, drfInteger, formJson } from './drf'

/** One field of a plugin's configuration, as PostHog's plugin.json declares it. */
export const pluginConfigFieldSchema = z.object({
  key: z.string(),
  name: z.string(),
  type: z.enum(['string', 'json', 'choice']),
  default: z.string().optional(),
  required: z.boolean().optional(),
  secret: z.boolean().optional(),
  hint: z.string().optional(),
  choices: z.array(z.string()).optional(),
})
export type PluginConfigField = z.infer<typeof pluginConfigFieldSchema>

/** A plugin of the catalog, as PostHog's plugin serializer shows it. */
export const pluginSchema = z.object({
  id: z.number().int(),
  plugin_type: z.literal('local'),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  icon: z.string().nullable(),
  config_schema: z.array(pluginConfigFieldSchema),
  tag: z.string(),
  latest_tag: z.string(),
  is_global: z.boolean(),
  organization_id: z.string().nullable(),
  organization_name: z.string().nullable(),
  capabilities: z.object({ methods: z.array(z.string()), jobs: z.array(z.string()), scheduled_tasks: z.array(z.string()) }),
  metrics: z.record(z.string(), z.string()),
  public_jobs: z.record(z.string(), z.object({ payload: z.record(z.string(), z.unknown()) })),
})
export type Plugin = z.infer<typeof pluginSchema>

export const pluginConfigSchema = z.object({
  id: z.number().int(),
  plugin: z.number().int(),
  enabled: z.boolean(),
  order: z.number().int(),
  /** The configuration, with secret fields masked. */
  config: z.record(z.string(), z.unknown()),
  error: z.record(z.string(), z.unknown()).nullable(),
  team_id: z.number().int(),
  /** The plugin, except in lists. */
  plugin_info: pluginSchema.nullable(),
  delivery_rate_24h: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The plugin's name and description, as PostHog shows a config without names of its own. */
  name: z.string(),
  description: z.string(),
  /** True only in the answer to the update that deleted it: a deleted config is not shown. */
  deleted: z.boolean(),
})
export type PluginConfig = z.infer<typeof pluginConfigSchema>

const pluginConfigWritableSchema = z.object({
  plugin: drfInteger(z.number().int()),
  enabled: drfBoolean(),
  order: drfInteger(z.number().int().min(0).max(1_000_000)),
  // A multipart form (PostHog's frontend, for attachments) sends the config as JSON text.
  config: formJson(z.record(z.string(), z.unknown())),
  error: z.record(z.string(), z.unknown()).nullable(),
})

export const pluginConfigCreateSchema = pluginConfigWritableSchema.partial().required({ plugin: true })
// PostHog's web app deletes a config by updating it with `deleted: true`.
export const pluginConfigUpdateSchema = pluginConfigWritableSchema.omit({ plugin: true }).extend({ deleted: drfBoolean() }).partial()
export type PluginConfigCreate = z.infer<typeof pluginConfigCreateSchema>
export type PluginConfigUpdate = z.infer<typeof pluginConfigUpdateSchema>

export const PLUGIN_LOG_SOURCES = ['SYSTEM', 'PLUGIN', 'CONSOLE'] as const
export const PLUGIN_LOG_TYPES = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const

export const pluginLogEntrySchema = z.object({
  id: z.uuid(),
  team_id: z.number().int(),
  plugin_id: z.number().int(),
  plugin_config_id: z.number().int(),
  timestamp: z.string(),
  source: z.enum(PLUGIN_LOG_SOURCES),
  type: z.enum(PLUGIN_LOG_TYPES),
  message: z.string(),
  instance_id: z.uuid(),
})
export type PluginLogEntry = z.infer<typeof pluginLogEntrySchema>

export const pluginJobRequestSchema = z.object({
  job: z.object(
    {
      type: z.string({ error: 'The job type must be specified!' }).min(1, 'The job type must be specified!'),
      payload: z
        .record(z.string(), z.unknown())
        .optional()
        .transform((p) => p ?? {}),
      operation: z
        .enum(['start', 'stop'])
        .optional()
        .transform((o) => o ?? 'start'),
    },
    { error: 'The job type must be specified!' },
  ),
})
export type PluginJobRequest = z.infer<typeof pluginJobRequestSchema>

export const pluginRearrangeSchema = z.object({
  orders: z.record(z.string().regex(/^\d+$/, 'Plugin config ids are integers.'), z.number().int().min(0)),
})
