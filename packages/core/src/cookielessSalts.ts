import { randomBytes } from 'node:crypto'
import { cookielessSalts } from '@burrow/postgres'
import type { CoreDeps } from './deps'

/**
 * The calendar days an event may still be hashed for, as PostHog allows them: a day somewhere in
 * the world now (UTC−12 to UTC+14), or up to 72 hours of ingestion lag after it ended.
 */
export function cookielessDays(nowMs: number): string[] {
  const days: string[] = []
  const today = Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate())
  for (let offset = -4; offset <= 1; offset++) {
    const start = today + offset * 86_400_000
    if (nowMs >= start - 12 * 3_600_000 && nowMs < start + (14 + 72) * 3_600_000) days.push(new Date(start).toISOString().slice(0, 10))
  }
  return days
}

/** The 16-byte salt of a day (YYYY-MM-DD), base64, made once for every instance; older salts are deleted. */
export async function cookielessSalt(deps: Pick<CoreDeps, 'sql'>, day: string): Promise<string> {
  const oldest = cookielessDays(Date.now())[0]!
  const salt = await cookielessSalts.daySalt(deps.sql, day, randomBytes(16), oldest)
  return salt.toString('base64')
}

/**
 * The shared state of stateful cookieless mode (sessions, identifies), in the shared cache by key.
 * While Redis does not answer, the state cannot be read: that fails (the client retries) rather
 * than starting every visitor's session anew, as PostHog fails closed.
 */
export function cookielessState(deps: Pick<CoreDeps, 'cache'>) {
  const answering = () => {
    if (deps.cache.kind === 'redis' && !deps.cache.connected()) throw new Error('the shared cache does not answer')
  }
  return {
    get: (keys: string[]) => {
      answering()
      return Promise.all(keys.map((key) => deps.cache.get(key)))
    },
    set: async (entries: Array<[string, string]>, ttlSeconds: number) => {
      answering()
      await Promise.all(entries.map(([key, value]) => deps.cache.set(key, value, ttlSeconds)))
    },
  }
}
