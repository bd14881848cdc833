import { readPropertyChanges } from '@burrow/capture'
import type { PersonChanges, PersonIntent } from '@burrow/spool'

/** The fields readPropertyChanges reads from the event's properties. */
const READ_FROM_PROPERTIES = new Set<keyof PersonChanges>(['set', 'softSet', 'setOnce', 'unset', 'personEvent'])

/**
 * An event's person intent once plugins changed it: its `$set`, `$set_once` and `$unset` read
 * again from the new properties (so that GeoIP's `$set` reaches the person and a filtered
 * property does not), its distinct id the new one; merges, groups and the rest stay.
 */
export function personIntentAfterPlugins(
  intent: PersonIntent,
  event: string,
  distinctId: string,
  properties: Record<string, unknown>,
): PersonIntent {
  // Copied field by field rather than spread: fields added to a spread copy get no map V8 can
  // reuse, and readPropertyChanges adds them to every event's intent.
  const changes: PersonChanges = { distinctId }
  if (typeof intent !== 'string') {
    for (const key of Object.keys(intent) as (keyof PersonChanges)[]) {
      if (key !== 'distinctId' && (intent.noPerson || !READ_FROM_PROPERTIES.has(key))) copyField(changes, intent, key)
    }
    if (changes.noPerson) return changes
  }
  readPropertyChanges(changes, event, properties)
  return Object.keys(changes).length === 1 ? distinctId : changes
}

function copyField<K extends keyof PersonChanges>(to: PersonChanges, from: PersonChanges, key: K): void {
  to[key] = from[key]
}
