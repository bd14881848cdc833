import { describe, expect, it } from 'vitest'
import { manualClock } from './clock'
import { OutageLog } from './outageLog'

function recorded() {
  const lines: Array<{ msg: string; err: unknown }> = []
  return { lines, log: (msg: string, err?: unknown) => lines.push({ msg, err }) }
}

describe('the log of an outage', () => {
  it('logs the first failure with its error, then one line per interval with the count, then the recovery once', () => {
    const clock = manualClock()
    const { lines, log } = recorded()
    const outage = new OutageLog('postgres 10.0.0.5:5432', log, { clock, intervalMs: 30_000 })
    const refused = new Error('connect ECONNREFUSED')
    outage.failed(refused)
    for (let i = 0; i < 12; i++) {
      clock.advance(5_000)
      outage.failed(refused)
    }
    expect(outage.down).toBe(true)
    clock.advance(1_000)
    outage.succeeded()
    outage.succeeded()
    expect(lines.map((l) => l.msg)).toEqual([
      'postgres 10.0.0.5:5432 failed',
      'postgres 10.0.0.5:5432 still failing: 6 more failure(s) in the last 30 s',
      'postgres 10.0.0.5:5432 still failing: 6 more failure(s) in the last 30 s',
      'postgres 10.0.0.5:5432 recovered after 61 s and 13 failure(s)',
    ])
    expect(lines[0]!.err).toBe(refused)
    expect(lines[3]!.err).toBeUndefined()
    expect(outage.down).toBe(false)
  })

  it('says nothing while all goes well, and logs a new outage in full', () => {
    const clock = manualClock()
    const { lines, log } = recorded()
    const outage = new OutageLog('redis', log, { clock })
    outage.succeeded()
    outage.failed(new Error('first'))
    outage.succeeded()
    clock.advance(1_000)
    outage.failed(new Error('second'))
    expect(lines.map((l) => l.msg)).toEqual(['redis failed', 'redis recovered after 0 s and 1 failure(s)', 'redis failed'])
  })
})
