import { describe, expect, it } from 'vitest'
import { rateLimitedLog } from './logger'

describe('a rate-limited log', () => {
  it('writes a failure once per interval with the count of those it left out, and other failures apart', () => {
    let now = 0
    const lines: string[] = []
    const log = rateLimitedLog(
      (msg) => lines.push(msg),
      30_000,
      () => now,
    )
    for (let i = 0; i < 100; i++) {
      log(`capture thread 0: project lookup failed: connect ECONNREFUSED 127.0.0.1:${5000 + i}`)
      now += 500
    }
    log('a different failure')
    // Another thread failing the same way is the same failure.
    now += 11_000
    log('capture thread 1: project lookup failed: connect ECONNREFUSED 127.0.0.1:5432')
    expect(lines).toEqual([
      'capture thread 0: project lookup failed: connect ECONNREFUSED 127.0.0.1:5000',
      'capture thread 0: project lookup failed: connect ECONNREFUSED 127.0.0.1:5060 (and 59 more like it in the last 30 s)',
      'a different failure',
      'capture thread 1: project lookup failed: connect ECONNREFUSED 127.0.0.1:5432 (and 39 more like it in the last 31 s)',
    ])
  })
})
