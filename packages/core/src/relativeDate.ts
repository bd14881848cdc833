import { instantOfWallClock, wallClockAsUtc } from '@burrow/flags'

/** PostHog's units: hours, days, weeks, months, minutes (`M`), seconds, quarters, years; its other capitals count nothing. */
const RELATIVE = /^-?(\d{1,6})?([hdwmqysHDWMQY])(Start|End)?$/

const DAY_MS = 86_400_000

/** What a relative date takes away (years and months on the calendar, the rest as a duration) and what it sets. */
interface Delta {
  years?: number
  months?: number
  days?: number
  ms?: number
  /** Set before the subtraction, as dateutil's relativedelta sets its absolute fields. */
  month?: number
  day?: number
  time?: [hour: number | undefined, minute: number, second: number, ms: number]
}

/** PostHog's `get_delta_mapping_for`: what each unit and position take away and set. */
function deltaOf(kind: string, n: number, position: string | undefined): Delta {
  const startOrEnd = <T>(start: T, end: T): T | undefined => (position === 'Start' ? start : position === 'End' ? end : undefined)
  switch (kind) {
    case 'h':
      return { ms: n * 3_600_000, time: startOrEnd([undefined, 0, 0, 0], [undefined, 59, 59, 999]) }
    case 'd':
      return { days: n, time: startOrEnd([0, 0, 0, 0], [23, 59, 59, 999]) }
    case 'w':
      return { days: 7 * n }
    case 'm':
      return { months: n, day: startOrEnd(1, 31) }
    case 'M':
      return { ms: n * 60_000 }
    case 's':
      return { ms: n * 1_000 }
    case 'q':
      return { days: 13 * 7 * n }
    case 'y':
      return position === 'Start' ? { years: n, month: 1, day: 1 } : { years: n, day: startOrEnd(1, 31) }
    default:
      return {}
  }
}

/**
 * A date as PostHog's `relative_date_parse` reads one (without truncation, as its events API
 * does): `-2d` is now less two days, `-6h` now less six hours, `-30M` minutes, `-1m` a calendar
 * month (the day kept within the month), `-1q` thirteen weeks; `dStart`/`-1dEnd` the start or end
 * of that day, `mStart` the first of the month (at the time of day it is now), `yStart` the first
 * of January. All on the wall clock of the project's `timezone`, as PostHog's arithmetic on a
 * zone-aware datetime is (so a day across a change of summer time is 23 or 25 hours), to the
 * millisecond. Undefined for text that is not a relative date.
 */
export function relativeDate(text: string, now: Date, timezone = 'UTC'): Date | undefined {
  const match = RELATIVE.exec(text.trim())
  if (!match) return undefined
  const delta = deltaOf(match[2]!, match[1] === undefined ? 0 : Number(match[1]), match[3])
  const wall = new Date(wallClockAsUtc(now.getTime(), timezone))
  // As relativedelta: the year and month first, the day within that month, the time of day set, then the duration taken away.
  const monthIndex = (delta.month ?? wall.getUTCMonth() + 1) - 1 - (delta.months ?? 0)
  const year = wall.getUTCFullYear() - (delta.years ?? 0) + Math.floor(monthIndex / 12)
  const month = ((monthIndex % 12) + 12) % 12
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const [hour, minute, second, ms] = delta.time ?? [undefined, wall.getUTCMinutes(), wall.getUTCSeconds(), wall.getUTCMilliseconds()]
  const set = Date.UTC(year, month, Math.min(lastDay, delta.day ?? wall.getUTCDate()), hour ?? wall.getUTCHours(), minute, second, ms)
  return new Date(instantOfWallClock(set - (delta.days ?? 0) * DAY_MS - (delta.ms ?? 0), timezone))
}
