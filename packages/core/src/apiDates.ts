import { relativeDate } from './relativeDate'

/**
 * ISO 8601 as clients send it: a day, optionally a time (with `T` or a space), optionally a zone.
 * JavaScript's Date.parse takes far more (`x 1`, `-1`, `99999`), which ClickHouse then refuses.
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(?:[zZ]|[+-]\d{2}:?\d{2})?$/

/** The years ClickHouse's DateTime64 holds. */
const FIRST_YEAR = 1900
const LAST_YEAR = 2299

function inRange(date: Date): boolean {
  const year = date.getUTCFullYear()
  return !Number.isNaN(date.getTime()) && year >= FIRST_YEAR && year <= LAST_YEAR
}

/**
 * An absolute date of a request as the text ClickHouse reads (ISO 8601 in UTC when it named a
 * zone, as given otherwise, where the stored zone applies), or undefined when it is not one of
 * ClickHouse's dates.
 */
export function absoluteDate(text: string): string | undefined {
  const trimmed = text.trim()
  const match = ISO_DATE_TIME.exec(trimmed)
  if (!match) return undefined
  const [, , month, day, hour, minute, second] = match
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > 31) return undefined
  if (Number(hour ?? 0) > 23 || Number(minute ?? 0) > 59 || Number(second ?? 0) > 59) return undefined
  const parsed = new Date(trimmed.includes('T') || trimmed.length === 10 ? trimmed : trimmed.replace(' ', 'T'))
  return inRange(parsed) ? trimmed : undefined
}

/**
 * An absolute date, or a relative one (`-2d`, as PostHog takes them) as of `now` on the wall
 * clock of the project's `timezone`, within ClickHouse's years.
 */
export function requestDate(text: string, now: Date, timezone = 'UTC'): string | undefined {
  const relative = relativeDate(text, now, timezone)
  if (relative) return inRange(relative) ? relative.toISOString() : undefined
  return absoluteDate(text)
}
