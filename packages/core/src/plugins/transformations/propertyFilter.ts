import type { PluginEvent, Transformation } from './event'

/** Removes the property at `path` inside `object` (the objects are the event's own, decoded from its row). */
function remove(object: Record<string, unknown>, path: string[]): void {
  let at: unknown = object
  for (const key of path.slice(0, -1)) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) return
    at = (at as Record<string, unknown>)[key]
  }
  if (typeof at === 'object' && at !== null && !Array.isArray(at)) delete (at as Record<string, unknown>)[path[path.length - 1]!]
}

/**
 * A copy of the properties without their own keys `names`. A top-level property is left out of
 * a copy rather than deleted: deleting a key turns the object into a dictionary, which
 * JSON.stringify writes more slowly when the row is encoded, and the properties are an event's
 * largest object. Rest destructuring copies in the object's order, keeps a key named
 * `__proto__` an ordinary key, and leaves out two keys per copy (a key named twice is left out
 * once), so that filtering several properties does not copy the properties for each.
 */
function without(properties: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  let rest = properties
  for (let i = 0; i < names.length; i += 2) {
    const first = names[i]!
    const second = names[i + 1] ?? first
    const { [first]: _first, [second]: _second, ...copy } = rest
    rest = copy
  }
  return rest
}

/**
 * PostHog's Property Filter: removes each listed property (`a.b.c` reaches into objects). The
 * stored IP is the `$ip` property, so listing `$ip` clears it too.
 */
export function propertyFilter(config: Record<string, unknown>): Transformation {
  const paths = (typeof config.properties === 'string' ? config.properties : '')
    .split(',')
    .filter((name) => name !== '')
    .map((name) => name.split('.'))
  const topLevel = paths.filter((path) => path.length === 1).map((path) => path[0]!)
  const nested = paths.filter((path) => path.length > 1)
  return (event: PluginEvent) => {
    // Nested paths reach into objects the copy shares, so which goes first does not matter.
    for (const path of nested) remove(event.properties, path)
    const present = topLevel.filter((name) => Object.hasOwn(event.properties, name))
    if (present.length > 0) event.properties = without(event.properties, present)
    return event
  }
}
