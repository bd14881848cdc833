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
