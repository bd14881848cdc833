import type { UserSummary } from '@burrow/contracts'
import { users, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'

export function toUserSummary(row: UserRow): UserSummary {
  return { id: row.id, uuid: row.uuid, distinct_id: row.distinct_id, first_name: row.first_name, email: row.email }
}

/**
 * Loads the users that rows refer to (creators, verifiers...) in one query, answering a lookup
 * from id to summary; null ids and users since removed give null.
 */
export async function userSummaries(deps: CoreDeps, ids: Array<number | null>): Promise<(id: number | null) => UserSummary | null> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))]
  const rows = await users.findUsersByIds(deps.sql, wanted)
  const byId = new Map(rows.map((row) => [row.id, toUserSummary(row)]))
  return (id) => (id === null ? null : (byId.get(id) ?? null))
}
