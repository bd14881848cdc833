import type { RateLimit, RateLimitStore, WindowLimit } from '@burrow/cache'
import { throttledFor } from '@burrow/core'

/** The rate limit classes of the private API. */
export type ThrottleClass = 'api' | 'query'

/** A class's limits: a burst over a minute and a sustained rate over an hour (0: no limit). */
export interface ThrottleRates {
  burstPerMinute: number
  sustainedPerHour: number
}

/** PostHog's defaults: the private API, and its query endpoint's lower ones. */
export const DEFAULT_THROTTLE_RATES: Record<ThrottleClass, ThrottleRates> = {
  api: { burstPerMinute: 480, sustainedPerHour: 4_800 },
  query: { burstPerMinute: 240, sustainedPerHour: 2_400 },
}

/** Counts a request of a personal API key against its route's limits; throws the 429 to answer past them. */
export type ApiThrottle = (keyId: string, throttle: ThrottleClass) => Promise<void>

/**
 * The private API's rate limits, per personal API key (by its id, so that rolling the key does
 * not reset them), counted in `store` (Redis: shared by every instance). As DRF checks
 * throttles, a request counts in each window, and the answer waits for the longest of them.
 */
export function createApiThrottle(
  store: RateLimitStore,
  rates: Record<ThrottleClass, ThrottleRates> = DEFAULT_THROTTLE_RATES,
  onThrottled: (throttle: ThrottleClass) => void = () => {},
): ApiThrottle {
  const windows = (name: ThrottleClass): RateLimit[] => {
    const { burstPerMinute, sustainedPerHour } = rates[name]
    const limits: Array<[string, WindowLimit]> = [
      [`${name}:burst`, { points: burstPerMinute, durationS: 60 }],
      [`${name}:sustained`, { points: sustainedPerHour, durationS: 3_600 }],
    ]
    return limits.filter(([, window]) => window.points > 0).map(([key, window]) => store.limit(key, window))
  }
  const byClass: Record<ThrottleClass, RateLimit[]> = { api: windows('api'), query: windows('query') }
  return async (keyId, throttle) => {
    const verdicts = await Promise.all(byClass[throttle].map((limit) => limit.hit(keyId)))
    const waits = verdicts.flatMap((verdict) => (verdict.allowed ? [] : [verdict.retryAfterMs]))
    if (waits.length === 0) return
    onThrottled(throttle)
    throw throttledFor(Math.max(...waits))
  }
}
