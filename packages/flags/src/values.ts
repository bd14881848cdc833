/**
 * Characters of a property value that conditions read. A person's properties come from clients
 * (a request's `person_properties`, an `$identify`'s `$set`), and each condition on a value
 * reads all of it: a value of megabytes would cost every flag of every request seconds. What
 * lies past this many characters is not compared; real values (emails, plans, URLs) end well
 * before it.
 */
export const MAX_COMPARED_LENGTH = 1_000_000

const bounded = (t: string): string => (t.length > MAX_COMPARED_LENGTH ? t.slice(0, MAX_COMPARED_LENGTH) : t)

/** A property's value as conditions read it: a string cut to MAX_COMPARED_LENGTH, anything else as it is. */
export function comparedValue(value: unknown): unknown {
  return typeof value === 'string' ? bounded(value) : value
}

/** A property's value as text (as `text` reads it), cut to MAX_COMPARED_LENGTH. */
export function comparedText(value: unknown): string {
  return bounded(text(value))
}

/** Strings as they are; anything else as its JSON (5 → "5", true → "true"), as PostHog's flag service reads values. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}

/**
 * The float syntax PostHog's flag service parses (Rust's): an optional sign, digits with an
 * optional point and exponent, or `inf`, `infinity`, `nan` in any case. No hexadecimal, no
 * surrounding spaces, no empty text: JavaScript's Number() would read `0x10`, ` 5 ` and `` as numbers.
 */
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i

export function parseFloatText(value: string): number | undefined {
  if (!FLOAT.test(value)) return undefined
  const unsigned = value.replace(/^[+-]/, '').toLowerCase()
  const sign = value.startsWith('-') ? -1 : 1
  if (unsigned === 'inf' || unsigned === 'infinity') return sign * Infinity
  if (unsigned === 'nan') return Number.NaN
  return Number(value)
}

/** A JSON number as it is, anything else through its text (true → "true", which is no number). */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  return parseFloatText(text(value))
}
