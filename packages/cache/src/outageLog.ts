import { systemClock, type Clock } from './clock'

/** A warning, or a failure with its error (which a structured logger keeps in a field of its own). */
export type LogFn = (msg: string, err?: unknown) => void

export interface OutageLogOptions {
  clock?: Clock
  /** At most one line per this interval while the failures go on (default 30 s). */
  intervalMs?: number
}

/**
 * The log of one dependency's outage: its first failure in full, then at most one line per
 * interval with how many failures there were since, and one line when it works again. A
 * dependency that is down fails at every retry; logging each would flood the log and bury
 * everything else.
 */
export class OutageLog {
  private failures = 0
  private unreported = 0
  private since = 0
  private lastLine = 0
  private readonly clock: Clock
  private readonly intervalMs: number

  constructor(
    private readonly what: string,
    private readonly log: LogFn,
    options: OutageLogOptions = {},
  ) {
    this.clock = options.clock ?? systemClock
    this.intervalMs = options.intervalMs ?? 30_000
  }

  get down(): boolean {
    return this.failures > 0
  }

  failed(err: unknown): void {
    const now = this.clock.now()
    if (this.failures++ === 0) {
      this.since = now
      this.lastLine = now
      this.log(`${this.what} failed`, err)
      return
    }
    this.unreported++
    if (now - this.lastLine < this.intervalMs) return
    this.log(`${this.what} still failing: ${this.unreported} more failure(s) in the last ${seconds(now - this.lastLine)}`, err)
    this.lastLine = now
    this.unreported = 0
  }

  succeeded(): void {
    if (this.failures === 0) return
    this.log(`${this.what} recovered after ${seconds(this.clock.now() - this.since)} and ${this.failures} failure(s)`)
    this.failures = 0
    this.unreported = 0
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`
