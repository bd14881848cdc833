import { createClient } from 'redis'
import { systemClock, type Clock } from './clock'
import { OutageLog, type LogFn } from './outageLog'
import type { SharedCache } from './sharedCache'

const INVALIDATION_CHANNEL = 'burrow:invalidate'
const KEY_PREFIX = 'burrow:'

/** How long a clean QUIT may take at close before the connection is dropped instead. */
const QUIT_TIMEOUT_MS = 1_000

/**
 * Redis-backed cache. Commands fail at once while Redis is unreachable (no offline queue), so
 * a Redis outage costs a cache miss, never a hung request; the client reconnects by itself.
 * Nor does it wait for Redis to start: the cache is created at once, misses until Redis
 * answers, and subscribes to invalidations when it does.
 */
export async function createRedisCache(
  url: string,
  log: LogFn = () => {},
  { clock = systemClock }: { clock?: Clock } = {},
): Promise<SharedCache> {
  const options = {
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
  }
  const client = createClient(options)
  const subscriber = createClient(options)
  // Both clients fail at every reconnection attempt while Redis is down: one outage, one log.
  const outage = new OutageLog(`redis ${redactedHost(url)}`, log, { clock })
  for (const c of [client, subscriber]) {
    c.on('error', (err: unknown) => outage.failed(err))
    c.on('ready', () => {
      if (client.isReady && subscriber.isReady) outage.succeeded()
    })
  }
  const listeners: ((key: string) => void)[] = []
  const notify = (key: string) => {
    for (const listener of listeners) listener(key)
  }
  // connect() resolves only once Redis answers (it retries meanwhile); the client resubscribes
  // by itself after later reconnections.
  void client.connect().catch(() => {})
  void subscriber
    .connect()
    .then(() => (subscriber.isReady ? subscriber.subscribe(INVALIDATION_CHANNEL, notify) : undefined))
    .catch((err: unknown) => outage.failed(err))

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
    connected() {
      return client.isReady
    },
    async close() {
      await Promise.all([subscriber, client].map(closeClient))
    },
  }
}

/**
 * QUITs a connected client, within a bound; drops one that is not (a QUIT to an unreachable
 * Redis would wait for a reconnection that may never come).
 */
export async function closeClient(client: { isReady: boolean; close(): Promise<void>; destroy(): void }): Promise<void> {
  if (!client.isReady) {
    client.destroy()
    return
  }
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIT_TIMEOUT_MS)))
  await Promise.race([client.close().catch(() => {}), timedOut])
  clearTimeout(timer)
  if (client.isReady) client.destroy()
}

/** Where Redis is, for logs: host and port, never the password. */
export function redactedHost(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'server'
  }
}
