import { pluginWebhookOutbox } from '@burrow/postgres'
import type { CoreDeps } from '@burrow/core'

type Outcome = pluginWebhookOutbox.DeliveryOutcome

/** Outcomes recorded together: when this many wait, or this long after the first. */
const OUTCOME_BATCH = 500
const OUTCOME_WAIT_MS = 5

/**
 * Records outcomes in batches: one statement for those that ended within a few ms of each other.
 * A batch PostgreSQL fails is tried again while its leases last; past that its deliveries are
 * free again (and sent again, as after a server that died mid-send).
 */
export class OutcomeWriter {
  private waiting: Array<{ outcome: Outcome; leaseEnds: number; done: (recorded: boolean) => void }> = []
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> | undefined

  constructor(private readonly deps: CoreDeps) {}

  /** Resolves once the outcome is recorded; throws if it could not be within its lease. */
  record(outcome: Outcome, leaseEnds: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        outcome,
        leaseEnds,
        done: (recorded) => (recorded ? resolve() : reject(new Error(`the outcome of event ${outcome.eventUuid} could not be recorded`))),
      })
      if (this.waiting.length >= OUTCOME_BATCH) this.write()
      else this.timer ??= setTimeout(() => this.write(), OUTCOME_WAIT_MS)
    })
  }

  /** Waits until every outcome handed in is recorded or given up. */
  async drain(): Promise<void> {
    while (this.writing || this.waiting.length > 0) {
      if (!this.writing) this.write()
      await this.writing
    }
  }

  private write(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.writing) return
    this.writing = this.writeAll().finally(() => {
      this.writing = undefined
      if (this.waiting.length > 0) this.timer ??= setTimeout(() => this.write(), OUTCOME_WAIT_MS)
    })
  }

  private async writeAll(): Promise<void> {
    while (this.waiting.length > 0) {
      let batch = this.waiting.splice(0, OUTCOME_BATCH)
      while (batch.length > 0) {
        try {
          await pluginWebhookOutbox.recordOutcomes(
            this.deps.sql,
            batch.map((w) => w.outcome),
          )
          for (const w of batch) w.done(true)
          break
        } catch (err) {
          this.deps.log('could not record webhook outcomes; trying again', err)
          await new Promise((resolve) => setTimeout(resolve, 1000))
          // Past its lease, another server may be sending it: this one does not record it.
          const now = Date.now()
          for (const w of batch) if (w.leaseEnds <= now) w.done(false)
          batch = batch.filter((w) => w.leaseEnds > now)
        }
      }
    }
  }
}
