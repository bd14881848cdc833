import { createRateLimitStore } from '@burrow/cache'
import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { KeyGuessCounter, keyGuessGuard } from './keyGuessGuard'

function setUp() {
  const outcomes: string[] = []
  const slept: number[] = []
  const counter = new KeyGuessCounter(createRateLimitStore(undefined).limit('guesses', { points: 6, durationS: 600 }), {
    slowAfter: 2,
    maxDelayMs: 150,
    onGuess: (kind, outcome) => outcomes.push(`${kind}:${outcome}`),
  })
  const guard = keyGuessGuard(
    (kind, address) => counter.judge(kind, address),
    async (ms) => void slept.push(ms),
  )
  return { guard, outcomes, slept }
}

describe('the guard against key guessing', () => {
  it('answers the first invalid keys at once, then later and later, then refuses for the rest of the window', async () => {
    const { guard, outcomes, slept } = setUp()
    for (let i = 0; i < 6; i++) await guard.failed('project', '10.0.0.1')
    expect(slept).toEqual([50, 100, 150, 150])
    const refused = await guard.failed('personal', '10.0.0.1').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ApiProblem)
    expect((refused as ApiProblem).status).toBe(429)
    expect(Number((refused as ApiProblem).headers['retry-after'])).toBeGreaterThan(500)
    expect(outcomes).toEqual([
      'project:counted',
      'project:counted',
      'project:slowed',
      'project:slowed',
      'project:slowed',
      'project:slowed',
      'personal:refused',
    ])
  })

  it('counts each address apart, and nothing without an address', async () => {
    const { guard, outcomes } = setUp()
    for (let i = 0; i < 7; i++) await guard.failed('project', '10.0.0.1').catch(() => {})
    await guard.failed('project', '10.0.0.2')
    await guard.failed('project', undefined)
    expect(outcomes.at(-1)).toBe('project:counted')
    expect(outcomes).toHaveLength(8)
  })
})
