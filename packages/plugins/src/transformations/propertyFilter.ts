import type { PluginEvent, Transformation } from './event'

/**
 * Removes the property at `path` inside `object` (the objects are the event's own, decoded from
 * its row). A path reaches into arrays by index, as PostHog's does: `list.0` leaves a null in
 * the element's place. A path through a value that is neither removes nothing.
 */
function remove(object: Record<string, unknown>, path: string[]): void {
  let at: unknown = object
  for (const key of path.slice(0, -1)) {
    if (!isContainer(at) || !Object.hasOwn(at, key)) return
    at = at[key]
  }
  // Reflect's delete answers false for what cannot be deleted (an array's length) rather than throwing.
  if (isContainer(at)) Reflect.deleteProperty(at, path[path.length - 1]!)
}

const isContainer = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

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
 * PostHog's Property Filter: removes each listed property (`a.b.c` reaches into objects and
 * arrays). The stored IP is the `$ip` property, so listing `$ip` clears it too. Where PostHog's
 * fails on a path through a text or a number, and then removes none of the listed properties,
 * this one skips that path and removes the others: a listed property is never kept by mistake.
 */
export function propertyFilter(config: Record<string, unknown>): Transformation {
  const listed = typeof config.properties === 'string' ? config.properties : ''
  // Neither trimmed nor skipped when empty, as PostHog reads the list: `a,,b` names the property "".
  const paths = listed === '' ? [] : listed.split(',').map((name) => name.split('.'))
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
