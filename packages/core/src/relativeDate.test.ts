import { describe, expect, it } from 'vitest'
import { relativeDate } from './relativeDate'

const now = new Date('2026-03-15T13:45:30.000Z')
const at = (text: string) => relativeDate(text, now)?.toISOString()

describe('relative dates as PostHog reads them', () => {
  it('counts hours and minutes back from now, exactly', () => {
    expect(at('-6h')).toBe('2026-03-15T07:45:30.000Z')
    expect(at('-30M')).toBe('2026-03-15T13:15:30.000Z')
  })

  it('counts days, weeks, months and years back to the start of that day', () => {
    expect(at('-2d')).toBe('2026-03-13T00:00:00.000Z')
    expect(at('2d')).toBe('2026-03-13T00:00:00.000Z')
    expect(at('-1w')).toBe('2026-03-08T00:00:00.000Z')
    expect(at('-1m')).toBe('2026-02-15T00:00:00.000Z')
    expect(at('-1y')).toBe('2025-03-15T00:00:00.000Z')
  })

  it('reads the start of the current day, month and year', () => {
    expect(at('dStart')).toBe('2026-03-15T00:00:00.000Z')
    expect(at('mStart')).toBe('2026-03-01T00:00:00.000Z')
    expect(at('yStart')).toBe('2026-01-01T00:00:00.000Z')
  })

  it('counts whole days from the start of the day in the project’s timezone', () => {
    // 13:45 UTC is 09:45 in New York (EDT since 8 March) and 22:45 in Tokyo.
    expect(relativeDate('-2d', now, 'America/New_York')?.toISOString()).toBe('2026-03-13T04:00:00.000Z')
    expect(relativeDate('dStart', now, 'Asia/Tokyo')?.toISOString()).toBe('2026-03-14T15:00:00.000Z')
    // Across the change to summer time, the day starts at that day's own offset (EST, -5).
    expect(relativeDate('-1w', now, 'America/New_York')?.toISOString()).toBe('2026-03-08T05:00:00.000Z')
    expect(relativeDate('-6h', now, 'Asia/Tokyo')?.toISOString()).toBe('2026-03-15T07:45:30.000Z')
  })

  it('is not a relative date for absolute dates and other text', () => {
    for (const text of ['2026-03-01', '-2x', 'd2', '', '-99999999d']) expect(relativeDate(text, now)).toBeUndefined()
  })
})
