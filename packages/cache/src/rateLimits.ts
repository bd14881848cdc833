import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { createClient } from 'redis'
import { OutageLog, type LogFn } from './outageLog'
import { closeClient, redactedHost, redisClientOptions, RedisCommandTimeout, withinCommandTimeout } from './redisCache'

/** So many hits per window of so many seconds, counted from the first hit of the window. */
export interface WindowLimit {
  points: number
  durationS: number
}

export type RateVerdict = { allowed: true; count: number } | { allowed: false; count: number; retryAfterMs: number }

/** One counter per key, over a fixed window. */
export interface RateLimit {
  /** Counts `points` hits (1 unless given) of `key`: allowed while the window's count is within the limit; else how long until the window ends. */
  hit(key: string, points?: number): Promise<RateVerdict>
  /** The window's count of `key` so far, without adding to it. */
  count(key: string): Promise<number>
}

/**
 * Where rate counters live: Redis when configured, so that every instance counts against one
 * limit; else this process's memory. While Redis does not answer, each instance counts in its
 * own memory (the limit then holds per instance) rather than letting everything through.
 */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis'
  limit(name: string, window: WindowLimit): RateLimit
  close(): Promise<void>
}

const KEY_PREFIX = 'burrow:rl:'

export function createRateLimitStore(redisUrl: string | undefined, log: LogFn = () => {}): RateLimitStore {
  if (!redisUrl) {
    return { kind: 'memory', limit: (name, window) => rateLimit(memoryLimiter(name, window)), close: async () => {} }
  }
  // A counter that cannot be reached falls back to memory, never holds the request.
  const client = createClient(redisClientOptions(redisUrl))
  const outage = new OutageLog(`redis rate limits ${redactedHost(redisUrl)}`, log)
  client.on('error', (err: unknown) => outage.failed(err))
  client.on('ready', () => outage.succeeded())
  void client.connect().catch(() => {})
  return {
    kind: 'redis',
    limit: (name, window) =>
      redisRateLimit(
        new RateLimiterRedis({
          storeClient: client,
          useRedisPackage: true,
          rejectIfRedisNotReady: true,
          keyPrefix: `${KEY_PREFIX}${name}`,
          points: window.points,
          duration: window.durationS,
          insuranceLimiter: memoryLimiter(name, window),
        }),
        memoryLimiter(name, window),
      ),
    close: () => closeClient(client),
  }
}

function memoryLimiter(name: string, window: WindowLimit): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: `${KEY_PREFIX}${name}`, points: window.points, duration: window.durationS })
}

/**
 * A Redis counter that falls back to this process's memory when Redis does not answer in time
 * (the library's own fallback covers refused connections, not a reply that never comes).
 */
function redisRateLimit(limiter: RateLimiterAbstract, whileSlow: RateLimiterAbstract): RateLimit {
  const shared = rateLimit(limiter)
  const local = rateLimit(whileSlow)
  const orLocal = async <T>(sharedAnswer: Promise<T>, localAnswer: () => Promise<T>): Promise<T> => {
    try {
      return await withinCommandTimeout(sharedAnswer)
    } catch (err) {
      if (err instanceof RedisCommandTimeout) return localAnswer()
      throw err
    }
  }
  return {
    hit: (key, points) => orLocal(shared.hit(key, points), () => local.hit(key, points)),
    count: (key) => orLocal(shared.count(key), () => local.count(key)),
  }
}

function rateLimit(limiter: RateLimiterAbstract): RateLimit {
  return {
    async hit(key, points = 1) {
      try {
        const res = await limiter.consume(key, points)
        return { allowed: true, count: res.consumedPoints }
      } catch (rejection) {
        // The library rejects with its result when the limit is passed, with an Error otherwise.
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, count: rejection.consumedPoints, retryAfterMs: rejection.msBeforeNext }
        }
        throw rejection
      }
    },
    async count(key) {
      return (await limiter.get(key))?.consumedPoints ?? 0
    },
  }
}
