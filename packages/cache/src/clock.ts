/** Where the caches read the time, so that tests move time on instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that stands still until `advance` moves it, for tests of anything given a Clock. */
export function manualClock(start = Date.UTC(2024, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start
  return {
    now: () => now,
    advance(ms) {
      now += ms
    },
  }
}
