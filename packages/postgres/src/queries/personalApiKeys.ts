import type { Sql } from '../connect'
import type { UserRow } from './users'

export async function insertPersonalApiKey(
  sql: Sql,
  key: { id: string; userId: number; label: string; secureValue: string; maskValue: string },
) {
  await sql`
    insert into personal_api_keys (id, user_id, label, secure_value, mask_value)
    values (${key.id}, ${key.userId}, ${key.label}, ${key.secureValue}, ${key.maskValue})`
}

/** The active user owning the key with this secure value; refreshes last_used_at at most hourly. */
export async function findUserByKeySecureValue(sql: Sql, secureValue: string): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`
    with key as (
      update personal_api_keys set last_used_at = now()
      where secure_value = ${secureValue}
        and (last_used_at is null or last_used_at < now() - interval '1 hour')
      returning user_id
    )
    select u.* from users u
    where u.is_active
      and u.id = coalesce(
        (select user_id from key),
        (select user_id from personal_api_keys where secure_value = ${secureValue}))`
  return row
}
