const KEY = 'distinct_id"'
/** Integers from 16 digits on may be past 2^53, where JSON.parse rounds them. */
const MIN_DIGITS = 16

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39
const isSpace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/**
 * The JSON text with long integer distinct ids (`"distinct_id": 12345678901234567890`, also
 * `$distinct_id`) written as strings, so that the id keeps the exact digits the client sent, as
 * PostHog's capture keeps them; JSON.parse would round such a number. Text without one is
 * returned as it is, after a scan for the key.
 */
export function keepLongNumericDistinctIds(text: string): string {
  let from = 0
  let out: string[] | undefined
  let copied = 0
  for (let at = text.indexOf(KEY, from); at >= 0; at = text.indexOf(KEY, from)) {
    from = at + KEY.length
    let i = from
    while (i < text.length && isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) !== 0x3a /* : */) continue
    i++
    while (i < text.length && isSpace(text.charCodeAt(i))) i++
    const start = i
    if (text.charCodeAt(i) === 0x2d /* - */) i++
    const digitsStart = i
    while (i < text.length && isDigit(text.charCodeAt(i))) i++
    if (i - digitsStart < MIN_DIGITS) continue
    let next = i
    while (next < text.length && isSpace(text.charCodeAt(next))) next++
    const after = text.charCodeAt(next)
    if (after !== 0x2c /* , */ && after !== 0x7d /* } */) continue
    if (Number.isSafeInteger(Number(text.slice(start, i)))) continue
    out ??= []
    out.push(text.slice(copied, start), '"', text.slice(start, i), '"')
    copied = i
    from = i
  }
  if (!out) return text
  out.push(text.slice(copied))
  return out.join('')
}
