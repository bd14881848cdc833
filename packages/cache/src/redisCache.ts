import { createClient } from 'redis'
import { systemClock, type Clock } from './clock'
import { OutageLog, type LogFn } from './outageLog'
import type { SharedCache } from './sharedCache'

const INVALIDATION_CHANNEL = 'burrow:invalidate'
const KEY_PREFIX = 'burrow:'

/** How long a clean QUIT may take at close before the connection is dropped instead. */
const QUIT_TIMEOUT_MS = 1_000

/**
 * How long one command may wait for its reply. A command written while the client reconnects
 * to an address that accepts and then drops connections (a TCP load balancer whose Redis went
 * away) can wait for a reply that never comes: the client's own command timeout stops at the
 * write, so the wait is bounded here.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000

export class RedisCommandTimeout extends Error {
  constructor() {
    super(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`)
    this.name = 'RedisCommandTimeout'
  }
}

/** The command's reply, or a RedisCommandTimeout once REDIS_COMMAND_TIMEOUT_MS have passed (a late reply is dropped). */
export async function withinCommandTimeout<T>(command: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisCommandTimeout()), REDIS_COMMAND_TIMEOUT_MS)
  })
  command.catch(() => {})
  try {
    return await Promise.race([command, timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/** Options of every Redis client of the service: commands fail at once while Redis is unreachable (no offline queue); the client reconnects by itself. */
export function redisClientOptions(url: string) {
  return {
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
  }
}

/**
 * Redis-backed cache. A command fails at once while Redis is unreachable and within a bound
 * otherwise, so a Redis outage costs a cache miss, never a hung request.
 * Nor does it wait for Redis to start: the cache is created at once, misses until Redis
 * answers, and subscribes to invalidations when it does.
 */
export async function createRedisCache(
  url: string,
  log: LogFn = () => {},
  { clock = systemClock }: { clock?: Clock } = {},
): Promise<SharedCache> {
  const options = redisClientOptions(url)
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
        return (await withinCommandTimeout(client.get(KEY_PREFIX + key))) ?? undefined
      } catch {
        return undefined
      }
    },
    async set(key, value, ttlSeconds) {
      try {
        await withinCommandTimeout(client.set(KEY_PREFIX + key, value, { expiration: { type: 'EX', value: ttlSeconds } }))
      } catch {
        // A cache write that fails only means the next read goes to the source of truth.
      }
    },
    async delete(key) {
      await withinCommandTimeout(client.del(KEY_PREFIX + key))
    },
    async publishInvalidation(key) {
      // This instance forgets the key at once; the others when the message reaches them.
      notify(key)
      await withinCommandTimeout(client.publish(INVALIDATION_CHANNEL, key))
    },
    onInvalidation(listener) {
      listeners.push(listener)
    },
    connected() {
      return client.isReady
    },
    async ping() {
      await withinCommandTimeout(client.ping())
    },
    async close(withinMs) {
      await Promise.all([subscriber, client].map((c) => closeClient(c, withinMs)))
    },
  }
}

/**
 * QUITs a connected client, within a bound; drops one that is not (a QUIT to an unreachable
 * Redis would wait for a reconnection that may never come).
 */
export async function closeClient(
  client: { isOpen: boolean; isReady: boolean; close(): Promise<void>; destroy(): void },
  withinMs = QUIT_TIMEOUT_MS,
): Promise<void> {
  // A client already closed (its socket dropped while it was closing) throws on destroy.
  const drop = () => {
    if (client.isOpen) client.destroy()
  }
  if (!client.isReady) {
    drop()
    return
  }
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))
  await Promise.race([client.close().catch(() => {}), timedOut])
  clearTimeout(timer)
  drop()
}

/** Where Redis is, for logs: host and port, never the password. */
export function redactedHost(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'server'
  }
}
