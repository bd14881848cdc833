import { describe, expect, it } from 'vitest'
import { manualClock } from './clock'
import { quietErrorLog } from './redisCache'

describe('the Redis client error log', () => {
  it('logs the first error of an outage and stays quiet while errors keep coming', () => {
    const clock = manualClock()
    const lines: string[] = []
    const logError = quietErrorLog((line) => lines.push(line), clock)
    logError(new Error('connect ECONNREFUSED'))
    for (let i = 0; i < 10; i++) {
      clock.advance(5_000)
      logError(new Error('connect ECONNREFUSED'))
    }
    expect(lines).toEqual(['redis: Error: connect ECONNREFUSED'])
  })

  it('logs again after 10 s without errors', () => {
    const clock = manualClock()
    const lines: string[] = []
    const logError = quietErrorLog((line) => lines.push(line), clock)
    logError(new Error('first'))
    clock.advance(10_000)
    logError(new Error('within 10 s'))
    clock.advance(10_001)
    logError(new Error('after a quiet spell'))
    expect(lines).toEqual(['redis: Error: first', 'redis: Error: after a quiet spell'])
  })
})
