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
 * A copy of the properties without their own key `name`. A top-level property is left out of a
 * copy rather than deleted: deleting a key turns the object into a dictionary, which
 * JSON.stringify writes more slowly when the row is encoded, and the properties are an event's
 * largest object. Rest destructuring copies in the object's order and keeps a key named
 * `__proto__` an ordinary key.
 */
function without(properties: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _removed, ...rest } = properties
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
  return (event: PluginEvent) => {
    for (const path of paths) {
      if (path.length > 1) remove(event.properties, path)
      else if (Object.hasOwn(event.properties, path[0]!)) event.properties = without(event.properties, path[0]!)
    }
    return event
  }
}
