import { problems } from '@burrow/contracts'
import type { groups } from '@burrow/postgres'

/**
 * The groups list's cursor, opaque to clients as DRF's cursor pagination makes it: base64 of a
 * query string naming the group a page starts after (`p`: its creation time in microseconds,
 * `k`: its key) and `r=1` for a page that ends before it.
 */
export function encodeGroupCursor(position: groups.GroupPosition): string {
  const params = new URLSearchParams({ p: position.createdAtMicros, k: position.groupKey })
  if (position.reverse) params.set('r', '1')
  return Buffer.from(params.toString(), 'utf8').toString('base64')
}

/** A cursor from a link back into its position; anything else is DRF's 404 "Invalid cursor". */
export function decodeGroupCursor(cursor: string): groups.GroupPosition {
  const invalid = () => problems.notFound('Invalid cursor')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cursor)) throw invalid()
  const params = new URLSearchParams(Buffer.from(cursor, 'base64').toString('utf8'))
  const micros = params.get('p')
  const groupKey = params.get('k')
  // Microseconds within PostgreSQL's timestamp range keep the bigint arithmetic of the query exact.
  if (micros === null || !/^-?\d{1,17}$/.test(micros) || groupKey === null) throw invalid()
  return { createdAtMicros: micros, groupKey, reverse: params.get('r') === '1' }
}
