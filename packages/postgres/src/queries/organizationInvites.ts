import type { Sql } from '../connect'

export interface OrganizationInviteRow {
  id: string
  organization_id: string
  target_email: string
  first_name: string
  level: number
  message: string | null
  created_by_id: number | null
  created_at: Date
  updated_at: Date
}

/** The organization's invites, newest first. */
export async function listInvites(sql: Sql, organizationId: string): Promise<OrganizationInviteRow[]> {
  return sql<OrganizationInviteRow[]>`
    select * from organization_invites where organization_id = ${organizationId} order by created_at desc, id`
}

/** A new invite, replacing any earlier one for the same email (PostHog keeps one per address). */
export async function replaceInvite(
  sql: Sql,
  invite: {
    id: string
    organizationId: string
    targetEmail: string
    firstName: string
    level: number
    message: string | null
    createdById: number
  },
): Promise<OrganizationInviteRow> {
  await sql`
    delete from organization_invites
    where organization_id = ${invite.organizationId} and lower(target_email) = lower(${invite.targetEmail})`
  const [row] = await sql<OrganizationInviteRow[]>`
    insert into organization_invites (id, organization_id, target_email, first_name, level, message, created_by_id)
    values (${invite.id}, ${invite.organizationId}, ${invite.targetEmail}, ${invite.firstName}, ${invite.level},
            ${invite.message}, ${invite.createdById})
    returning *`
  return row!
}

export async function findInvite(sql: Sql, id: string): Promise<OrganizationInviteRow | undefined> {
  const [row] = await sql<OrganizationInviteRow[]>`select * from organization_invites where id = ${id}`
  return row
}

export async function deleteInvite(sql: Sql, organizationId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from organization_invites where organization_id = ${organizationId} and id = ${id} returning id`
  return rows.length > 0
}
