/**
 * HogQL source text for values and names written by the service (filters, dates), quoted so none
 * can end its quotes. A NUL stays as it is: HogQL reads `\0` as nothing.
 */

const STRING_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' }
// HogQL doubles a backtick inside a quoted name (a backslash before one is a syntax error).
const IDENTIFIER_ESCAPES: Record<string, string> = { '\\': '\\\\', '`': '``', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

export const hogqlString = (value: string): string => `'${value.replace(/[\\'\n\r\t]/g, (c) => STRING_ESCAPES[c]!)}'`

export const hogqlIdentifier = (name: string): string => `\`${name.replace(/[\\`\n\r\t]/g, (c) => IDENTIFIER_ESCAPES[c]!)}\``

/** A JSON scalar as HogQL text. */
export function hogqlValue(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return hogqlString(typeof value === 'string' ? value : JSON.stringify(value))
}
