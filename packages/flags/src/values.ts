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
