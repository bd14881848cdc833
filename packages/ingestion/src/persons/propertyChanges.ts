import type { PropertyChange } from '@burrow/postgres'
import type { PersonChanges } from '@burrow/spool'

/**
 * Adds one event's `$set`, `$set_once` and `$unset` to the changes folded so far, so that
 * applying the result once equals applying the events one after another: `$set_once` of a key
 * set or unset earlier in the batch becomes a set only after an unset.
 */
export function foldPropertyChange(change: PropertyChange, ops: Pick<PersonChanges, 'set' | 'setOnce' | 'unset' | 'softSet'>): void {
  const unset = new Set(change.unset)
  for (const [key, value] of Object.entries(ops.setOnce ?? {})) {
    if (Object.hasOwn(change.set, key) || Object.hasOwn(change.setOnce, key)) continue
    if (unset.has(key)) {
      unset.delete(key)
      change.set[key] = value
    } else change.setOnce[key] = value
  }
  for (const [key, value] of Object.entries(ops.set ?? {})) {
    change.set[key] = value
    delete change.softSet[key]
    unset.delete(key)
  }
  // A soft value stays soft unless the key is set outright, or was unset, in this batch: then it is the person's new key.
  for (const [key, value] of Object.entries(ops.softSet ?? {})) {
    if (Object.hasOwn(change.set, key) || unset.has(key)) {
      change.set[key] = value
      unset.delete(key)
    } else change.softSet[key] = value
  }
  for (const key of ops.unset ?? []) {
    unset.add(key)
    delete change.set[key]
    delete change.setOnce[key]
    delete change.softSet[key]
  }
  change.unset = [...unset]
}
