import type { DateRange, Interval } from '@burrow/contracts'
import { problems } from '@burrow/contracts'
import { DateTime, type DurationLikeObject } from 'luxon'

/** PostHog's relative dates: `-7d`, `-24h`, `-1m`, `mStart`, `-1yEnd`. */
const RELATIVE = /^-?(\d{1,5})?([hdwmqy])(Start|End)?$/

const UNITS: Record<string, keyof DurationLikeObject> = { h: 'hours', d: 'days', w: 'weeks', m: 'months', q: 'quarters', y: 'years' }
const UNIT_SPANS: Record<string, 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'> = {
  h: 'hour',
  d: 'day',
  w: 'week',
  m: 'month',
  q: 'quarter',
  y: 'year',
}

/** The moments ClickHouse's DateTime64 holds: a date out of them is no date for a query. */
const FIRST_YEAR = 1900
const LAST_YEAR = 2299

/** An explicit UTC offset at the end of a time (`+02:00`, `-0530`), in minutes; undefined without one. */
function offsetMinutes(text: string): number | undefined {
  const match = /\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([+-])(\d{2}):?(\d{2})?$/.exec(text)
  if (!match) return undefined
  return Number(match[2]) * 60 + Number(match[3] ?? 0)
}

/**
 * Whether a parsed moment is one a query can use: within ClickHouse's years, and written with an
 * offset less than a day (as PostHog's date parsing requires; `+99:00` is no offset).
 */
export function usableMoment(at: DateTime, text: string): boolean {
  if (!at.isValid || at.year < FIRST_YEAR || at.year > LAST_YEAR) return false
  const offset = offsetMinutes(text.trim())
  return offset === undefined || offset < 24 * 60
}

export interface ParsedDate {
  at: DateTime
  /** Counted back from now rather than given as a date. */
  relative: boolean
  /** A relative date in hours (`-24h`), which is not widened to the day. */
  hours: boolean
}

/**
 * A date as PostHog reads `date_from`/`date_to`, in the project's zone: relative dates count back
 * from now, days and longer from the start of that day; a date without a time is the start of
 * that day; a time without an offset is read in the zone. Undefined for text that is not a date.
 */
export function parseDate(text: string, zone: string, now: DateTime, options: { truncateHours?: boolean } = {}): ParsedDate | undefined {
  const trimmed = text.trim()
  const match = RELATIVE.exec(trimmed)
  if (match) {
    const unit = match[2]!
    const n = match[1] === undefined ? 0 : Number(match[1])
    let at = now.setZone(zone).minus({ [UNITS[unit]!]: n })
    if (match[3] === 'Start') at = at.startOf(UNIT_SPANS[unit]!)
    else if (match[3] === 'End') at = at.endOf(UNIT_SPANS[unit]!)
    else if (unit === 'h') at = options.truncateHours ? at.startOf('hour') : at
    else at = at.startOf('day')
    return usableMoment(at, trimmed) ? { at, relative: true, hours: unit === 'h' } : undefined
  }
  const readers = [(t: string) => DateTime.fromISO(t, { zone }), (t: string) => DateTime.fromSQL(t, { zone })]
  for (const read of readers) {
    const at = read(trimmed)
    if (at.isValid) return usableMoment(at, trimmed) ? { at: at.setZone(zone), relative: false, hours: false } : undefined
  }
  return undefined
}

export interface ResolvedRange {
  interval: Interval
  /** The first moment counted: `date_from`, moved to the start of its interval unless it is a time in hours. */
  from: DateTime
  /** The last moment counted (inclusive). */
  to: DateTime
  /** The start of each interval from `from` to `to`, in the zone. */
  buckets: DateTime[]
}

/** The most buckets a range may have, so that a year of hours cannot fill the answer. */
export const MAX_BUCKETS = 5000

function startOfInterval(at: DateTime, interval: Interval, weekStartDay: 0 | 1): DateTime {
  if (interval === 'hour') return at.startOf('hour')
  if (interval === 'day') return at.startOf('day')
  if (interval === 'month') return at.startOf('month')
  // luxon's weekday: Monday 1 … Sunday 7.
  const back = weekStartDay === 1 ? at.weekday - 1 : at.weekday % 7
  return at.startOf('day').minus({ days: back })
}

