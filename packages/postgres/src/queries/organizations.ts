import type { Sql } from '../connect'

export interface OrganizationRow {
  id: string
  name: string
  created_at: Date
  updated_at: Date
}

export async function countOrganizations(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from organizations`
  return row?.n ?? 0
}

export async function insertOrganization(sql: Sql, org: { id: string; name: string }): Promise<OrganizationRow> {
  const [row] = await sql<OrganizationRow[]>`
    insert into organizations (id, name) values (${org.id}, ${org.name}) returning *`
  return row!
}

export async function addMembership(sql: Sql, m: { organizationId: string; userId: number; level: number }) {
  await sql`
    insert into organization_memberships (organization_id, user_id, level)
    values (${m.organizationId}, ${m.userId}, ${m.level})
    on conflict (organization_id, user_id) do update set level = excluded.level`
}

export async function membershipLevel(sql: Sql, organizationId: string, userId: number): Promise<number | undefined> {
  const [row] = await sql<{ level: number }[]>`
    select level from organization_memberships where organization_id = ${organizationId} and user_id = ${userId}`
  return row?.level
}

export async function findOrganization(sql: Sql, id: string): Promise<OrganizationRow | undefined> {
  const [row] = await sql<OrganizationRow[]>`select * from organizations where id = ${id}`
  return row
}

/** The organizations a user belongs to, with their level in each, oldest first. */
export async function organizationsOfUser(sql: Sql, userId: number): Promise<(OrganizationRow & { level: number })[]> {
  return sql<(OrganizationRow & { level: number })[]>`
    select o.*, m.level from organizations o
    join organization_memberships m on m.organization_id = o.id and m.user_id = ${userId}
    order by o.created_at, o.id`
}

/** A membership with the user it is of. */
export interface MembershipRow {
  id: string
  organization_id: string
  user_id: number
  level: number
  joined_at: Date
  updated_at: Date
  user_uuid: string
  user_distinct_id: string
  user_first_name: string
  user_last_name: string
  user_email: string
}

const membershipColumns = (sql: Sql) => sql`
  m.id, m.organization_id, m.user_id, m.level, m.created_at as joined_at, m.updated_at,
  u.uuid as user_uuid, u.distinct_id as user_distinct_id, u.first_name as user_first_name,
  u.last_name as user_last_name, u.email as user_email`

/** The organization's members, by level then newest first, as PostHog orders them. */
export async function listMemberships(sql: Sql, organizationId: string): Promise<MembershipRow[]> {
  return sql<MembershipRow[]>`
    select ${membershipColumns(sql)} from organization_memberships m join users u on u.id = m.user_id
    where m.organization_id = ${organizationId}
    order by m.level, m.created_at desc, m.user_id`
}

export async function findMembership(sql: Sql, organizationId: string, userId: number): Promise<MembershipRow | undefined> {
  const [row] = await sql<MembershipRow[]>`
    select ${membershipColumns(sql)} from organization_memberships m join users u on u.id = m.user_id
    where m.organization_id = ${organizationId} and m.user_id = ${userId}`
  return row
}

export async function setMembershipLevel(sql: Sql, organizationId: string, userId: number, level: number): Promise<void> {
  await sql`
    update organization_memberships set level = ${level}, updated_at = now()
    where organization_id = ${organizationId} and user_id = ${userId}`
}

/**
 * Removes the membership; the user's current organization and project move to another
 * organization they belong to (or none), as PostHog's leave does.
 */
export async function removeMembership(sql: Sql, organizationId: string, userId: number): Promise<boolean> {
  const removed = await sql`
    delete from organization_memberships where organization_id = ${organizationId} and user_id = ${userId} returning user_id`
  if (removed.length === 0) return false
  await sql`
    with next_org as (
      select m.organization_id from organization_memberships m
      join organizations o on o.id = m.organization_id
      where m.user_id = ${userId} order by o.created_at, o.id limit 1
    )
    update users set
      current_organization_id = (select organization_id from next_org),
      current_project_id = (select p.id from projects p where p.organization_id = (select organization_id from next_org) order by p.id limit 1)
    where id = ${userId} and current_organization_id = ${organizationId}`
  return true
}

export async function countOwners(sql: Sql, organizationId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from organization_memberships where organization_id = ${organizationId} and level >= 15`
  return row?.n ?? 0
}
