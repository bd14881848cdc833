/**
 * Failures that pass: anything without a SQLSTATE (the connection, ClickHouse), connection
 * classes (08), the server shutting down or short of resources (57, 53, 58), and conflicts with
 * concurrent transactions (40). Any other error is about the data, and trying again fails again.
 */
export function isTransientError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true
  return ['08', '40', '53', '57', '58'].includes(code.slice(0, 2))
}

/**
 * PostgreSQL did not answer: its liveness check failed (a server that is down, frozen or cut off
 * by the network), so the call was failed at once instead of waiting on a connection that would
 * never answer. Requests that need PostgreSQL answer 503 on it; work in the background retries.
 */
export class PostgresUnavailable extends Error {
  readonly code = 'POSTGRES_UNAVAILABLE'
  constructor(reason: string) {
    super(`PostgreSQL is not answering: ${reason}`)
    this.name = 'PostgresUnavailable'
  }
}

/** The driver's own codes for a connection that failed, timed out or was closed under a query. */
const CONNECTION_CODES = new Set([
  'POSTGRES_UNAVAILABLE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * Whether a failed call means PostgreSQL is unavailable rather than that the call was wrong:
 * no connection, a connection lost, the server starting, stopping or out of connections
 * (08, 57P01-57P03, 53300), or a statement stopped by statement_timeout (57014). A caller
 * answers these with 503, which clients retry.
 */
export function isPostgresUnavailable(err: unknown): boolean {
  if (err instanceof PostgresUnavailable) return true
  const code = (err as { code?: unknown })?.code
  if (typeof code !== 'string') return false
  if (CONNECTION_CODES.has(code)) return true
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '57014'
}
