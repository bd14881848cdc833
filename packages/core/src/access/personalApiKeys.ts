import { randomUUID } from 'node:crypto'
import {
  ALL_SCOPES,
  MAX_PERSONAL_API_KEYS_PER_USER,
  problems,
  scopesGrant,
  type PersonalApiKey,
  type PersonalApiKeyUpdate,
  type PersonalApiKeyWrite,
  type Scope,
} from '@burrow/contracts'
import { organizations, personalApiKeys, projects, type PersonalApiKeyGrant, type PersonalApiKeyRow } from '@burrow/postgres'
import type { Caller } from './access'
import type { CoreDeps } from '../deps'
import { isUuid } from '../ids'
import { generatePersonalApiKey, maskPersonalApiKey, personalApiKeySecureValue } from './keys'

function toPersonalApiKey(row: PersonalApiKeyRow, value: string | null = null): PersonalApiKey {
  return {
    id: row.id,
    label: row.label,
    value,
    mask_value: row.mask_value,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    last_rolled_at: row.last_rolled_at?.toISOString() ?? null,
    user_id: row.user_id,
    // PostHog shows a key without scopes as one with all of them.
    scopes: row.scopes.length > 0 ? row.scopes : [ALL_SCOPES],
    scoped_teams: row.scoped_teams ?? [],
    scoped_organizations: row.scoped_organizations ?? [],
  }
}

/**
 * The key named by a URL segment: its id, or `@current` for the key of the request. A key may
 * always act on itself; on another key only when it grants at least as much (else reading a
 * `*` key's id and rolling it would hand a narrow key the user's full key).
 */
async function findKey(deps: CoreDeps, caller: Caller, idParam: string): Promise<PersonalApiKeyRow> {
  const id = idParam === '@current' ? caller.key?.id : idParam
  const row = id !== undefined && isUuid(id) ? await personalApiKeys.findKeyOfUser(deps.sql, caller.id, id) : undefined
  if (!row) throw problems.notFound()
  const refusal = caller.key && row.id !== caller.key.id ? widerThan(caller.key, grantOf(row), 'act on a key with') : undefined
  if (refusal !== undefined) throw problems.permissionDenied(refusal)
  return row
}

/**
 * The projects and organizations a key is limited to must be the user's (PostHog's checks);
 * empty lists mean no limit.
 */
async function checkReach(deps: CoreDeps, caller: Caller, write: PersonalApiKeyUpdate): Promise<void> {
  const teams = write.scoped_teams ?? []
  for (const id of new Set(teams)) {
    if (!(await projects.findProjectForUser(deps.sql, id, caller.id))) {
      throw problems.validation('scoped_teams', 'You must be a member of all teams that you are scoping the key to.')
    }
  }
  for (const id of new Set(write.scoped_organizations ?? [])) {
    if (!isUuid(id)) throw problems.validation('scoped_organizations', 'Invalid organization UUID')
    if ((await organizations.membershipLevel(deps.sql, id, caller.id)) === undefined) {
      throw problems.validation('scoped_organizations', 'You must be a member of all organizations that you are scoping the key to.')
    }
  }
}

/** What a key grants, or will grant once written. */
interface Grant {
  scopes: readonly string[]
  teams: readonly number[]
  organizations: readonly string[]
}

/** What a stored key grants; PostHog reads a key without scopes as `*`. */
function grantOf(row: Pick<PersonalApiKeyRow, 'scopes' | 'scoped_teams' | 'scoped_organizations'>): Grant {
  return {
    scopes: row.scopes.length > 0 ? row.scopes : [ALL_SCOPES],
    teams: row.scoped_teams ?? [],
    organizations: row.scoped_organizations ?? [],
  }
}

/**
 * Why `grant` reaches further than the acting key, or undefined when the key covers it: every
 * scope (`*` only under `*`), and projects and organizations within the key's own limits.
 * `action` words the refusal: 'grant' for a key being written, 'act on a key with' for a target.
 */
function widerThan(key: PersonalApiKeyGrant, grant: Grant, action: 'grant' | 'act on a key with'): string | undefined {
  const wider = grant.scopes.find((scope) =>
    scope === ALL_SCOPES ? !key.scopes.includes(ALL_SCOPES) : !scopesGrant(key.scopes, scope as Scope),
  )
  if (wider !== undefined) return `A key cannot ${action} a scope it does not have: '${wider}'.`
  const verb = action === 'grant' ? 'make keys' : 'act on keys'
  const within = <T>(own: readonly T[] | null, asked: readonly T[]) =>
    !own?.length || (asked.length > 0 && asked.every((item) => own.includes(item)))
  if (!within(key.scoped_teams, grant.teams)) return `A key limited to projects can only ${verb} limited to some of them.`
  if (!within(key.scoped_organizations, grant.organizations))
    return `A key limited to organizations can only ${verb} limited to some of them.`
  return undefined
}

