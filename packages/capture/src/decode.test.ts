import { gzipSync } from 'node:zlib'
import LZString from 'lz-string'
import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { decodePayload, type EncodedRequest } from './decode'

const limits = { maxDecompressedBytes: 1024 * 1024 }
const json = '{"event":"e","distinct_id":"d","api_key":"phc_x"}'

function request(body: Buffer | string, extra: Partial<Omit<EncodedRequest, 'body'>> = {}): EncodedRequest {
  return { body: Buffer.from(body), contentType: '', contentEncoding: '', query: new URLSearchParams(), ...extra }
}

function errorOf(fn: () => unknown): ApiProblem {
  try {
    fn()
  } catch (err) {
    if (err instanceof ApiProblem) return err
    throw err
  }
  throw new Error('expected an ApiProblem')
}

describe('decodePayload', () => {
  it('reads a plain JSON body', () => {
    expect(decodePayload(request(json, { contentType: 'application/json' }), limits).text).toBe(json)
  })

  it('recognises gzip by its magic bytes when the client gives no hint, as posthog-js does', () => {
    expect(decodePayload(request(gzipSync(json), { contentType: 'text/plain' }), limits).text).toBe(json)
  })

  it('honours Content-Encoding: gzip and ?compression=gzip-js', () => {
    expect(decodePayload(request(gzipSync(json), { contentEncoding: 'gzip' }), limits).text).toBe(json)
    const query = new URLSearchParams('compression=gzip-js')
    expect(decodePayload(request(gzipSync(json), { query }), limits).text).toBe(json)
  })

  it('reads a form whose base64 data had its + turned into spaces', () => {
    const data = Buffer.from(`${json}>>>?`).toString('base64')
    expect(data).toContain('+')
    const body = `data=${encodeURIComponent(data).replaceAll('%2B', '+')}`
    const decoded = decodePayload(request(body, { contentType: 'application/x-www-form-urlencoded' }), limits)
    expect(decoded.text).toBe(`${json}>>>?`)
  })

  it('reads lz64 data named in the form', () => {
    const body = `data=${encodeURIComponent(LZString.compressToBase64(json))}&compression=lz64`
    expect(decodePayload(request(body, { contentType: 'application/x-www-form-urlencoded' }), limits).text).toBe(json)
  })

  it('reads a bare base64 body and base64 named by the query', () => {
    const b64 = Buffer.from(json).toString('base64')
    expect(decodePayload(request(b64), limits).text).toBe(json)
    expect(decodePayload(request(b64, { query: new URLSearchParams('compression=base64') }), limits).text).toBe(json)
  })

  it('reads JSON sent with a form content type, as curl -d does', () => {
    expect(decodePayload(request(json, { contentType: 'application/x-www-form-urlencoded' }), limits).text).toBe(json)
  })

  it('takes the legacy GET form from the data query parameter', () => {
    const query = new URLSearchParams({ data: Buffer.from(json).toString('base64') })
    expect(decodePayload(request('', { query }), limits).text).toBe(json)
  })

  it('answers 413 when gzip would expand past the bound', () => {
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20))
    expect(bomb.length).toBeLessThan(10_000)
    expect(errorOf(() => decodePayload(request(bomb), limits)).status).toBe(413)
  })

  it('answers 400 no_data for an empty body', () => {
    const err = errorOf(() => decodePayload(request(''), limits))
    expect(err.status).toBe(400)
    expect(err.body.code).toBe('no_data')
  })

  it('answers 400 for a body that claims gzip but is corrupt', () => {
    const corrupt = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), Buffer.from('not really gzip')])
    expect(errorOf(() => decodePayload(request(corrupt), limits)).body.code).toBe('invalid_payload')
  })
})
