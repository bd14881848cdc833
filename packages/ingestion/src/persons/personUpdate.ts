import { isDeepStrictEqual } from 'node:util'
import { persons } from '@burrow/core'
import type { PropertyChange } from '@burrow/postgres'
import type { PersonChanges } from '@burrow/spool'

type Properties = Record<string, unknown>

/** One event's changes to its person, as capture read them. */
export type PersonOps = Pick<PersonChanges, 'set' | 'softSet' | 'setOnce' | 'unset' | 'personEvent'>

/**
 * What a batch's events do to a person, named as PostHog's batch outcome is:
 * - `changed`: the person is written, with every value the batch gathered (filtered ones too);
 * - `ignored`: the only values that differ from the person's are filtered properties of keys it has;
 * - `no_change`: the person holds every value already.
 */
export type PersonUpdateOutcome = 'changed' | 'ignored' | 'no_change'

export interface PersonUpdate {
  outcome: PersonUpdateOutcome
  /** What to write when `changed`: each key under the last operation the batch made on it. */
  change: PropertyChange
}

/**
 * Decides whether a batch's events write a person, and what, from the person's properties as
 * PostgreSQL holds them (`stored`), the way PostHog's person processing does (`person-update.ts`
 * and the batch writer's outcome):
 *
 * 1. Each event in turn is compared with the person as the batch has left it so far: a
 *    `$set_once` of a key it lacks, a `$set` of a value it does not hold (values compared as
 *    JSON), an `$unset` of a key it has. What differs is gathered, later operations on a key
 *    replacing earlier ones.
 * 2. The person is written when a gathered change was made by a person event (`$identify`,
 *    `$create_alias`, `$merge_dangerously`, `$set`), or when `merged` (a merge or identification
 *    changed the person in this batch), or when a key is unset, or when a gathered value differs
 *    from the stored one for a key the person lacks or that PostHog does not filter
 *    (FILTERED_PERSON_UPDATE_PROPERTIES: URLs, screen sizes, browser and device, most GeoIP values).
 *    Otherwise nothing is written, and the filtered values that differ wait for the next real change.
 */
export function decidePersonUpdate(stored: Properties, events: readonly PersonOps[], { merged = false } = {}): PersonUpdate {
  let current = stored
  const gathered = new Map<string, { value: unknown; once: boolean }>()
  const unset = new Set<string>()
  let forced = merged
  for (const event of events) {
    const eventSet = new Map<string, { value: unknown; once: boolean }>()
    if (event.setOnce) {
      for (const key of Object.keys(event.setOnce)) {
        // Written as a `$set_once`, a value another server set meanwhile is kept; but a key the
        // person has, unset earlier in the batch, is set again outright.
        if (!Object.hasOwn(current, key)) eventSet.set(key, { value: event.setOnce[key], once: !Object.hasOwn(stored, key) })
      }
    }
    for (const values of [event.set, event.softSet]) {
      if (!values) continue
      for (const key of Object.keys(values)) {
        const value = values[key]
        if (!Object.hasOwn(current, key) || !jsonEqual(current[key], value)) eventSet.set(key, { value, once: false })
      }
    }
    const eventUnset = event.unset?.filter((key) => Object.hasOwn(current, key)) ?? []
    if (eventSet.size === 0 && eventUnset.length === 0) continue
    if (event.personEvent) forced = true
    if (current === stored) current = copyOf(stored)
    for (const [key, op] of eventSet) {
      gathered.set(key, op)
      unset.delete(key)
      put(current, key, op.value)
    }
    for (const key of eventUnset) {
      unset.add(key)
      gathered.delete(key)
      delete current[key]
    }
  }
  const change: PropertyChange = { set: {}, setOnce: {}, unset: [...unset] }
  let differs = unset.size > 0
  let triggers = differs || (forced && gathered.size > 0)
  for (const [key, { value, once }] of gathered) {
    put(once ? change.setOnce : change.set, key, value)
    if (Object.hasOwn(stored, key) && jsonEqual(stored[key], value)) continue
    differs = true
    if (!Object.hasOwn(stored, key) || !persons.isFilteredPersonUpdateProperty(key)) triggers = true
  }
  return { outcome: triggers ? 'changed' : differs ? 'ignored' : 'no_change', change }
}

/**
 * What a person created by an event holds: its `$set_once` and `$set` (the `$set` winning), as
 * PostHog creates a person, filtered values included and `$unset` ignored.
 */
export function creationProperties(event: PersonOps): Properties {
  const properties: Properties = {}
  for (const values of [event.setOnce, event.set, event.softSet]) {
    if (values) for (const key of Object.keys(values)) put(properties, key, values[key])
  }
  return properties
}

/** Primitives first: most values are, and isDeepStrictEqual's checks cost more than `===`. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  return isDeepStrictEqual(a, b)
}

/** A copy to change; a key named `__proto__` stays an ordinary key. */
function copyOf(values: Properties): Properties {
  if (!Object.hasOwn(values, '__proto__')) return Object.assign({}, values)
  const copy: Properties = {}
  for (const key of Object.keys(values)) put(copy, key, values[key])
  return copy
}

/** Sets `key` as an own property, `__proto__` included (assigned, it would change the object's prototype). */
function put(object: Properties, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  else object[key] = value
}
