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
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
