import { wallClockAsUtc } from '@burrow/flags'

/** The zone's offset from UTC at an instant, in minutes. */
const offsetMinutes = (timeZone: string, ms: number): number => Math.round((wallClockAsUtc(ms, timeZone) - ms) / 60_000)

const WALL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?$/

/**
 * ClickHouse's text of a moment in a timezone ("2024-03-10 01:30:00.123456") as ISO 8601 with the
 * zone's offset. Text that is not such a moment is answered unchanged.
 */
export function wallClockToIso(text: string, timeZone: string): string {
  const m = WALL.exec(text)
  if (!m) return text
  const [, y, mo, d, h, mi, s, fraction = ''] = m
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  // The offset at the wall time read as UTC, corrected once: right on both sides of a DST change.
  let offset = offsetMinutes(timeZone, wall)
  offset = offsetMinutes(timeZone, wall - offset * 60_000)
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const hh = String(Math.floor(abs / 60)).padStart(2, '0')
  const mm = String(abs % 60).padStart(2, '0')
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${sign}${hh}:${mm}`
}

/** The timezone of a DateTime type ("DateTime64(6, 'Europe/Paris')", "Nullable(DateTime('UTC'))"); undefined for other types. */
export function dateTimeZone(type: string): string | undefined {
  const m = /^(?:Nullable\()?(?:LowCardinality\()?DateTime(?:64)?(?:\((?:\d+)?(?:,\s*)?(?:'([^']+)')?\))?\)?\)?$/.exec(type)
  if (!m) return undefined
  return m[1] ?? 'UTC'
}
