import { describe, expect, it } from 'vitest'
import { readinessReport } from './probes'

describe('readiness', () => {
  it('is ok when every check passes, degraded when only checks that are not critical fail, unavailable when a critical one does', () => {
    const ok = { name: 'spool', critical: true, check: () => ({ ok: true, detail: { used_bytes: 10 } }) }
    const redisDown = {
      name: 'redis',
      critical: false,
      check: () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6379\n    at stack line'), { code: 'ECONNREFUSED' })
      },
    }
    const full = { name: 'spool', critical: true, check: () => ({ ok: false, error: 'full' }) }
    expect(readinessReport([ok])).toEqual({ status: 'ok', checks: { spool: { status: 'ok', critical: true, used_bytes: 10 } } })
    expect(readinessReport([ok, redisDown])).toEqual({
      status: 'degraded',
      checks: {
        spool: { status: 'ok', critical: true, used_bytes: 10 },
        redis: { status: 'failing', critical: false, error: 'connect ECONNREFUSED 10.0.0.5:6379' },
      },
    })
    expect(readinessReport([full, redisDown]).status).toBe('unavailable')
  })
})
