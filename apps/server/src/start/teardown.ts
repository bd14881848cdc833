import type { Logger } from '../logger'
import { logFn } from '../logger'

type Close = () => Promise<void>

/**
 * What the stop closes, in the reverse order of the start: each part registers its close as it
 * opens, so that what depends on a part is closed before it. A few parts that must outlive every
 * other (the monitors, the metrics port) are closed at the very end, in the order given.
 */
export class Teardown {
  private readonly closes: Close[] = []
  private readonly lastCloses: Close[] = []
  /** When the process's own deadline (SHUTDOWN_TIMEOUT_MS from the stop) comes. */
  private deadline = Infinity

  constructor(private readonly logger: Logger) {}

  /** Closed before everything registered earlier. */
  onStop(close: Close): void {
    this.closes.unshift(close)
  }

  /** Closed after everything registered with onStop. */
  atTheEnd(close: Close): void {
    this.lastCloses.push(close)
  }

  /** What is left before the deadline, less `marginMs`, kept within [min, max]: what is closed last must fit before it. */
  timeLeft(min: number, max: number, marginMs: number): number {
    return Math.max(min, Math.min(max, this.deadline - Date.now() - marginMs))
  }

  /** Closes every part, even if one before it fails; throws the first failure afterwards. */
  async stop(timeoutMs: number): Promise<void> {
    this.deadline = Date.now() + timeoutMs
    let failure: Error | undefined
    for (const close of [...this.closes, ...this.lastCloses]) {
      await close().catch((err: unknown) => {
        logFn(this.logger)('a part of the service failed to close', err)
        failure ??= err instanceof Error ? err : new Error(String(err))
      })
    }
    if (failure) throw failure
  }

  /** After a failed start: closes what was opened, quietly, since the start's own error says what went wrong. */
  async abandon(): Promise<void> {
    for (const close of [...this.closes, ...this.lastCloses]) await close().catch(() => {})
  }
}
