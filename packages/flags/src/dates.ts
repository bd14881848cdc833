import { parseFloatText } from './values'

/**
 * Dates of the `is_date_*` operators as PostHog's flag service reads them: both sides in the
 * project's timezone unless they carry an offset, numbers as epoch seconds, relative dates
 * ("-7d") counted back on the project's wall clock.
 */

const RELATIVE = /^-?(\d+)([hdwmy])$/
/** PostHog refuses relative dates of this many units or more. */
const MAX_RELATIVE_UNITS = 10_000
const WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})$/
const NAIVE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/

interface WallClock {
  year: number
  month: number // 1-12
  day: number
  hour: number
  minute: number
  second: number
  ms: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/**
 * A formatter of an instant's wall-clock parts in a timezone, cached by zone name; throws a
 * RangeError for an unknown zone. Zone names are case-insensitive, so clients can name one
 * zone many ways: the cache stays bounded.
 */
export function wallClockFormat(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    if (formatters.size >= 1_000) formatters.clear()
    formatters.set(timezone, f)
  }
  return f
}

const isUtc = (timezone: string) => timezone === 'UTC' || timezone === 'Etc/UTC'

/** A date's reading in UTC, as a wall clock. */
const utcReading = (d: Date): WallClock => ({
  year: d.getUTCFullYear(),
  month: d.getUTCMonth() + 1,
  day: d.getUTCDate(),
  hour: d.getUTCHours(),
  minute: d.getUTCMinutes(),
  second: d.getUTCSeconds(),
  ms: d.getUTCMilliseconds(),
})

/** The wall clock in `timezone` at an instant. */
function wallClockAt(instant: number, timezone: string): WallClock {
  if (isUtc(timezone)) return utcReading(new Date(instant))
  const parts = Object.fromEntries(
    wallClockFormat(timezone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  )
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    ms: ((instant % 1000) + 1000) % 1000,
  }
}

const asUtc = (w: WallClock) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms)

/** The wall clock of `timezone` at an instant, as the instant with that UTC reading (for calendar arithmetic in the zone). */
export function wallClockAsUtc(instant: number, timezone: string): number {
  return asUtc(wallClockAt(instant, timezone))
}

/**
 * The instant at which `timezone`'s wall clock reads what `wallClock` reads in UTC: the inverse of
 * wallClockAsUtc. On a DST overlap the earlier instant; in a gap, the first instant after it.
 */
export function instantOfWallClock(wallClock: number, timezone: string): number {
  for (let skipped = 0; skipped <= 2 * 3_600_000; skipped += 15 * 60_000) {
    const instant = instantOf(utcReading(new Date(wallClock + skipped)), timezone)
    if (instant !== undefined) return instant
  }
  return wallClock
}

/** The instant a wall clock in `timezone` shows; on a DST overlap the earlier one, in a gap undefined. */
function instantOf(w: WallClock, timezone: string): number | undefined {
  const naive = asUtc(w)
  if (isUtc(timezone)) return naive
  // An offset is within a day of UTC: the offsets in force a day either side of the naive
  // instant are the candidates; they differ only near a change of offset.
  const offsetAt = (probe: number) => asUtc(wallClockAt(probe, timezone)) - probe
  const before = offsetAt(naive - 86_400_000)
  const after = offsetAt(naive + 86_400_000)
  const candidates = before === after ? [naive - before] : [naive - before, naive - after].sort((a, b) => a - b)
  return candidates.find((c) => asUtc(wallClockAt(c, timezone)) === naive)
}

const lastDayOfMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** A relative date counted back from `now` on the wall clock of `timezone`; undefined when it is not one or too far. */
export function relativeDate(value: string, timezone: string, now = Date.now()): number | undefined {
  const match = RELATIVE.exec(value)
  if (!match) return undefined
  const n = Number(match[1])
  if (n >= MAX_RELATIVE_UNITS) return undefined
  const w = wallClockAt(now, timezone)
  const unit = match[2]
  if (unit === 'h' || unit === 'd' || unit === 'w') {
    const hours = unit === 'h' ? n : unit === 'd' ? 24 * n : 168 * n
    return instantOf(utcReading(new Date(asUtc(w) - hours * 3_600_000)), timezone)
  }
  // Months and years keep the day of the month where it exists, else the month's last day.
  const months = unit === 'm' ? n : 12 * n
  const index = w.year * 12 + (w.month - 1) - months
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return instantOf({ ...w, year, month, day: Math.min(w.day, lastDayOfMonth(year, month)) }, timezone)
}

function validWallClock(w: WallClock): boolean {
  return (
    w.month >= 1 && w.month <= 12 && w.day >= 1 && w.day <= lastDayOfMonth(w.year, w.month) && w.hour < 24 && w.minute < 60 && w.second < 60
  )
}

/** Absolute date texts already read, by timezone and text: filter values recur on every request. */
const absolute = new Map<string, number | undefined>()
const MAX_ABSOLUTE = 10_000
/** Relative date texts by timezone and text, with the second they were counted from. */
const relative = new Map<string, { second: number; instant: number | undefined }>()

/** A date text: relative, with an offset, or a wall clock in `timezone` (a bare date is its midnight). */
export function parseDateText(value: string, timezone: string, now = Date.now()): number | undefined {
  const key = `${timezone}\u0000${value}`
  if (RELATIVE.test(value)) {
    // Counted once a second: every condition of every request within it shares the answer.
    const second = Math.floor(now / 1000)
    const cached = relative.get(key)
    if (cached?.second === second) return cached.instant
    const instant = relativeDate(value, timezone, second * 1000)
    if (relative.size >= MAX_ABSOLUTE) relative.clear()
    relative.set(key, { second, instant })
    return instant
  }
  if (absolute.has(key)) return absolute.get(key)
  const instant = absoluteDate(value, timezone)
  if (absolute.size >= MAX_ABSOLUTE) absolute.clear()
  absolute.set(key, instant)
  return instant
}

function absoluteDate(value: string, timezone: string): number | undefined {
  const withOffset = WITH_OFFSET.exec(value)
  if (withOffset) {
    const time = Date.parse(`${withOffset[1]}T${withOffset[2]}${withOffset[3]!.toUpperCase()}`)
    return Number.isNaN(time) ? undefined : time
  }
  const naive = NAIVE.exec(value)
  if (naive) {
    const w: WallClock = {
      year: Number(naive[1]),
      month: Number(naive[2]),
      day: Number(naive[3]),
      hour: Number(naive[4] ?? 0),
      minute: Number(naive[5] ?? 0),
      second: Number(naive[6] ?? 0),
      ms: naive[7] ? Math.floor(Number(`0.${naive[7]}`) * 1000) : 0,
    }
    return validWallClock(w) ? instantOf(w, timezone) : undefined
  }
  // Other spellings that name their zone ("Tue, 1 Jul 2003 10:52:37 +0200"); JavaScript would read
  // those without one in this machine's zone, so they are refused.
  if (/(?:[+-]\d{2}:?\d{2}|\b(?:Z|UTC|GMT))$/.test(value)) {
    const time = Date.parse(value)
    return Number.isNaN(time) ? undefined : time
  }
  return undefined
}

/** A property's value as an instant: numbers (and numeric texts) are epoch seconds, texts dates. */
export function propertyDate(value: unknown, timezone: string, now = Date.now()): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : undefined
  if (typeof value !== 'string') return undefined
  const seconds = parseFloatText(value)
  if (seconds !== undefined) return Number.isFinite(seconds) ? seconds * 1000 : undefined
  return parseDateText(value, timezone, now)
}

/** Whether a filter value of a date operator is a date PostHog reads (checked when a flag is saved). */
export function isDateFilterValue(value: unknown): boolean {
  return typeof value === 'string' && parseDateText(value, 'UTC') !== undefined
}
