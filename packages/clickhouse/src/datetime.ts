/** `000` … `999`: the fraction digits of a DateTime64(6). */
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

/**
 * `YYYY-MM-DD hh:mm:ss.` of the last two seconds asked for. Every captured event formats one or
 * two times of about the same second (its own and the time it arrived), so formatting a Date
 * once per second instead of once per call takes the formatting out of capture's profile.
 */
const recentSeconds: Array<{ second: number; prefix: string }> = [
  { second: Number.NaN, prefix: '' },
  { second: Number.NaN, prefix: '' },
]

function secondPrefix(second: number): string {
  const [a, b] = recentSeconds as [{ second: number; prefix: string }, { second: number; prefix: string }]
  if (a.second === second) return a.prefix
  if (b.second === second) return b.prefix
  const iso = new Date(second * 1000).toISOString() // 2024-05-01T12:30:00.000Z; throws on an invalid time
  recentSeconds[1] = a
  recentSeconds[0] = { second, prefix: `${iso.slice(0, 10)} ${iso.slice(11, 19)}.` }
  return recentSeconds[0].prefix
}

/** ClickHouse DateTime64(6) text, e.g. `2024-05-01 12:30:00.123000`, from epoch milliseconds. */
export function toClickHouseDateTime(ms: number): string {
  const whole = Math.floor(ms)
  const second = Math.floor(whole / 1000)
  return `${secondPrefix(second)}${THREE_DIGITS[whole - second * 1000]}000`
}

/** The API's timestamp form (ISO 8601 with a numeric offset, as PostHog answers) from ClickHouse text. */
export function clickHouseDateTimeToIso(value: string): string {
  return `${value.replace(' ', 'T')}+00:00`
}

/** ClickHouse DateTime64(6) text from epoch microseconds, keeping all six fraction digits. */
export function toClickHouseDateTimeUs(us: number): string {
  const whole = Math.floor(us)
  const ms = Math.floor(whole / 1000)
  const second = Math.floor(ms / 1000)
  return `${secondPrefix(second)}${THREE_DIGITS[ms - second * 1000]}${THREE_DIGITS[whole - ms * 1000]}`
}
