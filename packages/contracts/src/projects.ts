import { z } from 'zod'
import { drfBoolean, drfInteger, drfString } from './drf'
import { TIMEZONES } from './timezones'

type Json = string | number | boolean | null | Json[] | { [key: string]: Json }

/** Any JSON value, registered by name so that API documents define it once. */
export const jsonValue: z.ZodType<Json> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]))
  .meta({ id: 'JsonValue' })

/** A project as create, retrieve and update answer it: every field of the spec's table. */
export const projectSchema = z.object({
  id: z.number().int(),
  uuid: z.uuid(),
  organization: z.uuid(),
  api_token: z.string(),
  app_urls: z.array(z.string()),
  name: z.string(),
  chat_incoming_webhook: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  anonymize_ips: z.boolean(),
  cookieless_server_hash_mode: z.number().int(),
  completed_snippet_onboarding: z.boolean(),
  ingested_event: z.boolean(),
  test_account_filters: jsonValue,
  test_account_filters_default_checked: drfBoolean(),
  path_cleaning_filters: jsonValue,
  is_demo: z.boolean(),
  timezone: z.string(),
  /** The day weeks start on: 0 Sunday, 1 Monday; null is Sunday. */
  week_start_day: z.number().int().nullable(),
  data_attributes: jsonValue,
  person_display_name_properties: z.array(z.string()),
  correlation_config: jsonValue,
  session_recording_opt_in: z.boolean(),
  capture_console_log_opt_in: z.boolean(),
  effective_membership_level: z.number().int().nullable(),
  access_control: z.boolean(),
  has_group_types: z.boolean(),
  primary_dashboard: z.number().int().nullable(),
  live_events_columns: z.array(z.string()).nullable(),
  recording_domains: z.array(z.string()).nullable(),
})
export type Project = z.infer<typeof projectSchema>

/** The subset of fields that list items carry. */
export const projectListItemSchema = projectSchema.pick({
  id: true,
  uuid: true,
  organization: true,
  api_token: true,
  name: true,
  completed_snippet_onboarding: true,
  ingested_event: true,
  is_demo: true,
  timezone: true,
  effective_membership_level: true,
  access_control: true,
})
export type ProjectListItem = z.infer<typeof projectListItemSchema>

/** The writable fields; anything else in a request body is ignored. */
export const projectWritableSchema = z.object({
  app_urls: z.array(drfString(z.string().max(2048))).max(1000),
  name: drfString(z.string().trim().min(1).max(200)),
  chat_incoming_webhook: drfString(z.string().max(500).nullable()),
  anonymize_ips: drfBoolean(),
  cookieless_server_hash_mode: z.union([z.literal(0), z.literal(1), z.literal(2)], {
    error: (issue) => `"${String(issue.input)}" is not a valid choice.`,
  }),
  completed_snippet_onboarding: drfBoolean(),
  test_account_filters: jsonValue,
  test_account_filters_default_checked: drfBoolean(),
  path_cleaning_filters: jsonValue,
  timezone: z.enum(TIMEZONES, { error: (issue) => `"${String(issue.input)}" is not a valid choice.` }),
  // A ChoiceField: the choices' texts are taken as the choices, as DRF takes them.
  week_start_day: z.preprocess(
    (v) => (v === '0' ? 0 : v === '1' ? 1 : v),
    z.union([z.literal(0), z.literal(1), z.null()], { error: (issue) => `"${String(issue.input)}" is not a valid choice.` }),
  ),
  data_attributes: jsonValue,
  person_display_name_properties: z.array(drfString(z.string())),
  correlation_config: jsonValue,
  session_recording_opt_in: drfBoolean(),
  capture_console_log_opt_in: drfBoolean(),
  access_control: drfBoolean(),
  primary_dashboard: drfInteger(z.number().int().nullable()),
  live_events_columns: z.array(drfString(z.string())).nullable(),
  recording_domains: z.array(drfString(z.string())).nullable(),
})
export const projectCreateSchema = projectWritableSchema.partial()
export const projectUpdateSchema = projectWritableSchema.partial()
export type ProjectCreate = z.infer<typeof projectCreateSchema>
export type ProjectUpdate = z.infer<typeof projectUpdateSchema>
