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
