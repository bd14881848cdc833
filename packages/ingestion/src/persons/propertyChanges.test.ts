import fc from 'fast-check'
import type { PropertyChange } from '@burrow/postgres'
import { describe, expect, it } from 'vitest'
import { emptyPropertyChange, firstPropertyChange, foldPropertyChange } from './propertyChanges'

type Ops = { set?: Record<string, unknown>; setOnce?: Record<string, unknown>; unset?: string[]; softSet?: Record<string, unknown> }

/** One event's changes applied on their own, as PostHog applies them: set_once, then set, then unset. */
function applyOne(properties: Record<string, unknown>, ops: Ops): Record<string, unknown> {
  const next = { ...properties }
  for (const [k, v] of Object.entries(ops.setOnce ?? {})) if (!Object.hasOwn(next, k)) next[k] = v
  Object.assign(next, ops.set ?? {})
  for (const k of ops.unset ?? []) delete next[k]
  return next
}

/** The folded change applied once, as the SQL update does: (set_once || properties) || set, minus unset. */
function applyFolded(properties: Record<string, unknown>, change: PropertyChange): Record<string, unknown> {
  const next = { ...change.setOnce, ...properties, ...change.set, ...change.softSet }
  for (const k of change.unset) delete next[k]
  return next
}

const key = fc.constantFrom('plan', 'email', 'seats', 'name')
const values = fc.dictionary(key, fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxKeys: 3 })
const ops: fc.Arbitrary<Ops> = fc.record({ set: values, setOnce: values, unset: fc.array(key, { maxLength: 2 }) }, { requiredKeys: [] })

const fold = (events: Ops[]) => {
  const change: PropertyChange = emptyPropertyChange()
  for (const e of events) foldPropertyChange(change, e)
  return change
}

describe('folding the person changes of a batch', () => {
  it('gives the same properties as applying the events one after another', () => {
    fc.assert(
      fc.property(values, fc.array(ops, { maxLength: 6 }), (start, events) => {
        expect(applyFolded(start, fold(events))).toEqual(events.reduce(applyOne, start))
      }),
      { numRuns: 2000 },
    )
  })

  it("folds a person's first event as it would into an empty change", () => {
    const withSoft: fc.Arbitrary<Ops> = fc.record(
      { set: values, setOnce: values, unset: fc.array(key, { maxLength: 2 }), softSet: values },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(withSoft, (event) => {
        expect(JSON.stringify(firstPropertyChange(event))).toBe(JSON.stringify(fold([event])))
      }),
      { numRuns: 2000 },
    )
  })

  it.each([
    ['a later $set wins', [{ set: { plan: 'free' } }, { set: { plan: 'pro' } }], { plan: 'pro' }],
    ['$set_once keeps the first value', [{ setOnce: { plan: 'free' } }, { setOnce: { plan: 'pro' } }], { plan: 'free' }],
    [
      '$set_once after $unset sets the key again',
      [{ set: { plan: 'free' } }, { unset: ['plan'] }, { setOnce: { plan: 'pro' } }],
      { plan: 'pro' },
    ],
    ['$unset after $set removes the key', [{ set: { plan: 'free' } }, { unset: ['plan'] }], {}],
    [
      'a later soft value of a key set in the batch wins',
      [{ set: { $browser: 'Chrome' } }, { softSet: { $browser: 'Firefox' } }],
      { $browser: 'Firefox' },
    ],
    ['a later $set of a soft key wins', [{ softSet: { $browser: 'Chrome' } }, { set: { $browser: 'Firefox' } }], { $browser: 'Firefox' }],
    [
      'a soft value after $unset sets the key again',
      [{ unset: ['$browser'] }, { softSet: { $browser: 'Chrome' } }],
      { $browser: 'Chrome' },
    ],
  ])('%s', (_name, events, expected) => {
    expect(applyFolded({}, fold(events as Ops[]))).toEqual(expected)
  })

  it('keeps soft values apart unless the key is set outright or was unset in the batch', () => {
    expect(fold([{ softSet: { $browser: 'Chrome' } }, { set: { plan: 'pro' } }])).toEqual({
      set: { plan: 'pro' },
      setOnce: {},
      unset: [],
      softSet: { $browser: 'Chrome' },
    })
    expect(fold([{ set: { $browser: 'Chrome' } }, { softSet: { $browser: 'Firefox' } }]).set).toEqual({ $browser: 'Firefox' })
    expect(fold([{ softSet: { $browser: 'Chrome' } }, { unset: ['$browser'] }]).softSet).toEqual({})
  })

  it('keeps a key named __proto__ an ordinary key, whichever change brings it', () => {
    const value = () => JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
    const change = fold([{ set: value(), setOnce: value(), softSet: value() }, { unset: ['other'] }, { setOnce: value() }])
    for (const object of [change.set, change.setOnce]) {
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype)
      expect(Object.hasOwn(object, '__proto__')).toBe(true)
    }
    expect(JSON.stringify(change)).toBe(
      '{"set":{"__proto__":{"polluted":true}},"setOnce":{"__proto__":{"polluted":true}},"softSet":{},"unset":["other"]}',
    )
    const soft = fold([{ softSet: value() }])
    expect(Object.hasOwn(soft.softSet, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(soft.softSet)).toBe(Object.prototype)
    const first = firstPropertyChange({ set: value(), setOnce: value(), softSet: value() })
    for (const object of [first.set, first.setOnce]) {
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype)
      expect(Object.hasOwn(object, '__proto__')).toBe(true)
    }
    expect(first.softSet).toEqual({})
  })
})
