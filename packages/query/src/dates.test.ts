import { describe, expect, it } from 'vitest'
import { DateTime } from 'luxon'
import { ApiProblem } from '@burrow/contracts'
import { dayKey, dayLabel, parseDate, resolveRange } from './dates'

const options = (now: string, zone = 'America/New_York') => ({
  zone,
  now: new Date(now),
  weekStartDay: 0 as const,
  earliest: () => Promise.resolve(new Date('2025-01-05T12:00:00Z')),
})

describe('resolveRange', () => {
  it('counts -7d back from the start of the local day and ends at the end of today, as PostHog does', async () => {
    // 02:30 UTC on the 10th is still the 9th in New York.
    const range = await resolveRange({ date_from: '-7d' }, 'day', options('2025-03-10T02:30:00Z'))
    expect(range.from.toISO()).toBe('2025-03-02T00:00:00.000-05:00')
    expect(range.to.toISO()).toBe('2025-03-09T23:59:59.999-04:00')
    expect(range.buckets.map((b) => dayKey(b, 'day'))).toHaveLength(8)
  })

  it('reads a date without time as that day in the zone and date_to as the end of it', async () => {
    const range = await resolveRange({ date_from: '2025-11-01', date_to: '2025-11-03' }, 'day', options('2025-12-01T00:00:00Z'))
    expect(range.from.toISO()).toBe('2025-11-01T00:00:00.000-04:00')
    expect(range.to.toISO()).toBe('2025-11-03T23:59:59.999-05:00')
    expect(range.buckets.map((b) => dayKey(b, 'day'))).toEqual(['2025-11-01', '2025-11-02', '2025-11-03'])
  })

  it('keeps a start in hours as it is for hourly intervals and ends at the end of the current hour', async () => {
    const range = await resolveRange({ date_from: '-3h' }, 'hour', options('2025-06-01T10:20:00Z', 'UTC'))
    expect(range.from.toISO()).toBe('2025-06-01T07:20:00.000Z')
    expect(range.to.toISO()).toBe('2025-06-01T10:59:59.999Z')
    expect(range.buckets.map((b) => dayKey(b, 'hour'))).toEqual([
      '2025-06-01 07:00:00',
      '2025-06-01 08:00:00',
      '2025-06-01 09:00:00',
      '2025-06-01 10:00:00',
    ])
  })

  it('widens weeks to start on Sunday and months to their first day', async () => {
    const weeks = await resolveRange({ date_from: '2025-06-04', date_to: '2025-06-20' }, 'week', options('2025-07-01T00:00:00Z', 'UTC'))
    expect(weeks.buckets.map((b) => dayKey(b, 'week'))).toEqual(['2025-06-01', '2025-06-08', '2025-06-15'])
    const months = await resolveRange({ date_from: '-1mStart' }, 'month', options('2025-07-15T00:00:00Z', 'UTC'))
    expect(months.buckets.map((b) => dayKey(b, 'month'))).toEqual(['2025-06-01', '2025-07-01'])
  })

  it('starts `all` at the earliest event', async () => {
    const range = await resolveRange({ date_from: 'all' }, 'day', options('2025-01-07T12:00:00Z', 'UTC'))
    expect(range.buckets.map((b) => dayKey(b, 'day'))).toEqual(['2025-01-05', '2025-01-06', '2025-01-07'])
  })

  it('refuses text that is not a date, naming the field', async () => {
    await expect(resolveRange({ date_from: 'soon' }, 'day', options('2025-01-07T12:00:00Z'))).rejects.toMatchObject({
      body: { attr: 'date_from', type: 'validation_error' },
    })
  })
})

describe('dayLabel', () => {
  const at = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' })
  const range = (from: string, to: string) => ({ from: at(from), to: at(to) })

  it('labels hours without the year and days and months as PostHog does', () => {
    expect(dayLabel(at('2020-01-09T13:00:00'), 'hour')).toBe('9-Jan 13:00')
    expect(dayLabel(at('2020-01-09T00:00:00'), 'day')).toBe('9-Jan-2020')
    expect(dayLabel(at('2020-01-01T00:00:00'), 'month')).toBe('Jan 2020')
  })

  it('labels a week by its days within the range: one month, two months, two years, one day', () => {
    const jan = range('2020-01-01T00:00:00', '2020-02-29T23:59:59')
    expect(dayLabel(at('2020-01-12T00:00:00'), 'week', jan)).toBe('12–18 Jan')
    expect(dayLabel(at('2020-01-26T00:00:00'), 'week', jan)).toBe('26-Jan – 1-Feb')
    // The range starts on the Wednesday: the first week's label starts there.
    expect(dayLabel(at('2019-12-29T00:00:00'), 'week', jan)).toBe('1–4 Jan')
    expect(dayLabel(at('2019-12-29T00:00:00'), 'week', range('2019-12-01T00:00:00', '2020-01-31T00:00:00'))).toBe(
      '29-Dec-2019 – 4-Jan-2020',
    )
    expect(dayLabel(at('2020-02-23T00:00:00'), 'week', range('2020-01-01T00:00:00', '2020-02-23T10:00:00'))).toBe('23-Feb-2020')
    // Weeks starting on Monday.
    expect(dayLabel(at('2020-01-13T00:00:00'), 'week', jan, 1)).toBe('13–19 Jan')
  })
})

describe('dates a query cannot use', () => {
  const now = DateTime.fromISO('2025-06-01T00:00:00Z')

  it.each([
    ['2024-13-45'],
    ['2024-02-30'],
    ['1899-12-31'],
    ['2300-01-01'],
    ['2024-01-01T00:00:00+99:00'],
    ['2024-01-01 10:00:00+24:00'],
    ['-99999y'],
  ])('reads %s as no date', (text) => {
    expect(parseDate(text, 'UTC', now)).toBeUndefined()
  })

  it('reads a real offset and the first and last years ClickHouse holds', () => {
    expect(parseDate('2024-01-01T00:00:00+05:30', 'UTC', now)?.at.toUTC().toISO()).toBe('2023-12-31T18:30:00.000Z')
    expect(parseDate('1900-01-01', 'UTC', now)?.at.year).toBe(1900)
    expect(parseDate('2299-12-31', 'UTC', now)?.at.year).toBe(2299)
  })

  it('refuses such a date_from with a 400 naming it, not a ClickHouse error', async () => {
    const error: unknown = await resolveRange({ date_from: '2024-01-01T00:00:00+99:00' }, 'day', options('2025-06-01T00:00:00Z')).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ApiProblem)
    expect((error as ApiProblem).body).toMatchObject({ type: 'validation_error', attr: 'date_from' })
  })
})
