import { DateTime } from 'luxon'
import { usableMoment } from '../dates'
import { refused } from './errors'
import { hogqlString } from './hogqlText'

const RELATIVE = /^-(\d{1,6})([hdwmyqM])$/
const ABSOLUTE = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/
const UNITS: Record<string, string> = { h: 'Hour', d: 'Day', w: 'Week', m: 'Month', y: 'Year', q: 'Quarter', M: 'Minute' }

/**
 * A date an EventsQuery takes (`-24h`, `-7d`, `-1m`, `2024-01-31`, an ISO time) as HogQL text of a
 * moment: relative dates count back from the query's `now`, days and longer from the start of
 * that day in the project's timezone; a date or time without an offset is in that timezone.
 */
export function dateToHogQL(text: string, now: Date, attr: string): string {
  const at = `toDateTime(${hogqlString(now.toISOString())})`
  const trimmed = text.trim()
  const relative = RELATIVE.exec(trimmed)
  if (relative) {
    const unit = UNITS[relative[2]!]!
    const amount = Number(relative[1])
    const back = `minus(${at}, toInterval${unit}(${amount}))`
    if (usableMoment(DateTime.fromJSDate(now, { zone: 'UTC' }).minus({ [`${unit.toLowerCase()}s`]: amount }), trimmed)) {
      return unit === 'Hour' || unit === 'Minute' ? back : `toStartOfDay(${back})`
    }
  } else if (ABSOLUTE.test(trimmed)) {
    // The shape is not enough: 2024-13-45 has it, and ClickHouse would read it as some other day.
    const parsed = DateTime.fromISO(trimmed.replace(' ', 'T'), { zone: 'UTC', setZone: true })
    if (usableMoment(parsed, trimmed)) return `toDateTime(${hogqlString(trimmed)})`
  }
  throw refused(
    `"${text.slice(0, 100)}" is not a date: use a date (2024-01-31), a time (2024-01-31T12:00:00Z) or a relative date (-24h, -7d).`,
    { attr },
  )
}
