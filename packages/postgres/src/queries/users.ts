import type { Sql } from '../connect'

export interface UserRow {
  id: number
  uuid: string
  distinct_id: string
  email: string
  first_name: string
  last_name: string
  is_active: boolean
  current_organization_id: string | null
  current_project_id: number | null
  created_at: Date
}

export async function insertUser(
  sql: Sql,
  user: { uuid: string; distinctId: string; email: string; firstName: string; organizationId: string },
): Promise<UserRow> {
  const [row] = await sql<UserRow[]>`
    insert into users (uuid, distinct_id, email, first_name, current_organization_id)
    values (${user.uuid}, ${user.distinctId}, ${user.email}, ${user.firstName}, ${user.organizationId})
    returning *`
  return row!
}

export async function setCurrentProject(sql: Sql, userId: number, projectId: number) {
  await sql`update users set current_project_id = ${projectId} where id = ${userId}`
}

export async function findUserByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select * from users where lower(email) = lower(${email})`
  return row
}

export async function findUsersByIds(sql: Sql, ids: number[]): Promise<UserRow[]> {
  if (ids.length === 0) return []
  return sql<UserRow[]>`select * from users where id = any(${ids}::int[])`
}

export async function findUserById(sql: Sql, id: number): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select * from users where id = ${id}`
  return row
}

export async function setCurrentOrganization(sql: Sql, userId: number, organizationId: string, projectId: number | null) {
  await sql`update users set current_organization_id = ${organizationId}, current_project_id = ${projectId} where id = ${userId}`
}