function badDate(attr: string, text: string) {
  return problems.validation(
    attr,
    `${JSON.stringify(text)} is not a date PostHog understands (a date, a time, -7d, -24h, -1m, mStart, all).`,
  )
}

export interface RangeOptions {
  zone: string
  now: Date
  weekStartDay: 0 | 1
  /** The project's earliest event, for `date_from: all`. */
  earliest: () => Promise<Date | undefined>
  /** `date_from` when the query gives none; PostHog's default is seven days back. */
  defaultFrom?: string
  /**
   * A query that does not count by interval (paths) lists none: `buckets` is empty, and the range
   * is not bounded by MAX_BUCKETS.
   */
  withoutBuckets?: boolean
}

/** A query's dateRange as PostHog's QueryDateRange resolves it. */
export async function resolveRange(
  dateRange: DateRange | null | undefined,
  interval: Interval,
  options: RangeOptions,
): Promise<ResolvedRange> {
  const { zone, weekStartDay } = options
  const now: DateTime = DateTime.fromJSDate(options.now).setZone(zone)
  const explicit = dateRange?.explicitDate === true

  let to: DateTime = now
  let toRelative = true
  if (dateRange?.date_to) {
    const parsed = parseDate(dateRange.date_to, zone, now, { truncateHours: true })
    if (!parsed) throw badDate('date_to', dateRange.date_to)
    to = parsed.at
    toRelative = parsed.relative
  }
  if (!explicit) {
    if (interval !== 'hour') to = to.endOf('day')
    else if (toRelative) to = to.endOf('hour')
  }

  const fromText = dateRange?.date_from ?? options.defaultFrom ?? '-7d'
  let from: DateTime
  let widen = true
  if (fromText === 'all') {
    const earliest = await options.earliest()
    from = earliest ? DateTime.fromJSDate(earliest).setZone(zone) : now.startOf('day').minus({ days: 7 })
  } else {
    const parsed = parseDate(fromText, zone, now)
    if (!parsed) throw badDate('date_from', fromText)
    from = parsed.at
    // A relative start in hours is kept as it is for hourly and daily intervals (PostHog's use_start_of_interval).
    if (parsed.relative && (interval === 'hour' || (interval === 'day' && parsed.hours))) widen = false
  }
  if (explicit) widen = false
  if (to < from) throw problems.validation('date_to', 'The end of the date range is before its start.')

  const buckets: DateTime[] = []
  for (let at = startOfInterval(from, interval, weekStartDay); !options.withoutBuckets && at <= to; at = at.plus({ [`${interval}s`]: 1 })) {
    buckets.push(at)
    if (buckets.length > MAX_BUCKETS) {
      throw problems.validation(
        'interval',
        `The date range has more than ${MAX_BUCKETS} intervals: choose a longer interval or a shorter range.`,
      )
    }
  }
  return { interval, from: widen ? startOfInterval(from, interval, weekStartDay) : from, to, buckets }
}

/** A bucket's key as `days` show it and as bucketKeySql writes it. */
export function dayKey(at: DateTime, interval: Interval): string {
  return interval === 'hour' ? at.toFormat('yyyy-MM-dd HH:mm:ss') : at.toFormat('yyyy-MM-dd')
}

const EN = { locale: 'en-US' }

/**
 * A bucket as PostHog labels it on a chart axis: `9-Jan-2020`, `9-Jan 13:00`, `Jan 2020`, and a
 * week as the days of it within the range (`5–11 Jan`, `29-Dec – 4-Jan`, one day as `9-Jan-2020`).
 */
export function dayLabel(at: DateTime, interval: Interval, range?: { from: DateTime; to: DateTime }, weekStartDay: 0 | 1 = 0): string {
  if (interval === 'hour') return at.toFormat('d-MMM HH:mm', EN)
  if (interval === 'month') return at.toFormat('MMM yyyy', EN)
  if (interval === 'week' && range) return weekLabel(at, range, weekStartDay)
  return at.toFormat('d-MMM-yyyy', EN)
}

