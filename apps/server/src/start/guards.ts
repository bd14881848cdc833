import { createApiThrottle, type ApiGuards } from '@burrow/api'
import { createRateLimitStore, createSlotStore, type RateLimit, type SlotStore } from '@burrow/cache'
import type { Config } from '@burrow/config'
import { KeyGuessCounter, keyGuessGuard, signInGuard } from '@burrow/core'
import { logFn, type Logger } from '../logger'
import type { ServerMetrics } from '../observability/metrics'
import type { Teardown } from './teardown'

/** Failed sign-ins an account may have in SIGN_IN_WINDOW_S before it is refused until the window ends. */
const SIGN_IN_FAILURES = 10
const SIGN_IN_WINDOW_S = 15 * 60

export interface Guards {
  /** What the private API holds every request to: key guessing, sign-ins, sessions' origins, throttles. */
  api: ApiGuards
  keyGuessCounter: KeyGuessCounter
  /** A project's quota of events a second, when CAPTURE_EVENTS_PER_SECOND sets one: how long to wait when over. */
  eventQuota: ((projectId: number, events: number) => Promise<number | undefined>) | undefined
  /** The analytics queries each project runs at once, counted across servers. */
  querySlots: SlotStore
}

/**
 * The limits every instance counts alike (in Redis when configured): invalid keys, failed
 * sign-ins, the API's throttles, capture's event quota and the queries running at once.
 */
export function createGuards(config: Config, logger: Logger, metrics: ServerMetrics, teardown: Teardown): Guards {
  const warn = logFn(logger)
  const rateLimits = createRateLimitStore(config.REDIS_URL, warn)
  teardown.onStop(() => rateLimits.close())
  const querySlots = createSlotStore(config.REDIS_URL, warn)
  teardown.onStop(() => querySlots.close())
  const keyGuessCounter = new KeyGuessCounter(
    rateLimits.limit('key-guesses', { points: config.KEY_GUESS_REFUSE_AFTER, durationS: config.KEY_GUESS_WINDOW_S }),
    {
      slowAfter: config.KEY_GUESS_SLOW_AFTER,
      maxDelayMs: 2_000,
      onGuess: (kind, outcome) => metrics.keyGuesses.labels(kind, outcome).inc(),
    },
  )
  const keyGuesses = keyGuessGuard((kind, address) => keyGuessCounter.judge(kind, address))
  const api: ApiGuards = {
    keyGuesses,
    // Failed sign-ins: per account across every instance, and per address with the invalid keys.
    signIn: signInGuard(rateLimits.limit('sign-in-failures', { points: SIGN_IN_FAILURES, durationS: SIGN_IN_WINDOW_S }), {
      limit: SIGN_IN_FAILURES,
      windowS: SIGN_IN_WINDOW_S,
      addresses: keyGuesses,
    }),
    sessionOrigins: config.CORS_ALLOWED_ORIGINS,
    throttle: createApiThrottle(
      rateLimits,
      {
        api: { burstPerMinute: config.API_RATE_LIMIT_PER_MINUTE, sustainedPerHour: config.API_RATE_LIMIT_PER_HOUR },
        query: { burstPerMinute: config.QUERY_RATE_LIMIT_PER_MINUTE, sustainedPerHour: config.QUERY_RATE_LIMIT_PER_HOUR },
      },
      (throttle) => metrics.apiThrottled.labels(throttle).inc(),
    ),
  }
  const quota = config.CAPTURE_EVENTS_PER_SECOND
  const eventQuota = quota > 0 ? projectEventQuota(rateLimits.limit('capture-events', { points: quota, durationS: 1 }), quota) : undefined
  return { api, keyGuessCounter, eventQuota, querySlots }
}

/**
 * A quota of events a second per project: a request's events count at once (at most the whole
 * quota, so that one large batch can pass in a second of its own); how long to wait when over.
 */
function projectEventQuota(limit: RateLimit, perSecond: number) {
  return async (projectId: number, events: number): Promise<number | undefined> => {
    const verdict = await limit.hit(String(projectId), Math.min(events, perSecond))
    return verdict.allowed ? undefined : verdict.retryAfterMs
  }
}
