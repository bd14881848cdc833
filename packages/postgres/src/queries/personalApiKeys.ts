import type { Sql } from '../connect'
import type { UserRow } from './users'

export interface PersonalApiKeyRow {
  id: string
  user_id: number
  label: string
  secure_value: string
  mask_value: string
  scopes: string[]
  scoped_teams: number[] | null
  scoped_organizations: string[] | null
  created_at: Date
  last_used_at: Date | null
  last_rolled_at: Date | null
}

/** What a key may do, as its row says: read with each request. */
export type PersonalApiKeyGrant = Pick<PersonalApiKeyRow, 'id' | 'secure_value' | 'scopes' | 'scoped_teams' | 'scoped_organizations'>

export interface PersonalApiKeyWrite {
  label: string
  scopes: string[]
  scopedTeams: number[] | null
  scopedOrganizations: string[] | null
}

export async function insertPersonalApiKey(
  sql: Sql,
  key: { id: string; userId: number; secureValue: string; maskValue: string } & Partial<PersonalApiKeyWrite> & { label: string },
): Promise<PersonalApiKeyRow> {
  const [row] = await sql<PersonalApiKeyRow[]>`
    insert into personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, scoped_teams, scoped_organizations)
    values (${key.id}, ${key.userId}, ${key.label}, ${key.secureValue}, ${key.maskValue}, ${key.scopes ?? ['*']},
            ${key.scopedTeams ?? null}, ${key.scopedOrganizations ?? null})
    returning *`
  return row!
}

/**
 * The active user owning the key with this secure value, with what the key grants; refreshes
 * last_used_at at most hourly.
 */
export async function findUserByKeySecureValue(
  sql: Sql,
  secureValue: string,
): Promise<{ user: UserRow; key: PersonalApiKeyGrant } | undefined> {
  const [row] = await sql<(UserRow & { key: PersonalApiKeyGrant })[]>`
    -- A data-modifying WITH runs whether or not the query reads it.
    with touched as (
      update personal_api_keys set last_used_at = now()
      where secure_value = ${secureValue}
        and (last_used_at is null or last_used_at < now() - interval '1 hour')
      returning id
    )
    select u.*, json_build_object(
        'id', k.id, 'secure_value', k.secure_value, 'scopes', k.scopes,
        'scoped_teams', k.scoped_teams, 'scoped_organizations', k.scoped_organizations) as key
    from personal_api_keys k
    join users u on u.id = k.user_id
    where k.secure_value = ${secureValue} and u.is_active`
  if (!row) return undefined
  const { key, ...user } = row
  return { user, key }
}

export async function countKeysOfUser(sql: Sql, userId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from personal_api_keys where user_id = ${userId}`
  return row?.n ?? 0
}

/** The user's keys, newest first. */
export async function listKeysOfUser(sql: Sql, userId: number): Promise<PersonalApiKeyRow[]> {
  return sql<PersonalApiKeyRow[]>`
    select * from personal_api_keys where user_id = ${userId} order by created_at desc, id`
}

export async function findKeyOfUser(sql: Sql, userId: number, id: string): Promise<PersonalApiKeyRow | undefined> {
  const [row] = await sql<PersonalApiKeyRow[]>`select * from personal_api_keys where user_id = ${userId} and id = ${id}`
  return row
}

export async function updateKeyOfUser(
  sql: Sql,
  userId: number,
  id: string,
  write: Partial<PersonalApiKeyWrite>,
): Promise<PersonalApiKeyRow | undefined> {
  const [row] = await sql<PersonalApiKeyRow[]>`
    update personal_api_keys set
      label = coalesce(${write.label ?? null}, label),
      scopes = coalesce(${write.scopes ?? null}::text[], scopes),
      scoped_teams = case when ${write.scopedTeams !== undefined} then ${write.scopedTeams ?? null}::int[] else scoped_teams end,
      scoped_organizations = case when ${write.scopedOrganizations !== undefined}
        then ${write.scopedOrganizations ?? null}::text[] else scoped_organizations end
    where user_id = ${userId} and id = ${id}
    returning *`
  return row
}

/** A new value for the key: the old one stops working with this statement. */
export async function rollKeyOfUser(
  sql: Sql,
  userId: number,
  id: string,
  value: { secureValue: string; maskValue: string },
): Promise<PersonalApiKeyRow | undefined> {
  const [row] = await sql<PersonalApiKeyRow[]>`
    update personal_api_keys set secure_value = ${value.secureValue}, mask_value = ${value.maskValue}, last_rolled_at = now()
    where user_id = ${userId} and id = ${id}
    returning *`
  return row
}

export async function deleteKeyOfUser(sql: Sql, userId: number, id: string): Promise<boolean> {
  const rows = await sql`delete from personal_api_keys where user_id = ${userId} and id = ${id} returning id`
  return rows.length > 0
}
