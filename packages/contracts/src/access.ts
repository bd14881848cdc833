import { z } from 'zod'
import { userSummarySchema } from './users'

/**
 * The scope objects of the resources this API serves, named as PostHog names them (PostHog's
 * `query` covers the events endpoints). `personal_api_key` is the scope of the keys resource.
 */
export const SCOPE_OBJECTS = [
  'action',
  'cohort',
  'dashboard',
  'early_access_feature',
  'event_definition',
  'feature_flag',
  'group',
  'ingestion_warning',
  'insight',
  'organization',
  'organization_member',
  'person',
  'personal_api_key',
  'plugin',
  'project',
  'query',
  'user',
] as const
export type ScopeObject = (typeof SCOPE_OBJECTS)[number]

/** A scope a route needs: `<object>:read` or `<object>:write`. */
export type Scope = `${ScopeObject}:${'read' | 'write'}`

/** What a key may carry: a scope, or `*` for all of them. */
export const ALL_SCOPES = '*'

export function isScope(value: string): value is Scope {
  const [object, action, ...rest] = value.split(':')
  return rest.length === 0 && (SCOPE_OBJECTS as readonly string[]).includes(object ?? '') && (action === 'read' || action === 'write')
}

/** Whether scopes a key carries grant `required` (a write scope grants its read, `*` grants everything). */
export function scopesGrant(carried: readonly string[], required: Scope): boolean {
  if (carried.includes(ALL_SCOPES) || carried.includes(required)) return true
  return required.endsWith(':read') && carried.includes(required.replace(/:read$/, ':write'))
}

/** PostHog's limit: "You can only have 10 personal API keys." */
export const MAX_PERSONAL_API_KEYS_PER_USER = 10

/** A personal API key as PostHog's resource shows it; `value` only in the answer that made or rolled it. */
export const personalApiKeySchema = z.object({
  id: z.string(),
  label: z.string(),
  value: z.string().nullable(),
  mask_value: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  last_rolled_at: z.string().nullable(),
  user_id: z.number().int(),
  scopes: z.array(z.string()),
  scoped_teams: z.array(z.number().int()),
  scoped_organizations: z.array(z.string()),
})
export type PersonalApiKey = z.infer<typeof personalApiKeySchema>

const scopeList = z
  .array(z.string().max(100), { error: 'Expected a list of items.' })
  // An empty list would grant nothing while PostHog shows it as `*`: refused instead.
  .min(1, { error: 'This list may not be empty.' })
  .max(SCOPE_OBJECTS.length * 2 + 1)
  .superRefine((scopes, ctx) => {
    const invalid = scopes.find((scope) => scope !== ALL_SCOPES && !isScope(scope))
    if (invalid !== undefined) ctx.addIssue({ code: 'custom', message: `Invalid scope: ${invalid}` })
  })

/** What a client may set on a key. */
export const personalApiKeyWriteSchema = z.object({
  label: z.string().trim().min(1).max(40),
  scopes: scopeList,
  scoped_teams: z.array(z.number().int().min(1).max(2_147_483_647)).max(100).nullable().optional(),
  scoped_organizations: z
    .array(
      z
        .string()
        .max(64)
        .transform((id) => id.toLowerCase()),
    )
    .max(100)
    .nullable()
    .optional(),
})
export type PersonalApiKeyWrite = z.infer<typeof personalApiKeyWriteSchema>

export const personalApiKeyUpdateSchema = personalApiKeyWriteSchema.partial()
export type PersonalApiKeyUpdate = z.infer<typeof personalApiKeyUpdateSchema>

/** PostHog's organization levels. */
export const MEMBERSHIP_LEVELS = { member: 1, admin: 8, owner: 15 } as const
const levelSchema = z.union([z.literal(1), z.literal(8), z.literal(15)], { error: 'Expected one of 1 (member), 8 (admin), 15 (owner).' })

/** A member as PostHog's organization members resource shows them. */
export const organizationMemberSchema = z.object({
  id: z.string(),
  user: userSummarySchema.extend({ last_name: z.string() }),
  level: z.number().int(),
  joined_at: z.string(),
  updated_at: z.string(),
})
export type OrganizationMember = z.infer<typeof organizationMemberSchema>

export const organizationMemberUpdateSchema = z.object({ level: levelSchema.optional() })
export type OrganizationMemberUpdate = z.infer<typeof organizationMemberUpdateSchema>

/** An invite as PostHog's organization invites resource shows it. */
export const organizationInviteSchema = z.object({
  id: z.string(),
  target_email: z.string(),
  first_name: z.string(),
  emailing_attempt_made: z.boolean(),
  level: z.number().int(),
  is_expired: z.boolean(),
  created_by: userSummarySchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  message: z.string().nullable(),
  private_project_access: z.array(z.unknown()).nullable(),
})
export type OrganizationInvite = z.infer<typeof organizationInviteSchema>

export const organizationInviteCreateSchema = z.object({
  target_email: z.email().max(254),
  first_name: z.string().max(30).optional(),
  level: levelSchema.optional(),
  message: z.string().max(1000).nullable().optional(),
})
export type OrganizationInviteCreate = z.infer<typeof organizationInviteCreateSchema>

/** Invites older than this many days have expired (PostHog's INVITE_DAYS_VALIDITY). */
export const INVITE_DAYS_VALIDITY = 3
