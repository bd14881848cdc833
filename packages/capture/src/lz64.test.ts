import fc from 'fast-check'
import LZString from 'lz-string'
import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { decompressLz64 } from './lz64'

describe('decompressLz64', () => {
  it('decodes whatever lz-string encodes, any text included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json(), fc.string({ unit: 'grapheme-ascii', maxLength: 5000 })), (text) => {
        expect(decompressLz64(LZString.compressToBase64(text), 10_000_000)).toBe(text)
      }),
      { numRuns: 300 },
    )
  })

  it('decodes a long, repetitive event payload as posthog-js compresses it', () => {
    const payload = JSON.stringify(
      Array.from({ length: 500 }, (_, i) => ({ event: '$pageview', distinct_id: `u${i % 7}`, properties: { i } })),
    )
    expect(decompressLz64(LZString.compressToBase64(payload), 10_000_000)).toBe(payload)
  })

  it('stops a bomb (over 1000:1) at the bound with 413 instead of expanding it', () => {
    const bomb = LZString.compressToBase64('a'.repeat(2_000_000))
    expect(2_000_000 / bomb.length).toBeGreaterThan(500)
    const started = performance.now()
    let error: unknown
    try {
      decompressLz64(bomb, 100_000)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ApiProblem)
    expect((error as ApiProblem).status).toBe(413)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('answers null for what is not an lz64 stream', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (junk) => {
        const out = decompressLz64(junk, 1_000_000)
        expect(out === null || typeof out === 'string').toBe(true)
      }),
      { numRuns: 300 },
    )
    expect(decompressLz64('!!!', 1000)).toBeNull()
  })
})
