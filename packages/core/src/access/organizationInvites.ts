import { randomUUID } from 'node:crypto'
import {
  INVITE_DAYS_VALIDITY,
  MEMBERSHIP_LEVELS,
  problems,
  type OrganizationInvite,
  type OrganizationInviteCreate,
} from '@burrow/contracts'
import {
  consoleSessions,
  organizationInvites,
  organizations,
  projects,
  users,
  type OrganizationInviteRow,
  type UserRow,
} from '@burrow/postgres'
import type { Caller } from './access'
import { checkNewPassword, hashPassword } from './consoleAuth'
import type { CoreDeps } from '../deps'
import { isUuid } from '../ids'
import type { MemberOrganization } from './organizationMembers'
import { userSummaries } from './users'

const DAY_MS = 24 * 60 * 60 * 1000

const isExpired = (row: OrganizationInviteRow, now = Date.now()) => now - row.created_at.getTime() > INVITE_DAYS_VALIDITY * DAY_MS

/** The address as PostHog keeps it: the domain in lower case (the local part may be case-sensitive). */
function normalisedEmail(email: string): string {
  const at = email.lastIndexOf('@')
  return `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`
}

async function toInvites(deps: CoreDeps, rows: OrganizationInviteRow[]): Promise<OrganizationInvite[]> {
  const creator = await userSummaries(
    deps,
    rows.map((r) => r.created_by_id),
  )
  return rows.map((row) => ({
    id: row.id,
    target_email: row.target_email,
    first_name: row.first_name,
    // Burrow sends no email: the invite id is handed over by whoever made it.
    emailing_attempt_made: false,
    level: row.level,
    is_expired: isExpired(row),
    created_by: creator(row.created_by_id),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    message: row.message,
    private_project_access: null,
  }))
}

export async function listInvites(deps: CoreDeps, organization: MemberOrganization): Promise<OrganizationInvite[]> {
  return toInvites(deps, await organizationInvites.listInvites(deps.sql, organization.id))
}

/** An invite at a level no higher than the inviter's own, replacing an earlier one to the same address. */
export async function createInvite(
  deps: CoreDeps,
  caller: Caller,
  organization: MemberOrganization,
  input: OrganizationInviteCreate,
): Promise<OrganizationInvite> {
  const level = input.level ?? MEMBERSHIP_LEVELS.member
  if (level > organization.level) throw problems.permissionDenied('You cannot invite a user with a higher permission level than your own.')
  const email = normalisedEmail(input.target_email)
  const existing = await users.findUserByEmail(deps.sql, email)
  if (existing && (await organizations.membershipLevel(deps.sql, organization.id, existing.id)) !== undefined) {
    throw problems.validation(null, 'A user with this email address already belongs to the organization.')
  }
  const row = await deps.sql.begin((tx) =>
    organizationInvites.replaceInvite(tx, {
      id: randomUUID(),
      organizationId: organization.id,
      targetEmail: email,
      firstName: input.first_name ?? '',
      level,
      message: input.message ?? null,
      createdById: caller.id,
    }),
  )
  const [invite] = await toInvites(deps, [row])
  return invite!
}

/** Withdraws an invite; admins only, as PostHog's organization write permission requires. */
export async function deleteInvite(deps: CoreDeps, organization: MemberOrganization, idParam: string): Promise<void> {
  if (organization.level < MEMBERSHIP_LEVELS.admin) throw problems.permissionDenied('Your organization access level is insufficient.')
  if (!isUuid(idParam) || !(await organizationInvites.deleteInvite(deps.sql, organization.id, idParam))) throw problems.notFound()
}

/**
 * The invite's user (the one with its email) joins the organization at its level; the
 * organization and its first project become their current ones. PostHog's checks and wording.
 */
export async function acceptInvite(deps: CoreDeps, caller: Caller, inviteId: string): Promise<{ organization_id: string; level: number }> {
  const invite = isUuid(inviteId) ? await organizationInvites.findInvite(deps.sql, inviteId) : undefined
  if (!invite) throw problems.validation('invite_id', 'The provided invite ID is not valid.')
  if (invite.target_email.toLowerCase() !== caller.email.toLowerCase()) {
    throw problems.validation('invite_id', 'This invite is intended for another email address.')
  }
  if (isExpired(invite)) throw problems.validation('invite_id', 'This invite has expired. Please ask your admin for a new one.')
  if ((await organizations.membershipLevel(deps.sql, invite.organization_id, caller.id)) !== undefined) {
    throw problems.validation('invite_id', 'You already are a member of this organization.')
  }
  await deps.sql.begin(async (tx) => {
    await organizations.addMembership(tx, { organizationId: invite.organization_id, userId: caller.id, level: invite.level })
    const [first] = await projects.projectsOfOrganization(tx, invite.organization_id)
    await users.setCurrentOrganization(tx, caller.id, invite.organization_id, first?.id ?? null)
    await organizationInvites.deleteInvite(tx, invite.organization_id, invite.id)
  })
  return { organization_id: invite.organization_id, level: invite.level }
}

const INVALID_INVITE = () => problems.validation(null, 'The provided invite ID is not valid.')

/** An invite that may still be used, or PostHog's refusal: unknown (or no id at all) and expired alike. */
async function usableInvite(deps: CoreDeps, inviteId: string): Promise<OrganizationInviteRow> {
  const invite = isUuid(inviteId) ? await organizationInvites.findInvite(deps.sql, inviteId) : undefined
  if (!invite) throw INVALID_INVITE()
  if (isExpired(invite)) throw problems.validation(null, 'This invite has expired. Please ask your admin for a new one.')
  return invite
}

/** What the invite page shows before anyone signs up: who is invited, by name, into which organization. */
export async function describeInvite(
  deps: CoreDeps,
  inviteId: string,
): Promise<{ id: string; target_email: string; first_name: string; organization_name: string }> {
  const invite = await usableInvite(deps, inviteId)
  const organization = await organizations.findOrganization(deps.sql, invite.organization_id)
  return { id: invite.id, target_email: invite.target_email, first_name: invite.first_name, organization_name: organization?.name ?? '' }
}

/**
 * A new user from an invite link, as PostHog's invite sign-up makes one: the invite's email, the
 * first name and password they chose, a member of the organization at the invite's level, its
 * first project their current one. The invite is used up in the same transaction, so that two
 * sign-ups with one link make one user.
 */
export async function signUpByInvite(deps: CoreDeps, inviteId: string, input: { firstName: string; password: string }): Promise<UserRow> {
  checkNewPassword(input.password)
  const invite = await usableInvite(deps, inviteId)
  const digest = await hashPassword(input.password)
  return deps.sql.begin(async (tx) => {
    if (!(await organizationInvites.deleteInvite(tx, invite.organization_id, invite.id))) throw INVALID_INVITE()
    if (await users.findUserByEmail(tx, invite.target_email)) {
      throw problems.validation(null, `There already exists an account with email address ${invite.target_email}. Please log in instead.`)
    }
    const [project] = await projects.projectsOfOrganization(tx, invite.organization_id)
    const user = await users.insertUser(tx, {
      uuid: randomUUID(),
      distinctId: randomUUID(),
      email: invite.target_email,
      firstName: input.firstName,
      organizationId: invite.organization_id,
    })
    await organizations.addMembership(tx, { organizationId: invite.organization_id, userId: user.id, level: invite.level })
    await users.setCurrentOrganization(tx, user.id, invite.organization_id, project?.id ?? null)
    await consoleSessions.setPasswordHash(tx, user.id, digest)
    return user
  })
}
