import { z } from 'zod'

/** The current user as `/api/users/@me/` shows them, with their organization and project. */
export const meSchema = z.object({
  id: z.number().int(),
  uuid: z.uuid(),
  distinct_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  date_joined: z.string(),
  is_staff: z.boolean(),
  has_password: z.boolean(),
  anonymize_data: z.boolean(),
  toolbar_mode: z.string(),
  team: z
    .object({
      id: z.number().int(),
      uuid: z.uuid(),
      organization: z.uuid(),
      name: z.string(),
      api_token: z.string(),
      app_urls: z.array(z.string()),
      timezone: z.string(),
      completed_snippet_onboarding: z.boolean(),
      ingested_event: z.boolean(),
      is_demo: z.boolean(),
      anonymize_ips: z.boolean(),
      /** Names of the events seen in the project. */
      event_names: z.array(z.string()),
      /** Keys of the event properties seen in the project. */
      event_properties: z.array(z.string()),
      /** Those of them whose values are numbers. */
      event_properties_numerical: z.array(z.string()),
    })
    .nullable(),
  organization: z
    .object({
      id: z.uuid(),
      name: z.string(),
      created_at: z.string(),
      membership_level: z.number().int(),
      teams: z.array(z.object({ id: z.number().int(), uuid: z.uuid(), name: z.string(), api_token: z.string() })),
    })
    .nullable(),
  organizations: z.array(z.object({ id: z.uuid(), name: z.string(), membership_level: z.number().int() })),
  /** The service's version (PostHog's field name, which clients read). */
  posthog_version: z.string(),
})
export type Me = z.infer<typeof meSchema>
