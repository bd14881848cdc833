import type { Sql } from '../connect'
import type { UserRow } from './users'

export async function passwordHashOf(sql: Sql, userId: number): Promise<string | undefined> {
  const [row] = await sql<{ hash: string }[]>`select hash from user_passwords where user_id = ${userId}`
  return row?.hash
}

export async function setPasswordHash(sql: Sql, userId: number, hash: string): Promise<void> {
  await sql`
    insert into user_passwords (user_id, hash) values (${userId}, ${hash})
    on conflict (user_id) do update set hash = excluded.hash, updated_at = now()`
}

export async function hasPassword(sql: Sql, userId: number): Promise<boolean> {
  const [row] = await sql`select 1 from user_passwords where user_id = ${userId}`
  return row !== undefined
}

export async function anyPassword(sql: Sql): Promise<boolean> {
  const [row] = await sql`select 1 from user_passwords limit 1`
  return row !== undefined
}

/** The earliest owner of any organization: the account the first start created. */
export async function firstOwner(sql: Sql): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`
    select u.* from users u join organization_memberships m on m.user_id = u.id
    where m.level = 15 and u.is_active order by u.id limit 1`
  return row
}

export async function insertSession(
  sql: Sql,
  session: { tokenHash: string; userId: number; csrfToken: string; lifetimeSeconds: number },
): Promise<void> {
  await sql`
    insert into user_sessions (token_hash, user_id, csrf_token, expires_at)
    values (${session.tokenHash}, ${session.userId}, ${session.csrfToken}, now() + make_interval(secs => ${session.lifetimeSeconds}))`
}

/**
 * The active user of an unexpired session, with its CSRF token. A session in use is kept alive
 * (its expiry moved on, at most once a minute, so that a page polling every second does not
 * write every second).
 */
export async function findSessionUser(
  sql: Sql,
  tokenHash: string,
  lifetimeSeconds: number,
): Promise<{ user: UserRow; csrfToken: string } | undefined> {
  const [row] = await sql<(UserRow & { session_csrf_token: string })[]>`
    with touched as (
      update user_sessions set last_seen_at = now(), expires_at = now() + make_interval(secs => ${lifetimeSeconds})
      where token_hash = ${tokenHash} and expires_at > now() and last_seen_at < now() - interval '1 minute'
      returning token_hash
    )
    select u.*, s.csrf_token as session_csrf_token
    from user_sessions s
    join users u on u.id = s.user_id
    where s.token_hash = ${tokenHash} and s.expires_at > now() and u.is_active`
  if (!row) return undefined
  const { session_csrf_token: csrfToken, ...user } = row
  return { user, csrfToken }
}

export async function deleteSession(sql: Sql, tokenHash: string): Promise<void> {
  await sql`delete from user_sessions where token_hash = ${tokenHash}`
}

/** Every session of a user: a new password signs out every browser. */
export async function deleteSessionsOf(sql: Sql, userId: number): Promise<number> {
  const rows = await sql`delete from user_sessions where user_id = ${userId}`
  return rows.count
}

export async function deleteExpiredSessions(sql: Sql): Promise<number> {
  const rows = await sql`delete from user_sessions where expires_at <= now()`
  return rows.count
}
