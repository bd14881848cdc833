import { describe, expect, it } from 'vitest'
import { errorPlace } from './parser'

describe("a syntax error's place in its message", () => {
  it('names the line and column the parser gives, both from 1', () => {
    expect(errorPlace('select 1', { line: 1, column: 7, offset: 7 })).toBe(' (line 1, column 8)')
  })

  it('works the line and column out of the offset when the parser gives no line', () => {
    const text = 'select event, count( from events group by event'
    expect(errorPlace(text, { line: 0, column: 0, offset: 26 })).toBe(' (line 1, column 27)')
    expect(errorPlace('select event\nfrom events\nwhere', { line: 0, column: 0, offset: 30 })).toBe(' (line 3, column 6)')
    expect(errorPlace('select 1\n', { line: 0, column: 0, offset: 9 })).toBe(' (line 2, column 1)')
  })

  it('names no place when the parser gives none, or one outside the text', () => {
    expect(errorPlace('select', {})).toBe('')
    expect(errorPlace('select', { line: 0, column: 0, offset: 99 })).toBe('')
  })
})