/**
 * A key cannot make or change a key to grant more than itself: with no session sign-in, keys
 * manage keys, and `personal_api_key:write` must not be a way to `*` or to every project. A
 * request without a key (the CLI, a session) keeps the user's full power.
 */
function checkWithinCallersKey(caller: Caller, grant: Grant): void {
  const refusal = caller.key ? widerThan(caller.key, grant, 'grant') : undefined
  if (refusal !== undefined) throw problems.permissionDenied(refusal)
}

/** The user's keys that the acting key may see: itself and those granting no more than it does. */
export async function listKeys(deps: CoreDeps, caller: Caller): Promise<PersonalApiKey[]> {
  const key = caller.key
  const rows = await personalApiKeys.listKeysOfUser(deps.sql, caller.id)
  return rows
    .filter((row) => !key || row.id === key.id || widerThan(key, grantOf(row), 'act on a key with') === undefined)
    .map((row) => toPersonalApiKey(row))
}

export async function getKey(deps: CoreDeps, caller: Caller, idParam: string): Promise<PersonalApiKey> {
  return toPersonalApiKey(await findKey(deps, caller, idParam))
}

/** A new key; its value is in this answer only (only its hash is stored). */
export async function createKey(deps: CoreDeps, caller: Caller, input: PersonalApiKeyWrite): Promise<PersonalApiKey> {
  checkWithinCallersKey(caller, { scopes: input.scopes, teams: input.scoped_teams ?? [], organizations: input.scoped_organizations ?? [] })
  await checkReach(deps, caller, input)
  const value = generatePersonalApiKey()
  const row = await deps.sql.begin(async (tx) => {
    // One user's creations are serialised, so that two at once cannot pass the limit together.
    await tx`select id from users where id = ${caller.id} for update`
    if ((await personalApiKeys.countKeysOfUser(tx, caller.id)) >= MAX_PERSONAL_API_KEYS_PER_USER) {
      throw problems.validation(
        null,
        `You can only have ${MAX_PERSONAL_API_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
      )
    }
    return personalApiKeys.insertPersonalApiKey(tx, {
      id: randomUUID(),
      userId: caller.id,
      label: input.label,
      secureValue: personalApiKeySecureValue(value),
      maskValue: maskPersonalApiKey(value),
      scopes: input.scopes,
      scopedTeams: input.scoped_teams?.length ? input.scoped_teams : null,
      scopedOrganizations: input.scoped_organizations?.length ? input.scoped_organizations : null,
    })
  })
  return toPersonalApiKey(row, value)
}

export async function updateKey(deps: CoreDeps, caller: Caller, idParam: string, input: PersonalApiKeyUpdate): Promise<PersonalApiKey> {
  const existing = await findKey(deps, caller, idParam)
  checkWithinCallersKey(caller, {
    scopes: input.scopes ?? grantOf(existing).scopes,
    teams: input.scoped_teams === undefined ? (existing.scoped_teams ?? []) : (input.scoped_teams ?? []),
    organizations: input.scoped_organizations === undefined ? (existing.scoped_organizations ?? []) : (input.scoped_organizations ?? []),
  })
  await checkReach(deps, caller, input)
  const emptyAsNull = <T>(list: T[] | null | undefined) => (list === undefined ? undefined : list?.length ? list : null)
  const row = await personalApiKeys.updateKeyOfUser(deps.sql, caller.id, existing.id, {
    ...(input.label !== undefined ? { label: input.label } : {}),
    ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
    ...(input.scoped_teams !== undefined ? { scopedTeams: emptyAsNull(input.scoped_teams) ?? null } : {}),
    ...(input.scoped_organizations !== undefined ? { scopedOrganizations: emptyAsNull(input.scoped_organizations) ?? null } : {}),
  })
  if (!row) throw problems.notFound()
  return toPersonalApiKey(row)
}

/** A new value for the key, in this answer only; the old value stops working at once, on every instance. */
export async function rollKey(deps: CoreDeps, caller: Caller, idParam: string): Promise<PersonalApiKey> {
  const existing = await findKey(deps, caller, idParam)
  const value = generatePersonalApiKey()
  const row = await personalApiKeys.rollKeyOfUser(deps.sql, caller.id, existing.id, {
    secureValue: personalApiKeySecureValue(value),
    maskValue: maskPersonalApiKey(value),
  })
  if (!row) throw problems.notFound()
  return toPersonalApiKey(row, value)
}

export async function deleteKey(deps: CoreDeps, caller: Caller, idParam: string): Promise<void> {
  const existing = await findKey(deps, caller, idParam)
  await personalApiKeys.deleteKeyOfUser(deps.sql, caller.id, existing.id)
}
