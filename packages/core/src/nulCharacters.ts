/**
 * PostgreSQL's text and jsonb cannot hold U+0000. Events may carry it anywhere (ClickHouse
 * stores it); what goes to PostgreSQL from events has it replaced by U+FFFD, as PostHog does
 * for person properties, and the private API refuses it as Django REST Framework does.
 */

const NUL = '\u0000'

export function replaceNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '\uFFFD') : text
}

/** The path (keys and indexes) of the first string or key holding U+0000 in a JSON value, if any. */
export function pathOfNul(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined
  if (value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathOfNul(value[i], [...path, String(i)])
      if (found) return found
    }
    return undefined
  }
  for (const [key, entry] of Object.entries(value)) {
    if (key.includes(NUL)) return [...path, key]
    const found = pathOfNul(entry, [...path, key])
    if (found) return found
  }
  return undefined
}

/** A JSON value with U+0000 replaced in every string and key; the value itself when it holds none. */
export function withoutNul<T>(value: T): T {
  return pathOfNul(value) === undefined ? value : (replaceAllNul(value) as T)
}

function replaceAllNul(value: unknown): unknown {
  if (typeof value === 'string') return replaceNul(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(replaceAllNul)
  // Keys like `__proto__` stay ordinary property names.
  const copy: Record<string, unknown> = Object.create(null)
  for (const [key, entry] of Object.entries(value)) copy[replaceNul(key)] = replaceAllNul(entry)
  return copy
}
