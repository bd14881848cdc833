import { instantOfWallClock, wallClockAsUtc } from '@burrow/flags'

const RELATIVE = /^-?(\d{1,6})?([hdwmqyM])(Start|End)?$/

/**
 * A date as PostHog's relative date parsing reads one: `-2d`, `-6h`, `-1m`, `-1y`, `-30M`
 * (minutes), `mStart`; counted back from `now` on the wall clock of the project's `timezone`, a
 * count of days or longer from the start of that day there. Undefined for text that is not a
 * relative date.
 */
export function relativeDate(text: string, now: Date, timezone = 'UTC'): Date | undefined {
  const match = RELATIVE.exec(text.trim())
  if (!match) return undefined
  const n = match[1] === undefined ? 0 : Number(match[1])
  const unit = match[2]!
  // Calendar arithmetic on the zone's wall clock, read as if it were UTC, then back to an instant.
  const d = new Date(wallClockAsUtc(now.getTime(), timezone))
  const back = () => new Date(instantOfWallClock(d.getTime(), timezone))
  switch (unit) {
    case 'M':
      return new Date(now.getTime() - n * 60_000)
    case 'h':
      return new Date(now.getTime() - n * 3_600_000)
    case 'd':
      d.setUTCDate(d.getUTCDate() - n)
      break
    case 'w':
      d.setUTCDate(d.getUTCDate() - 7 * n)
      break
    case 'm':
      d.setUTCMonth(d.getUTCMonth() - n)
      break
    case 'q':
      d.setUTCMonth(d.getUTCMonth() - 3 * n)
      break
    case 'y':
      d.setUTCFullYear(d.getUTCFullYear() - n)
      break
  }
  d.setUTCHours(0, 0, 0, 0)
  if (match[3] === 'Start') {
    if (unit === 'm') d.setUTCDate(1)
    if (unit === 'y') d.setUTCMonth(0, 1)
  }
  return back()
}
