import { createClient } from 'redis'
import { systemClock, type Clock } from './clock'
import type { SharedCache } from './sharedCache'

/**
 * Logs a client error only when none came in the 10 s before it: a down Redis makes both
 * clients fail at every reconnection attempt, which would otherwise flood the log.
 */
export function quietErrorLog(log: (msg: string) => void, clock: Clock): (err: unknown) => void {
  let lastError = 0
  return (err) => {
    if (clock.now() - lastError > 10_000) log(`redis: ${String(err)}`)
    lastError = clock.now()
  }
}

const INVALIDATION_CHANNEL = 'burrow:invalidate'
const KEY_PREFIX = 'burrow:'

/**
 * Redis-backed cache. Commands fail at once while Redis is unreachable (no offline queue), so
 * a Redis outage costs a cache miss, never a hung request; the client reconnects by itself.
 */
export async function createRedisCache(
  url: string,
  log: (msg: string) => void = () => {},
  { clock = systemClock }: { clock?: Clock } = {},
): Promise<SharedCache> {
  const options = {
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
  }
  const client = createClient(options)
  const subscriber = createClient(options)
  const logError = quietErrorLog(log, clock)
  for (const c of [client, subscriber]) c.on('error', logError)
  await Promise.all([client.connect(), subscriber.connect()])
  const listeners: ((key: string) => void)[] = []
  const notify = (key: string) => {
    for (const listener of listeners) listener(key)
  }
  await subscriber.subscribe(INVALIDATION_CHANNEL, notify)

  return {
    kind: 'redis',
    async get(key) {
      try {
        return (await client.get(KEY_PREFIX + key)) ?? undefined
      } catch {
        return undefined
      }
    },
    async set(key, value, ttlSeconds) {
      try {
        await client.set(KEY_PREFIX + key, value, { expiration: { type: 'EX', value: ttlSeconds } })
      } catch {
        // A cache write that fails only means the next read goes to the source of truth.
      }
    },
    async delete(key) {
      await client.del(KEY_PREFIX + key)
    },
    async publishInvalidation(key) {
      // This instance forgets the key at once; the others when the message reaches them.
      notify(key)
      await client.publish(INVALIDATION_CHANNEL, key)
    },
    onInvalidation(listener) {
      listeners.push(listener)
    },
    async close() {
      await Promise.allSettled([subscriber.quit(), client.quit()])
    },
  }
}
