import { problems, scopesGrant, type Scope } from '@burrow/contracts'
import type { PersonalApiKeyGrant, UserRow } from '@burrow/postgres'

/**
 * Who calls a verb: the user, and the personal API key the request came with. Without a key
 * (the CLI, the service's own tasks) the user's memberships alone decide.
 */
export interface Caller extends UserRow {
  readonly key?: PersonalApiKeyGrant
}

/** PostHog's answer to a key without the scope a route needs. */
export function assertScope(caller: Caller, scope: Scope): void {
  if (caller.key && !scopesGrant(caller.key.scopes, scope)) throw problems.permissionDenied(`API key missing required scope '${scope}'`)
}

const limited = (list: readonly unknown[] | null | undefined): boolean => Array.isArray(list) && list.length > 0

/** The key may reach this project (its own id and its organization's), else 403 as PostHog answers. */
export function assertProjectInReach(caller: Caller, project: { id: number; organization_id: string }): void {
  const key = caller.key
  if (!key) return
  if (limited(key.scoped_teams) && !key.scoped_teams!.includes(project.id)) {
    throw problems.permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`)
  }
  if (limited(key.scoped_organizations) && !key.scoped_organizations!.includes(project.organization_id)) {
    throw problems.permissionDenied(`API key does not have access to the requested organization: ID ${project.organization_id}.`)
  }
}

/** The key may act on this organization: not one limited to projects, nor to other organizations. */
export function assertOrganizationInReach(caller: Caller, organizationId: string): void {
  const key = caller.key
  if (!key) return
  if (limited(key.scoped_teams))
    throw problems.permissionDenied('API keys with scoped projects are only supported on project-based endpoints.')
  if (limited(key.scoped_organizations) && !key.scoped_organizations!.includes(organizationId)) {
    throw problems.permissionDenied(`API key does not have access to the requested organization: ID ${organizationId}.`)
  }
}

/** The projects and organizations a key is limited to, for lists; null where it is not limited. */
export function reachOf(caller: Caller): { teams: number[] | null; organizations: string[] | null } {
  const key = caller.key
  return {
    teams: key && limited(key.scoped_teams) ? key.scoped_teams : null,
    organizations: key && limited(key.scoped_organizations) ? key.scoped_organizations : null,
  }
}
