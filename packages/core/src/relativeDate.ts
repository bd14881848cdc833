const RELATIVE = /^-?(\d{1,6})?([hdwmqyM])(Start|End)?$/

/**
 * A date as PostHog's relative date parsing reads one: `-2d`, `-6h`, `-1m`, `-1y`, `-30M`
 * (minutes), `mStart`; counted back from `now` (UTC), a count of days or longer from the start of
 * that day. Undefined for text that is not a relative date.
 */
export function relativeDate(text: string, now: Date): Date | undefined {
  const match = RELATIVE.exec(text.trim())
  if (!match) return undefined
  const n = match[1] === undefined ? 0 : Number(match[1])
  const unit = match[2]!
  const d = new Date(now.getTime())
  switch (unit) {
    case 'M':
      d.setUTCMinutes(d.getUTCMinutes() - n)
      return d
    case 'h':
      d.setUTCHours(d.getUTCHours() - n)
      return d
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
  return d
}
