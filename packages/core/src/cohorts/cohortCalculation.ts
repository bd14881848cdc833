import { cohortPeople } from '@burrow/clickhouse'
import { cohorts, type CohortRow } from '@burrow/postgres'
import { resolvedDefinition } from './cohortDefinition'
import type { CoreDeps } from '../deps'

/** Calculations that run at once, whatever was asked: the rest wait their turn. */
const CONCURRENT_CALCULATIONS = 1
/** A calculation not finished after this long is presumed lost with its server and is taken over. */
const ABANDONED_AFTER_S = 3600

/**
 * Runs a calculation started in PostgreSQL (the row holds its version): stores the members in
 * ClickHouse, then records count and time. A failure counts in `errors_calculating`.
 */
export async function calculateCohort(deps: Omit<CoreDeps, 'cohortCalculations'>, row: CohortRow): Promise<void> {
  const v = { teamId: row.project_id, cohortId: row.id, version: row.pending_version }
  try {
    if (row.is_static) {
      await cohortPeople.insertMembers(deps.ch, v, await cohorts.staticMemberUuids(deps.sql, row.id))
    } else {
      const definition = await resolvedDefinition(deps.sql, row)
      if (definition) await cohortPeople.calculateMembers(deps.ch, v, definition)
    }
    const count = await cohortPeople.countMembers(deps.ch, v)
    await cohorts.finishCalculation(deps.sql, row.id, v.version, count)
    await cohortPeople.removeOlderMembers(deps.ch, v)
  } catch (err) {
    deps.log(`cohort ${row.id}: calculation ${v.version} failed: ${(err as Error)?.message ?? String(err)}`)
    await cohorts.failCalculation(deps.sql, row.id, v.version).catch(() => {})
  }
}

/**
 * Calculates cohorts in the background: those whose definition just changed, and, checking
 * every `checkIntervalMs`, those whose last calculation is older than `recalculateAfterS`. Each
 * server claims due cohorts in PostgreSQL, so several servers share the work without repeating it.
 */
export class CohortCalculator {
  private readonly queue: CohortRow[] = []
  private running = 0
  private idle: Promise<void> = Promise.resolve()
  private settle: (() => void) | undefined
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly deps: Omit<CoreDeps, 'cohortCalculations'>,
    private readonly options: { recalculateAfterS: number; checkIntervalMs: number },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.claimDue(), this.options.checkIntervalMs)
    this.timer.unref()
    void this.claimDue()
  }

  /** Queues a calculation already started (see cohorts.startCalculation). */
  enqueue(row: CohortRow): void {
    if (this.stopped) return
    if (this.running === 0 && this.queue.length === 0) this.idle = new Promise((resolve) => (this.settle = resolve))
    this.queue.push(row)
    this.pump()
  }

  /** Resolves once nothing is queued or running (tests, shutdown). */
  whenIdle(): Promise<void> {
    return this.idle
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    this.queue.length = 0
    await this.idle
  }

  private pump(): void {
    while (this.running < CONCURRENT_CALCULATIONS && this.queue.length > 0) {
      const row = this.queue.shift()!
      this.running++
      void calculateCohort(this.deps, row).finally(() => {
        this.running--
        this.pump()
        if (this.running === 0 && this.queue.length === 0) this.settle?.()
      })
    }
  }

  private async claimDue(): Promise<void> {
    try {
      while (!this.stopped && this.queue.length === 0) {
        const row = await cohorts.claimDueCalculation(this.deps.sql, this.options.recalculateAfterS, ABANDONED_AFTER_S)
        if (!row) return
        this.enqueue(row)
        await this.whenIdle()
      }
    } catch (err) {
      this.deps.log(`cohorts: looking for due calculations failed: ${String(err)}`)
    }
  }
}
