import type { Pool } from '@burrow/postgres'
import { describe, expect, it } from 'vitest'
import { AppMetrics } from './appMetrics'

/** A pool that keeps the values of each statement it is given (the increments' columns, in order). */
function capturingPool(): { sql: Pool; writes: unknown[][] } {
  const writes: unknown[][] = []
  const sql = (_strings: TemplateStringsArray, ...values: unknown[]) => {
    writes.push(values)
    return Promise.resolve([])
  }
  return { sql: sql as unknown as Pool, writes }
}

describe('AppMetrics', () => {
  it('adds successes counted per batch to those recorded one by one, with the last error', async () => {
    const { sql, writes } = capturingPool()
    const metrics = new AppMetrics(sql, { flushMs: 60_000, log: () => {} })
    metrics.record(7, 'processEvent', 'success')
    metrics.recordSuccesses(7, 'processEvent', 99)
    metrics.record(7, 'processEvent', 'failure', 'Error: boom')
    metrics.recordSuccesses(8, 'processEvent', 3)
    await metrics.flush()
    expect(writes).toEqual([
      [
        [7, 8],
        ['processEvent', 'processEvent'],
        [100, 3],
        [0, 0],
        [1, 0],
        ['Error: boom', null],
      ],
    ])
  })
})
