import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toClickHouseDateTime, toClickHouseDateTimeUs } from './datetime'

/** The formatting done the plain way, through a Date for every call. */
function viaDate(ms: number, extraMicros: number): string {
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(extraMicros).padStart(3, '0')}`
}

// From 1900 to 2100, the range events are stored in.
const millis = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) })

describe('ClickHouse DateTime64(6) text', () => {
  it('equals the formatting through a Date, for times in any order (the per-second cache is never stale)', () => {
    // Times a few seconds apart, so that seconds repeat and alternate as in a batch of events.
    const nearby = fc.array(fc.tuple(fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: 0, max: 999 })), {
      minLength: 1,
      maxLength: 30,
    })
    fc.assert(
      fc.property(millis, nearby, (base, times) => {
        for (const [offset, micros] of times) {
          const ms = base + offset
          expect(toClickHouseDateTime(ms)).toBe(viaDate(ms, 0))
          expect(toClickHouseDateTimeUs(ms * 1000 + micros)).toBe(viaDate(ms, micros))
        }
      }),
    )
  })

  it('formats times before 1970 and neighbouring seconds', () => {
    expect(toClickHouseDateTime(-1)).toBe('1969-12-31 23:59:59.999000')
    expect(toClickHouseDateTimeUs(1_700_000_000_999_999)).toBe('2023-11-14 22:13:20.999999')
    expect(toClickHouseDateTimeUs(1_700_000_001_000_000)).toBe('2023-11-14 22:13:21.000000')
    expect(toClickHouseDateTime(Date.UTC(1900, 0, 1))).toBe('1900-01-01 00:00:00.000000')
  })

  it('refuses a time that is not one', () => {
    expect(() => toClickHouseDateTime(Number.NaN)).toThrow(RangeError)
  })
})
