import { describe, expect, it } from 'vitest'
import { jsonNestsDeeperThan } from './json'

/** The depth by definition: the deepest array or object of the parsed value (0 for a scalar). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  return 1 + Math.max(0, ...Object.values(value).map(depthOf))
}

/** A value nesting `depth` levels, with strings full of brackets, quotes and backslashes on the way down. */
function nested(depth: number, seed: number): unknown {
  const tricky = ['[{', '"}]', '\\', '\\"', 'é ✓ 😀', '\\\\"[', ''][seed % 7]!
  if (depth === 0) return seed % 2 ? tricky : seed
  const inner = nested(depth - 1, seed * 31 + 7)
  return seed % 3 === 0 ? [tricky, inner, `${tricky}]`] : { [`${tricky}{`]: inner, k: tricky }
}

describe('jsonNestsDeeperThan', () => {
  it('agrees with the parsed depth around the limit, whatever the strings hold', () => {
    for (let seed = 1; seed < 200; seed++) {
      for (const depth of [3, 4, 5, 6]) {
        const value = nested(depth, seed)
        // Padding keeps the text past the quick answer for short texts.
        const text = JSON.stringify({ pad: 'x'.repeat(40), value })
        const actual = depthOf(JSON.parse(text))
        expect(jsonNestsDeeperThan(text, 5), `${text} (depth ${actual})`).toBe(actual > 5)
      }
    }
  })

  it('reads an escaped quote and an escaped backslash before a quote each as the string does', () => {
    const limit = 2
    const deep = '[[[1]]]'
    // The string's brackets do not count, and the one after it does.
    expect(jsonNestsDeeperThan(`["\\"[[[[", ${deep}, "${'x'.repeat(10)}"]`, limit)).toBe(true)
    expect(jsonNestsDeeperThan(`["\\\\", [1], "${'x'.repeat(10)}"]`, limit)).toBe(false)
    expect(jsonNestsDeeperThan(`["\\\\\\"[[[[[", [1], "${'x'.repeat(10)}"]`, limit)).toBe(false)
  })

  it('ends at the end of a text whose last string is never closed', () => {
    expect(jsonNestsDeeperThan(`[[["${'['.repeat(50)}`, 2)).toBe(true)
    expect(jsonNestsDeeperThan(`[["${'['.repeat(50)}`, 2)).toBe(false)
  })
})
