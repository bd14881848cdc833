import { describe, expect, it } from 'vitest'
import { evaluateFormula, parseFormula } from './formula'

const value = (text: string, values: number[]) => evaluateFormula(parseFormula(text, values.length), values)

describe('trends formulas', () => {
  it('reads series letters by series order, either case, with the usual precedence', () => {
    expect(value('A + B', [2, 3])).toBe(5)
    expect(value('a+2*b', [1, 3])).toBe(7)
    expect(value('(A + B) * C', [1, 2, 4])).toBe(12)
    expect(value('-A - -B', [1, 5])).toBe(4)
    expect(value('A / B * 100', [1, 4])).toBe(25)
    expect(value('A * 0.5 + .5', [3])).toBe(2)
  })

  it('answers 0 for a division by zero', () => {
    expect(value('A / B', [3, 0])).toBe(0)
    expect(value('A / (B - B) + 1', [3, 2])).toBe(1)
  })

  it('refuses a letter past the series, a name, a stray character, an unclosed parenthesis, and a formula too long or too deep', () => {
    for (const text of ['A + C', 'AB', 'A +', 'A; B', '(A + B', 'A)', 'A'.repeat(401), `${'('.repeat(40)}A${')'.repeat(40)}`]) {
      expect(() => parseFormula(text, 2), text).toThrow(/formula/)
    }
  })
})
