import { readPropertyChanges } from '@burrow/capture'
import type { PersonChanges, PersonIntent } from '@burrow/spool'

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
  const changes: PersonChanges = typeof intent === 'string' ? { distinctId } : { ...intent, distinctId }
  if (changes.noPerson) return changes
  delete changes.set
  delete changes.softSet
  delete changes.setOnce
  delete changes.unset
  readPropertyChanges(changes, event, properties)
  return Object.keys(changes).length === 1 ? distinctId : changes
}
