import { describe, expect, it } from 'vitest'
import { relativeDate } from './relativeDate'

const now = new Date('2026-03-15T13:45:30.250Z')
const at = (text: string) => relativeDate(text, now)?.toISOString()

describe('relative dates as PostHog reads them (relative_date_parse, not truncated)', () => {
  it('takes hours, minutes and seconds from now', () => {
    expect(at('-6h')).toBe('2026-03-15T07:45:30.250Z')
    expect(at('-30M')).toBe('2026-03-15T13:15:30.250Z')
    expect(at('-90s')).toBe('2026-03-15T13:44:00.250Z')
  })

  it('takes days, weeks, quarters (13 weeks), months and years from now, keeping the time of day', () => {
    expect(at('-2d')).toBe('2026-03-13T13:45:30.250Z')
    expect(at('2d')).toBe('2026-03-13T13:45:30.250Z')
    expect(at('-1w')).toBe('2026-03-08T13:45:30.250Z')
    expect(at('-1q')).toBe('2025-12-14T13:45:30.250Z')
    expect(at('-1m')).toBe('2026-02-15T13:45:30.250Z')
    expect(at('-1y')).toBe('2025-03-15T13:45:30.250Z')
  })

  it('keeps a month’s day within the month it lands in', () => {
    const endOfMarch = new Date('2026-03-31T10:00:00.000Z')
    expect(relativeDate('-1m', endOfMarch)?.toISOString()).toBe('2026-02-28T10:00:00.000Z')
    expect(relativeDate('-13m', endOfMarch)?.toISOString()).toBe('2025-02-28T10:00:00.000Z')
    expect(relativeDate('-1mEnd', new Date('2026-03-15T10:00:00.000Z'))?.toISOString()).toBe('2026-02-28T10:00:00.000Z')
  })

  it('reads Start and End as PostHog sets them', () => {
    expect(at('dStart')).toBe('2026-03-15T00:00:00.000Z')
    expect(at('-1dEnd')).toBe('2026-03-14T23:59:59.999Z')
    expect(at('hStart')).toBe('2026-03-15T13:00:00.000Z')
    expect(at('-2hEnd')).toBe('2026-03-15T11:59:59.999Z')
    // The month's and the year's set the day (and January), not the time of day.
    expect(at('mStart')).toBe('2026-03-01T13:45:30.250Z')
    expect(at('yStart')).toBe('2026-01-01T13:45:30.250Z')
    expect(at('-1yEnd')).toBe('2025-03-31T13:45:30.250Z')
  })

  it('counts on the wall clock of the project’s timezone', () => {
    // 13:45 UTC is 09:45 in New York (EDT since 8 March) and 22:45 in Tokyo.
    expect(relativeDate('dStart', now, 'Asia/Tokyo')?.toISOString()).toBe('2026-03-14T15:00:00.000Z')
    expect(relativeDate('-2dStart', now, 'America/New_York')?.toISOString()).toBe('2026-03-13T04:00:00.000Z')
    // Eight days back crosses the change to summer time (8 March): 09:45 EST then, 193 hours ago.
    expect(relativeDate('-8d', now, 'America/New_York')?.toISOString()).toBe('2026-03-07T14:45:30.250Z')
    expect(relativeDate('-6h', now, 'Asia/Tokyo')?.toISOString()).toBe('2026-03-15T07:45:30.250Z')
  })

  it('takes nothing for the capitals PostHog matches and does not map, and is undefined for other text', () => {
    expect(at('-3D')).toBe(now.toISOString())
    for (const text of ['2026-03-01', '-2x', 'd2', '', '-99999999d']) expect(relativeDate(text, now)).toBeUndefined()
  })
})
