/** The longest a delivery waits between two attempts. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

/**
 * The wait before attempt `attempts + 1`: exponential from `baseMs` with full ±50% jitter (so
 * that deliveries failed together do not come back together), at least what Retry-After asks.
 */
export function retryDelayMs(attempts: number, baseMs: number, retryAfterMs: number | undefined, random = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS)
  const jittered = exponential * (0.5 + random())
  return Math.min(Math.max(jittered, retryAfterMs ?? 0), MAX_RETRY_DELAY_MS)
}

/** Retry-After in ms: seconds, or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Statuses worth another attempt: too many requests and server errors; other 4xx will not change. */
export const isRetryableStatus = (status: number): boolean => status === 429 || status === 408 || status >= 500
