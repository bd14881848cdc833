import { createRateLimitStore } from '@burrow/cache'
import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { createApiThrottle } from './throttle'

const rates = { api: { burstPerMinute: 3, sustainedPerHour: 5 }, query: { burstPerMinute: 1, sustainedPerHour: 100 } }

async function refusal(call: Promise<void>): Promise<ApiProblem> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ApiProblem)
  return err as ApiProblem
}

describe('the private API throttle', () => {
  it('refuses the call past the burst with DRF throttled body and a Retry-After within the minute', async () => {
    const throttled: string[] = []
    const throttle = createApiThrottle(createRateLimitStore(undefined), rates, (name) => throttled.push(name))
    for (let i = 0; i < 3; i++) await throttle('key-a', 'api')
    const problem = await refusal(throttle('key-a', 'api'))
    expect(problem.status).toBe(429)
    expect(problem.body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null })
    const seconds = Number(problem.headers['retry-after'])
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(problem.body.detail).toBe(`Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`)
    expect(throttled).toEqual(['api'])
  })

  it('counts each key apart, and the query class against its own lower limits', async () => {
    const throttle = createApiThrottle(createRateLimitStore(undefined), rates)
    for (let i = 0; i < 3; i++) await throttle('key-a', 'api')
    await throttle('key-b', 'api')
    await throttle('key-a', 'query')
    expect((await refusal(throttle('key-a', 'query'))).status).toBe(429)
  })

  it('holds the sustained limit once bursts add up past it, with the hour as the wait', async () => {
    const throttle = createApiThrottle(createRateLimitStore(undefined), { ...rates, api: { burstPerMinute: 100, sustainedPerHour: 5 } })
    for (let i = 0; i < 5; i++) await throttle('key-a', 'api')
    const problem = await refusal(throttle('key-a', 'api'))
    expect(Number(problem.headers['retry-after'])).toBeGreaterThan(60)
  })

  it('limits nothing where a limit is 0', async () => {
    const throttle = createApiThrottle(createRateLimitStore(undefined), { ...rates, api: { burstPerMinute: 0, sustainedPerHour: 0 } })
    for (let i = 0; i < 50; i++) await throttle('key-a', 'api')
  })
})
