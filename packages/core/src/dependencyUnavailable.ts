import { isClickHouseUnavailable } from '@burrow/clickhouse'
import { isPostgresUnavailable } from '@burrow/postgres'

/**
 * Whether a failure means a store the service needs is unavailable (down, frozen, out of
 * connections, too slow) rather than that the request was wrong: such a request is answered
 * 503, which clients retry. Errors wrapped as the cause of another are looked through.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (isPostgresUnavailable(e) || isClickHouseUnavailable(e)) return true
  }
  return false
}
