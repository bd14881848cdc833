import type { HttpRequest, HttpResponse } from '@burrow/api'
import { describe, expect, it } from 'vitest'
import { createDispatcher, type DispatchDeps } from './dispatch'
import type { IncomingRequest, OutgoingResponse } from './uwsServer'

/** A dispatcher whose private API records what it was handed: how the console's requests reach it. */
function dispatcher(options: Partial<DispatchDeps> = {}) {
  const seen: HttpRequest[] = []
  const counter = { inc: () => {}, observe: () => {} }
  const metrics = { labels: () => counter, inc: () => {} } as unknown as DispatchDeps['metrics']['requests']
  const dispatch = createDispatcher({
    lifecycle: () => 'ready',
    siteUrl: undefined,
    trustProxy: ['10.0.0.1'],
    metricsText: undefined,
    metrics: { requests: metrics, requestDuration: metrics, captureRefused: metrics } as unknown as DispatchDeps['metrics'],
    capture: undefined,
    decide: undefined,
    rest: async (req): Promise<HttpResponse> => {
      seen.push(req)
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }
    },
    trpc: undefined,
    corsAllowedOrigins: ['https://allowed.example'],
    ...options,
  })
  const call = async (req: Partial<IncomingRequest>): Promise<OutgoingResponse> =>
    dispatch({ method: 'GET', path: '/api/users/@me/', query: '', headers: {}, body: Buffer.alloc(0), remoteAddress: '192.0.2.7', ...req })
  return { call, seen }
}

describe('the console’s requests in dispatch', () => {
  it('counts a request as HTTPS (Secure cookies) only when a trusted proxy or SITE_URL says so', async () => {
    const { call, seen } = dispatcher()
    await call({ headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '192.0.2.7' })
    await call({ headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '10.0.0.1' })
    await call({ headers: {}, remoteAddress: '10.0.0.1' })
    expect(seen.map((r) => r.secure)).toEqual([false, true, false])
    const behindHttps = dispatcher({ siteUrl: 'https://analytics.example' })
    await behindHttps.call({})
    expect(behindHttps.seen[0]!.secure).toBe(true)
  })

  it('gives CORS with credentials on /api and /trpc to CORS_ALLOWED_ORIGINS only', async () => {
    const { call } = dispatcher()
    const allowed = await call({
      method: 'OPTIONS',
      headers: { origin: 'https://allowed.example', 'access-control-request-method': 'POST' },
    })
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'https://allowed.example',
      'access-control-allow-credentials': 'true',
    })
    const answer = await call({ headers: { origin: 'https://allowed.example' } })
    expect(answer.headers['access-control-allow-origin']).toBe('https://allowed.example')
    const foreign: Partial<IncomingRequest>[] = [
      { method: 'OPTIONS', headers: { origin: 'https://foreign.example', 'access-control-request-method': 'POST' } },
      { headers: { origin: 'https://foreign.example' } },
    ]
    for (const req of foreign) {
      const refused = await call(req)
      expect(refused.headers['access-control-allow-origin']).toBeUndefined()
      expect(refused.headers['access-control-allow-credentials']).toBeUndefined()
    }
  })
})
