import { describe, expect, it } from 'vitest'
import { deadLetter } from './deadLetter'
import { mayHoldLoneSurrogates, wellFormed } from './wellFormed'

describe('lone surrogates', () => {
  it('are looked for only in text that escapes a surrogate or holds an ill-formed one', () => {
    expect(mayHoldLoneSurrogates('{"event":"plain é 😀"}')).toBe(false)
    expect(mayHoldLoneSurrogates('{"event":"\\ud800"}')).toBe(true)
    expect(mayHoldLoneSurrogates('{"event":"\\uD83D\\uDE00"}')).toBe(true)
    expect(mayHoldLoneSurrogates('{"event":"\ud800"}')).toBe(true)
  })

  it('become U+FFFD in strings and keys at any depth; pairs, other values and __proto__ keys stay', () => {
    const parsed = JSON.parse('{"a\\ud800":["\\udc00x",{"__proto__":"\\ud83d\\ude00"}],"n":1,"t":true,"z":null}')
    const clean = wellFormed(parsed) as Record<string, unknown>
    expect(clean).toEqual({ 'a\uFFFD': ['\uFFFDx', { ['__proto__']: '😀' }], n: 1, t: true, z: null })
    expect(Object.hasOwn((clean['a\uFFFD'] as unknown[])[1] as object, '__proto__')).toBe(true)
    expect(JSON.stringify(clean).isWellFormed()).toBe(true)
  })

  it('never get a dead letter refused: its fields are well-formed, its raw payload keeps them as escapes', () => {
    const letter = deadLetter({ uuid: 'x', event: 'a\ud800', distinctId: '\udc00', teamId: 1, ip: '' }, '{"event":"a\\ud800"}', {
      location: 'test',
      reason: 'test',
      error: 'e',
    })
    expect(letter.event).toBe('a\uFFFD')
    expect(letter.distinct_id).toBe('\uFFFD')
    expect(letter.raw_payload).toBe('{"event":"a\\ud800"}')
  })
})
