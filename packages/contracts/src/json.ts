/** A JSON object (not null, not an array): what most fields of a request must be. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * How deep arrays and objects may nest in a request's JSON: PostHog's capture parses with
 * serde_json, whose limit this is. Deeper values would overflow the stack of whatever walks
 * them later (validation, ClickHouse's parser), long after the request was answered.
 */
export const MAX_JSON_DEPTH = 128

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read in one pass without
 * parsing (brackets inside strings do not count).
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  // Each level takes two characters at least.
  if (text.length <= limit * 2) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = closingQuote(text, i + 1)
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Where the string whose text starts at `from` ends: its first quote after an even run of
 * backslashes (the end of the text when it has none). Strings hold most of an event's bytes, and
 * indexOf skips them at memory speed, where reading them a character at a time took a fifth of
 * capture's work on a 2 kB event.
 */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0
    // The opening quote ends the run at the latest.
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  return text.length
}
