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
 * PostHog's Property Filter: removes each listed property (`a.b.c` reaches into objects). The
 * stored IP is the `$ip` property, so listing `$ip` clears it too.
 */
export function propertyFilter(config: Record<string, unknown>): Transformation {
  const paths = (typeof config.properties === 'string' ? config.properties : '')
    .split(',')
    .filter((name) => name !== '')
    .map((name) => name.split('.'))
  return (event: PluginEvent) => {
    for (const path of paths) remove(event.properties, path)
    return event
  }
}
