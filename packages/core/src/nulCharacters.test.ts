import { describe, expect, it } from 'vitest'
import { pathOfNul, replaceNul, withoutNul } from './nulCharacters'

describe('U+0000 on its way to PostgreSQL', () => {
  it('finds the first string or key that holds it, by path', () => {
    expect(pathOfNul({ a: 'ok', b: [1, { c: 'x\u0000' }] })).toEqual(['b', '1', 'c'])
    expect(pathOfNul({ 'k\u0000': 1 })).toEqual(['k\u0000'])
    expect(pathOfNul('\u0000')).toEqual([])
    expect(pathOfNul({ a: ['fine', 2, null, true] })).toBeUndefined()
  })

  it('replaces it in every string and key, and leaves a value without it as it is', () => {
    const clean = { a: 'ok', b: [1, { c: 'x' }] }
    expect(withoutNul(clean)).toBe(clean)
    expect(withoutNul({ 'k\u0000': ['a\u0000b', { d: '\u0000' }], n: 1, __proto__x: null })).toEqual({
      'k\uFFFD': ['a\uFFFDb', { d: '\uFFFD' }],
      n: 1,
      __proto__x: null,
    })
    expect(replaceNul('no nul')).toBe('no nul')
    expect(replaceNul('\u0000\u0000')).toBe('\uFFFD\uFFFD')
  })
})
