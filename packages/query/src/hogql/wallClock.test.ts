import { describe, expect, it } from 'vitest'
import { dateTimeZone, wallClockToIso } from './wallClock'

describe('ClickHouse times as ISO 8601 with their offset', () => {
  it('gives each side of a daylight saving change its own offset', () => {
    expect(wallClockToIso('2026-03-08 01:30:00', 'America/New_York')).toBe('2026-03-08T01:30:00-05:00')
    expect(wallClockToIso('2026-03-08 03:30:00.123456', 'America/New_York')).toBe('2026-03-08T03:30:00.123456-04:00')
    expect(wallClockToIso('2026-10-25 12:00:00', 'Europe/Paris')).toBe('2026-10-25T12:00:00+01:00')
    expect(wallClockToIso('2026-06-01 00:00:00', 'Asia/Kolkata')).toBe('2026-06-01T00:00:00+05:30')
    expect(wallClockToIso('2026-06-01 00:00:00', 'UTC')).toBe('2026-06-01T00:00:00+00:00')
  })

  it('leaves other text alone', () => {
    expect(wallClockToIso('not a time', 'UTC')).toBe('not a time')
  })

  it('reads the timezone of a DateTime type', () => {
    expect(dateTimeZone("DateTime64(6, 'Europe/Paris')")).toBe('Europe/Paris')
    expect(dateTimeZone("Nullable(DateTime('Asia/Tokyo'))")).toBe('Asia/Tokyo')
    expect(dateTimeZone('DateTime')).toBe('UTC')
    expect(dateTimeZone('String')).toBeUndefined()
    expect(dateTimeZone('Date')).toBeUndefined()
  })
})
