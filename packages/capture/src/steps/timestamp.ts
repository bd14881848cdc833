import { ok, type Step } from '../pipeline'

const MAX_FUTURE_US = 23 * 3600 * 1_000_000
/** DateTime64's earliest year is 1900; earlier times are stored as the epoch, as PostHog does. */
const MIN_US = Date.UTC(1900, 0, 1) * 1000

const NAIVE_SPACE = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})/
const HAS_TIME = /T\d{2}:\d{2}/
const HAS_ZONE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/
/** A zone written after a space: `2024-01-02 03:04:05 +0000`. */
const SPACED_ZONE = /\s+([zZ]|[+-]\d{2}(?::?\d{2})?)$/
const SHORT_OFFSET = /([+-]\d{2})$/
const COMPACT_OFFSET = /([+-]\d{2})(\d{2})$/
const FRACTION = /(T\d{2}:\d{2}:\d{2})\.(\d+)/

/**
 * Microseconds since the epoch of a client timestamp: ISO 8601 (with or without zone; naive
 * times are UTC), `YYYY-MM-DD HH:MM:SS.ffffff` (optionally with a spaced zone), a date (midnight
 * UTC), or a number of seconds or milliseconds.
 */
export function parseTimestampUs(value: unknown): number | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined
    return Math.round(value > 1e11 ? value * 1000 : value * 1_000_000)
  }
  if (typeof value !== 'string') return undefined
  let text = value.trim()
  if (text === '' || text.length > 64) return undefined
  if (/^\d+(\.\d+)?$/.test(text)) return parseTimestampUs(Number(text))
  text = text.replace(NAIVE_SPACE, '$1T$2')
  // A zone only follows a time: in a date alone (`2024-01-02`, midnight UTC) the trailing `-02` is the day.
  if (HAS_TIME.test(text)) {
    text = text.replace(SPACED_ZONE, '$1')
    if (!HAS_ZONE.test(text)) text += 'Z'
    text = text.replace(SHORT_OFFSET, '$1:00').replace(COMPACT_OFFSET, '$1:$2')
  }
  let extraUs = 0
  const fraction = FRACTION.exec(text)
  if (fraction?.[2]) {
    const digits = fraction[2]
    extraUs = Number.parseInt(digits.slice(3, 6).padEnd(3, '0'), 10)
    text = text.replace(FRACTION, `$1.${digits.slice(0, 3)}`)
  }
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms * 1000 + extraUs
}

/**
 * The event time as PostHog computes it: the client's timestamp corrected by the clock skew
 * that `sent_at` reveals, or `now - offset`, or now; never more than 23 hours in the future.
 */
export const resolveTimestamp: Step = {
  name: 'resolve_timestamp',
  run(event, ctx) {
    const nowUs = ctx.nowMs * 1000
    const input = event.input
    const properties = input.properties as Record<string, unknown> | undefined
    const parsed = parseTimestampUs(input.timestamp)
    let us: number
    if (typeof input.offset === 'number' && Number.isFinite(input.offset)) {
      us = nowUs - Math.round(input.offset * 1000)
    } else if (parsed !== undefined && ctx.sentAtMs !== undefined && properties?.$ignore_sent_at !== true) {
      us = parsed - (ctx.sentAtMs * 1000 - nowUs)
    } else {
      us = parsed ?? nowUs
    }
    if (us > nowUs + MAX_FUTURE_US) us = nowUs
    if (us < MIN_US) us = 0
    event.timestampUs = us
    return ok
  },
}
