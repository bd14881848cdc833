import type { PropertyChange } from '@burrow/postgres'
import type { PersonChanges } from '@burrow/spool'

/**
 * The changes of a person before its first event is folded in. Plain objects, not
 * Object.create(null): copying and walking an object without a prototype (the NUL check, the
 * copy the update query makes of each) took some three times as long. A key named `__proto__`
 * stays an ordinary key: values are written into them only by `put` and `copyOf`.
 */
export const emptyPropertyChange = (): PropertyChange => ({ set: {}, setOnce: {}, softSet: {}, unset: [] })

/**
 * The changes of a person's first event in a batch (most persons have one): foldPropertyChange
 * into an empty change, with `$set` and `$set_once` copied whole, as they would be folded into
 * nothing.
 */
export function firstPropertyChange(ops: Pick<PersonChanges, 'set' | 'setOnce' | 'unset' | 'softSet'>): PropertyChange {
  const change = emptyPropertyChange()
  if (ops.unset === undefined) {
    change.set = copyOf(ops.set)
    change.setOnce = copyOf(ops.setOnce)
    foldPropertyChange(change, { softSet: ops.softSet })
  } else foldPropertyChange(change, ops)
  return change
}

/**
 * A copy of `values` to fold more into. Object.assign copies an object in one step, where a key
 * by key copy takes one per key; a spread copies as fast, but each key added to a spread copy
 * later costs a new map (several times the work with a few dozen keys). Assigned, a key named
 * `__proto__` would change the copy's prototype: an object with one is copied key by key.
 */
function copyOf(values: Record<string, unknown> | undefined): Record<string, unknown> {
  if (values === undefined) return {}
  if (!Object.hasOwn(values, '__proto__')) return Object.assign({}, values)
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(values)) put(copy, key, values[key])
  return copy
}

/** Sets `key` as an own property, `__proto__` included (assigned, it would change the object's prototype). */
function put(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  else object[key] = value
}

/**
 * Adds one event's `$set`, `$set_once` and `$unset` to the changes folded so far, so that
 * applying the result once equals applying the events one after another: `$set_once` of a key
 * set or unset earlier in the batch becomes a set only after an unset.
 */
export function foldPropertyChange(change: PropertyChange, ops: Pick<PersonChanges, 'set' | 'setOnce' | 'unset' | 'softSet'>): void {
  // Most events unset nothing and follow no unset: the set of unset keys is made only when needed.
  const unset = change.unset.length > 0 || ops.unset !== undefined ? new Set(change.unset) : undefined
  // Keys then values rather than Object.entries, which makes an array per key of every event.
  if (ops.setOnce) {
    for (const key of Object.keys(ops.setOnce)) {
      if (Object.hasOwn(change.set, key) || Object.hasOwn(change.setOnce, key)) continue
      if (unset?.has(key)) {
        unset.delete(key)
        put(change.set, key, ops.setOnce[key])
      } else put(change.setOnce, key, ops.setOnce[key])
    }
  }
  if (ops.set) {
    for (const key of Object.keys(ops.set)) {
      put(change.set, key, ops.set[key])
      delete change.softSet[key]
      unset?.delete(key)
    }
  }
  // A soft value stays soft unless the key is set outright, or was unset, in this batch: then it is the person's new key.
  if (ops.softSet) {
    for (const key of Object.keys(ops.softSet)) {
      if (Object.hasOwn(change.set, key) || unset?.has(key)) {
        put(change.set, key, ops.softSet[key])
        unset?.delete(key)
      } else put(change.softSet, key, ops.softSet[key])
    }
  }
  if (!unset) return
  for (const key of ops.unset ?? []) {
    unset.add(key)
    delete change.set[key]
    delete change.setOnce[key]
    delete change.softSet[key]
  }
  change.unset = [...unset]
}
