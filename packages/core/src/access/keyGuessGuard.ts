import type { RateLimit } from '@burrow/cache'
import { problems, type ApiProblem } from '@burrow/contracts'

/** Which key was wrong: a personal API key, a project API key (capture, flags), or a console password. */
export type GuessedKey = 'personal' | 'project' | 'password'

/** What became of an invalid key: counted and answered, answered late, or refused. */
export type GuessOutcome = 'counted' | 'slowed' | 'refused'

/** How to answer an invalid key: at once, after `delayMs`, or with 429 for `retryAfterMs`. */
export interface GuessVerdict {
  outcome: GuessOutcome
  delayMs: number
  retryAfterMs: number
}

/** Counts an invalid key from an address, then resolves (late, once the address is slowed) or throws the 429 to answer. */
export interface KeyGuessGuard {
  failed(kind: GuessedKey, address: string | undefined): Promise<void>
}

export interface KeyGuessCounterOptions {
  /** Invalid keys from one address in a window (`limit`'s) beyond which each answer is delayed... */
  slowAfter: number
  /** ...by twice as long as the one before (from 50 ms), up to this. */
  maxDelayMs: number
  /** Told of every invalid key (for the metrics). */
  onGuess?: (kind: GuessedKey, outcome: GuessOutcome) => void
}

const FIRST_DELAY_MS = 50

/**
 * Counts the invalid keys of each address, in `limit` (shared by every instance through Redis):
 * past `slowAfter` in a window its answers are delayed, past the limit's points they are
 * refused until the window ends. Only invalid keys are counted and held back: a valid key is
 * answered as usual from any address, and other addresses are not affected.
 */
export class KeyGuessCounter {
  constructor(
    private readonly limit: RateLimit,
    private readonly options: KeyGuessCounterOptions,
  ) {}

  async judge(kind: GuessedKey, address: string): Promise<GuessVerdict> {
    const verdict = await this.limit.hit(address)
    const over = verdict.count - this.options.slowAfter
    const outcome: GuessOutcome = !verdict.allowed ? 'refused' : over > 0 ? 'slowed' : 'counted'
    this.options.onGuess?.(kind, outcome)
    return {
      outcome,
      delayMs: outcome === 'slowed' ? Math.min(this.options.maxDelayMs, FIRST_DELAY_MS * 2 ** Math.min(over - 1, 16)) : 0,
      retryAfterMs: verdict.allowed ? 0 : verdict.retryAfterMs,
    }
  }
}

/** A guard that asks `judge` (this thread's counter, or the main thread's from a capture thread) and acts on its verdict. */
export function keyGuessGuard(
  judge: (kind: GuessedKey, address: string) => Promise<GuessVerdict>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): KeyGuessGuard {
  return {
    async failed(kind, address) {
      if (!address) return
      const verdict = await judge(kind, address)
      if (verdict.outcome === 'refused') throw throttledFor(verdict.retryAfterMs)
      if (verdict.delayMs > 0) await sleep(verdict.delayMs)
    },
  }
}

/** DRF's throttled answer, with the seconds to wait in Retry-After. */
export function throttledFor(retryAfterMs: number): ApiProblem {
  return problems.throttled(Math.max(1, Math.ceil(retryAfterMs / 1000)))
}
