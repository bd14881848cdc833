/**
 * A JSON value with `map` applied to every string and every object key, shaped as JSON.parse
 * shapes it: keys like `__proto__` stay ordinary own properties.
 */
export function mapJsonText(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((entry) => mapJsonText(entry, map))
  const copy = Object.create(null) as Record<string, unknown>
  for (const [key, entry] of Object.entries(value)) copy[map(key)] = mapJsonText(entry, map)
  return Object.setPrototypeOf(copy, Object.prototype)
}
