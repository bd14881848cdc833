import { MEMBERSHIP_LEVELS, problems, type OrganizationMember, type OrganizationMemberUpdate } from '@burrow/contracts'
import { organizations, type MembershipRow, type OrganizationRow } from '@burrow/postgres'
import type { Caller } from './access'
import type { CoreDeps } from '../deps'
import { isUuid, serialId } from '../ids'

/** An organization the caller belongs to, with their level in it (as the API's organization procedures load it). */
export type MemberOrganization = OrganizationRow & { level: number }

function toMember(row: MembershipRow): OrganizationMember {
  return {
    id: row.id,
    user: {
      id: row.user_id,
      uuid: row.user_uuid,
      distinct_id: row.user_distinct_id,
      first_name: row.user_first_name,
      last_name: row.user_last_name,
      email: row.user_email,
    },
    level: row.level,
    joined_at: row.joined_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export async function listMembers(deps: CoreDeps, organization: MemberOrganization): Promise<OrganizationMember[]> {
  return (await organizations.listMemberships(deps.sql, organization.id)).map(toMember)
}

/** The membership a URL segment names: `@me`, the user's uuid, or their id. */
async function findMember(deps: CoreDeps, caller: Caller, organizationId: string, userParam: string): Promise<MembershipRow> {
  const members = await organizations.listMemberships(deps.sql, organizationId)
  const id = serialId(userParam)
  const found =
    userParam === '@me'
      ? members.find((m) => m.user_id === caller.id)
      : isUuid(userParam)
        ? members.find((m) => m.user_uuid === userParam.toLowerCase())
        : members.find((m) => id !== null && m.user_id === id)
  if (!found) throw problems.notFound()
  return found
}

/** PostHog's rules for changing another member: admins only, of members at or below their own level. */
function checkMayEdit(requester: MembershipRow, target: MembershipRow, newLevel?: number): void {
  if (newLevel !== undefined) {
    if (target.user_id === requester.user_id) throw problems.permissionDenied("You can't change your own access level.")
    if (newLevel === MEMBERSHIP_LEVELS.owner && requester.level !== MEMBERSHIP_LEVELS.owner) {
      throw problems.permissionDenied("You can only make another member owner if you're this organization's owner.")
    }
    if (newLevel !== MEMBERSHIP_LEVELS.owner && newLevel > requester.level) {
      throw problems.permissionDenied('You can only change access level of others to lower or equal to your current one.')
    }
  }
  if (target.user_id !== requester.user_id) {
    if (requester.level < MEMBERSHIP_LEVELS.admin) throw problems.permissionDenied('You can only edit others if you are an admin.')
    if (target.level > requester.level) throw problems.permissionDenied('You can only edit others with level lower or equal to you.')
  }
}

export async function updateMember(
  deps: CoreDeps,
  caller: Caller,
  organization: MemberOrganization,
  userParam: string,
  input: OrganizationMemberUpdate,
): Promise<OrganizationMember> {
  const requester = await findMember(deps, caller, organization.id, '@me')
  const target = await findMember(deps, caller, organization.id, userParam)
  checkMayEdit(requester, target, input.level)
  if (input.level !== undefined) await organizations.setMembershipLevel(deps.sql, organization.id, target.user_id, input.level)
  return toMember((await organizations.findMembership(deps.sql, organization.id, target.user_id))!)
}

/**
 * Removes a member: anyone may leave, admins may remove members at or below their level. An
 * owner cannot leave, so an organization always keeps one.
 */
export async function removeMember(deps: CoreDeps, caller: Caller, organization: MemberOrganization, userParam: string): Promise<void> {
  const requester = await findMember(deps, caller, organization.id, '@me')
  const target = await findMember(deps, caller, organization.id, userParam)
  if (target.user_id !== requester.user_id) {
    if (requester.level < MEMBERSHIP_LEVELS.admin) {
      throw problems.permissionDenied('You are not permitted to delete other organization members.')
    }
    checkMayEdit(requester, target)
  }
  if (target.level >= MEMBERSHIP_LEVELS.owner) throw problems.validation(null, 'Cannot leave the organization as its owner!')
  await organizations.removeMembership(deps.sql, organization.id, target.user_id)
}
