/**
 * PostgreSQL's text and jsonb cannot hold U+0000. Events may carry it anywhere (ClickHouse
 * stores it); what goes to PostgreSQL from events has it replaced by U+FFFD, as PostHog does
 * for person properties, and the private API refuses it as Django REST Framework does.
 */

import { mapJsonText } from './jsonText'

const NUL = '\u0000'

export function replaceNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '\uFFFD') : text
}

/**
 * The path (keys and indexes) of the first string or key holding U+0000 in a JSON value, if any.
 * The path is built only on the way out of a find, so a value without NUL costs no allocation.
 */
export function pathOfNul(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? [] : undefined
  if (value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const rest = pathOfNul(value[i])
      if (rest) return [String(i), ...rest]
    }
    return undefined
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (key.includes(NUL)) return [key]
    const rest = pathOfNul((value as Record<string, unknown>)[key])
    if (rest) return [key, ...rest]
  }
  return undefined
}

/** A JSON value with U+0000 replaced in every string and key; the value itself when it holds none. */
export function withoutNul<T>(value: T): T {
  return pathOfNul(value) === undefined ? value : (mapJsonText(value, replaceNul) as T)
}
