import { describe, expect, it } from 'vitest'
import { runReadinessChecks } from './probes'

describe('readiness', () => {
  it('is ok when every check passes, degraded when only checks that are not critical fail, unavailable when a critical one does', async () => {
    const ok = { name: 'spool', critical: true, check: () => ({ ok: true, detail: { used_bytes: 10 } }) }
    const redisDown = {
      name: 'redis',
      critical: false,
      check: () =>
        Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6379\n    at stack line'), { code: 'ECONNREFUSED' })),
    }
    const full = { name: 'spool', critical: true, check: () => ({ ok: false, error: 'full' }) }
    expect(await runReadinessChecks([ok])).toEqual({ status: 'ok', checks: { spool: { status: 'ok', critical: true, used_bytes: 10 } } })
    expect(await runReadinessChecks([ok, redisDown])).toEqual({
      status: 'degraded',
      checks: {
        spool: { status: 'ok', critical: true, used_bytes: 10 },
        redis: { status: 'failing', critical: false, error: 'connect ECONNREFUSED 10.0.0.5:6379' },
      },
    })
    expect((await runReadinessChecks([full, redisDown])).status).toBe('unavailable')
  })

  it('counts a check that does not answer in time as failing', async () => {
    const hangs = { name: 'postgres', critical: true, check: () => new Promise<never>(() => {}) }
    expect(await runReadinessChecks([hangs], 50)).toEqual({
      status: 'unavailable',
      checks: { postgres: { status: 'failing', critical: true, error: 'no answer within 50 ms' } },
    })
  })
})
