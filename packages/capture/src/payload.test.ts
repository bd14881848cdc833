import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { captureRequestFrom, parseSentAt } from './payload'

const meta = { path: '/batch/', query: new URLSearchParams(), form: undefined, authorization: undefined }

describe('captureRequestFrom', () => {
  it('lets the batch-level api_key win over per-event tokens', () => {
    const req = captureRequestFrom({ api_key: 'phc_batch', batch: [{ event: 'a', token: 'phc_other' }] }, meta)
    expect(req.token).toBe('phc_batch')
    expect(req.events).toHaveLength(1)
  })

  it('finds the token in event fields and then in properties.token', () => {
    expect(captureRequestFrom({ event: 'a', $token: 'phc_1' }, meta).token).toBe('phc_1')
    expect(captureRequestFrom([{ event: 'a', properties: { token: 'phc_2' } }], meta).token).toBe('phc_2')
  })

  it('refuses an array whose events name different projects', () => {
    expect(() => captureRequestFrom([{ api_key: 'phc_a' }, { api_key: 'phc_b' }], meta)).toThrow(ApiProblem)
  })

  it("reads Segment's write key from the body and from Basic auth", () => {
    expect(captureRequestFrom({ writeKey: 'phc_w', batch: [] }, meta).token).toBe('phc_w')
    const authorization = `Basic ${Buffer.from('phc_basic:').toString('base64')}`
    expect(captureRequestFrom({ batch: [{ event: 'a' }] }, { ...meta, authorization }).token).toBe('phc_basic')
  })

  it('turns a nameless /engage body into $identify', () => {
    const req = captureRequestFrom({ $set: { a: 1 }, distinct_id: 'd', token: 'phc_e' }, { ...meta, path: '/engage/' })
    expect(req.events[0]?.event).toBe('$identify')
  })

  it('reads project_id and sent_at', () => {
    const req = captureRequestFrom({ api_key: 'phx_k', project_id: 7, sent_at: '2024-01-01T00:00:00Z', batch: [] }, meta)
    expect(req.projectId).toBe('7')
    expect(req.sentAtMs).toBe(Date.UTC(2024, 0, 1))
  })

  it('rejects a body that is not an object or array', () => {
    expect(() => captureRequestFrom('text', meta)).toThrow(ApiProblem)
  })
})

describe('sent_at, as PostHog’s capture reads it', () => {
  it('reads a batch’s ISO 8601 sent_at', () => {
    expect(parseSentAt('2024-01-01T00:00:00.000Z')).toBe(Date.UTC(2024, 0, 1))
    expect(parseSentAt('2024-01-01T02:00:00+02:00')).toBe(Date.UTC(2024, 0, 1))
    expect(parseSentAt('1700000000000')).toBeUndefined()
    expect(parseSentAt(1_700_000_000)).toBeUndefined()
    expect(parseSentAt('garbage')).toBeUndefined()
  })

  it('takes `_` as milliseconds', () => {
    const req = captureRequestFrom([{ event: 'a' }], { ...meta, query: new URLSearchParams('_=1700000000123') })
    expect(req.sentAtMs).toBe(1_700_000_000_123)
    expect(captureRequestFrom([{ event: 'a' }], { ...meta, query: new URLSearchParams('_=soon') }).sentAtMs).toBeUndefined()
  })

  it('reads no sent_at from a single event’s body or a batch’s sentAt', () => {
    expect(captureRequestFrom({ event: 'a', sent_at: '2024-01-01T00:00:00Z' }, meta).sentAtMs).toBeUndefined()
    expect(captureRequestFrom({ sentAt: '2024-01-01T00:00:00Z', batch: [] }, meta).sentAtMs).toBeUndefined()
  })
})