function weekLabel(at: DateTime, range: { from: DateTime; to: DateTime }, weekStartDay: 0 | 1): string {
  const weekStart = startOfInterval(at, 'week', weekStartDay)
  const fromDay = range.from.startOf('day')
  const toDay = range.to.startOf('day')
  const start = weekStart < fromDay ? fromDay : weekStart
  let end = weekStart.plus({ days: 6 })
  if (end > toDay) end = toDay
  if (end < start) end = start
  if (start.hasSame(end, 'day')) return start.toFormat('d-MMM-yyyy', EN)
  if (start.year !== end.year) return `${start.toFormat('d-MMM-yyyy', EN)} – ${end.toFormat('d-MMM-yyyy', EN)}`
  if (start.month !== end.month) return `${start.toFormat('d-MMM', EN)} – ${end.toFormat('d-MMM', EN)}`
  return `${start.toFormat('d', EN)}–${end.toFormat('d MMM', EN)}`
}

/**
 * The interval an event's `timestamp` falls in, in the zone, as the text dayKey writes.
 * `zone` and `weekMode` are placeholders of the statement's parameters.
 */
export function bucketKeySql(interval: Interval, timestamp: string, zone: string, weekStartDay: 0 | 1): string {
  return bucketKeyOfStartSql(interval, bucketStartSql(interval, timestamp, zone, weekStartDay), zone)
}

/**
 * The start of the interval an event's `timestamp` falls in, in the zone: a time or date, one
 * per interval, cheaper to group by than its text (bucketKeyOfStartSql writes that once per group).
 */
export function bucketStartSql(interval: Interval, timestamp: string, zone: string, weekStartDay: 0 | 1): string {
  const local = `toTimeZone(${timestamp}, ${zone})`
  switch (interval) {
    case 'hour':
      return `toStartOfHour(${local})`
    case 'day':
      return `toStartOfDay(${local})`
    case 'week':
      // toStartOfWeek's mode 0 starts weeks on Sunday, mode 1 on Monday.
      return `toStartOfWeek(${local}, ${weekStartDay})`
    case 'month':
      return `toStartOfMonth(${local})`
  }
}

/** A bucketStartSql value as the text dayKey writes. */
export function bucketKeyOfStartSql(interval: Interval, start: string, zone: string): string {
  switch (interval) {
    case 'hour':
      return `formatDateTime(${start}, '%Y-%m-%d %H:%i:%S', ${zone})`
    case 'day':
      return `formatDateTime(${start}, '%Y-%m-%d', ${zone})`
    case 'week':
    case 'month':
      return `toString(${start})`
  }
}

/** An instant as a DateTime64(6) parameter value in UTC. */
export function utcText(at: DateTime): string {
  return at.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS') + '000'
}

/** PostHog's resolved_date_range: both ends as ISO times in the project's zone. */
export function isoInZone(at: DateTime): string {
  return at.toISO({ includeOffset: true }) ?? at.toString()
}

/** A relative date's span (`-1y`, `-14d`) as a duration to move a period back by; undefined for other text. */
export function relativeShift(text: string): DurationLikeObject | undefined {
  const match = RELATIVE.exec(text.trim())
  if (!match || match[3] !== undefined) return undefined
  const n = match[1] === undefined ? 1 : Number(match[1])
  return { [UNITS[match[2]!]!]: n }
}

/** The period compared with: the same length just before, or the current one moved back by `compare_to`. */
export function previousPeriod(current: ResolvedRange, compareTo: string | undefined): ResolvedRange {
  const shift = compareTo ? relativeShift(compareTo) : undefined
  if (shift) {
    return {
      ...current,
      from: current.from.minus(shift),
      to: current.to.minus(shift),
      buckets: current.buckets.map((b) => b.minus(shift)),
    }
  }
  const length = current.to.toMillis() - current.from.toMillis()
  const from = current.from.minus({ milliseconds: length + 1 })
  const to = current.from.minus({ milliseconds: 1 })
  const step = { [`${current.interval}s`]: 1 }
  const buckets: DateTime[] = []
  for (
    let at = current.buckets[0]!.minus({ [`${current.interval}s`]: current.buckets.length });
    buckets.length < current.buckets.length;
    at = at.plus(step)
  ) {
    buckets.push(at)
  }
  return { ...current, from, to, buckets }
}
