import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { creationProperties, decidePersonUpdate, type PersonOps } from './personUpdate'

/** A returning posthog-js visitor as PostgreSQL holds them. */
const stored = {
  email: 'ada@example.com',
  $browser: 'Chrome',
  $current_url: 'https://shop.test/a',
  $initial_current_url: 'https://shop.test/',
  utm_source: 'newsletter',
}

/** A page view as capture reads it: the filtered values apart (softSet), `$initial_*` in `$set_once`. */
const pageview = (url: string, extra: PersonOps = {}): PersonOps => ({
  softSet: { $browser: 'Chrome', $current_url: url },
  setOnce: { $initial_browser: 'Chrome', $initial_current_url: url },
  ...extra,
})

describe('whether a batch of events writes a person, as PostHog decides it', () => {
  it('writes nothing when the person holds every value already', () => {
    const same = pageview('https://shop.test/a', {
      set: { email: 'ada@example.com' },
      setOnce: { $initial_current_url: 'https://x.test/' },
    })
    expect(decidePersonUpdate({ ...stored, $initial_browser: 'Chrome' }, [same, same]).outcome).toBe('no_change')
  })

  it('ignores changes of filtered properties alone, however many page views make them', () => {
    const views = ['b', 'c', 'd'].map((page) => ({ softSet: { $current_url: `https://shop.test/${page}`, $browser: 'Firefox' } }))
    expect(decidePersonUpdate(stored, views).outcome).toBe('ignored')
  })

  it('writes the filtered values the batch gathered along with a real change, the latest of each', () => {
    const update = decidePersonUpdate(stored, [
      { softSet: { $current_url: 'https://shop.test/b' } },
      { set: { plan: 'pro' } },
      { softSet: { $current_url: 'https://shop.test/c' } },
    ])
    expect(update.outcome).toBe('changed')
    expect(update.change).toEqual({ set: { $current_url: 'https://shop.test/c', plan: 'pro' }, setOnce: {}, unset: [] })
  })

  it('writes a filtered property the person does not have yet', () => {
    expect(decidePersonUpdate(stored, [{ softSet: { $os: 'Mac OS X' } }]).outcome).toBe('changed')
  })

  it('writes a changed campaign parameter, GeoIP country code or app version: PostHog does not filter them', () => {
    for (const set of [{ utm_source: 'ad' }, { $geoip_country_code: 'FR' }, { $app_version: '2.0' }]) {
      expect(decidePersonUpdate({ ...stored, $geoip_country_code: 'DE', $app_version: '1.0' }, [{ set }]).outcome).toBe('changed')
    }
  })

  it('writes every gathered value when a person event ($identify, $set) changed something, filtered ones included', () => {
    // The person event's own change is undone later in the batch; PostHog still forces the write.
    const update = decidePersonUpdate(stored, [
      { set: { email: 'new@example.com', $browser: 'Safari' }, personEvent: true },
      { set: { email: 'ada@example.com' } },
      { softSet: { $current_url: 'https://shop.test/b' } },
    ])
    expect(update.outcome).toBe('changed')
    expect(update.change.set).toEqual({ email: 'ada@example.com', $browser: 'Safari', $current_url: 'https://shop.test/b' })
  })

  it('does not force a write for a person event that changes nothing', () => {
    const identifyAgain = { set: { email: 'ada@example.com' }, personEvent: true as const }
    expect(decidePersonUpdate(stored, [identifyAgain, { softSet: { $current_url: 'https://shop.test/b' } }]).outcome).toBe('ignored')
  })

  it('writes the filtered values of a person a merge or identification changed in the same batch', () => {
    const views = [{ softSet: { $current_url: 'https://shop.test/b' } }]
    expect(decidePersonUpdate(stored, views, { merged: true }).outcome).toBe('changed')
    const identified = { ...stored, $initial_browser: 'Chrome' }
    expect(decidePersonUpdate(identified, [pageview('https://shop.test/a')], { merged: true }).outcome).toBe('no_change')
  })

  it('writes a $set_once only of a key the person lacks, and keeps it a $set_once', () => {
    expect(decidePersonUpdate(stored, [{ setOnce: { email: 'other@example.com' } }]).outcome).toBe('no_change')
    const update = decidePersonUpdate(stored, [{ setOnce: { $initial_os: 'Mac OS X' } }, { setOnce: { $initial_os: 'Windows' } }])
    expect(update).toEqual({ outcome: 'changed', change: { set: {}, setOnce: { $initial_os: 'Mac OS X' }, unset: [] } })
  })

  it('writes an $unset only of a key the person has, and a later $set of it replaces the unset', () => {
    expect(decidePersonUpdate(stored, [{ unset: ['plan'] }]).outcome).toBe('no_change')
    expect(decidePersonUpdate(stored, [{ unset: ['email'] }]).change.unset).toEqual(['email'])
    const again = decidePersonUpdate(stored, [{ unset: ['email'] }, { set: { email: 'back@example.com' } }])
    expect(again.change).toEqual({ set: { email: 'back@example.com' }, setOnce: {}, unset: [] })
  })

  it('compares values as JSON: equal objects and arrays are no change, whatever the order of keys', () => {
    const holder = { address: { city: 'Paris', zip: '75001' }, tags: ['a', 'b'], seats: 3, gone: null }
    const same = { set: { address: { zip: '75001', city: 'Paris' }, tags: ['a', 'b'], seats: 3, gone: null } }
    expect(decidePersonUpdate(holder, [same]).outcome).toBe('no_change')
    expect(decidePersonUpdate(holder, [{ set: { tags: ['b', 'a'] } }]).outcome).toBe('changed')
    expect(decidePersonUpdate(holder, [{ set: { seats: '3' } }]).outcome).toBe('changed')
  })

  it('treats a key named __proto__ as an ordinary property', () => {
    const holder = JSON.parse('{"__proto__": 1}') as Record<string, unknown>
    const set = (value: number) => ({ set: JSON.parse(`{"__proto__": ${value}}`) as Record<string, unknown> })
    expect(decidePersonUpdate(holder, [set(1)]).outcome).toBe('no_change')
    const update = decidePersonUpdate(holder, [set(2)])
    expect(update.outcome).toBe('changed')
    expect(Object.getPrototypeOf(update.change.set)).toBe(Object.prototype)
    expect(Object.hasOwn(update.change.set, '__proto__')).toBe(true)
  })

  it('leaves the properties it was given as they were', () => {
    const holder = { ...stored }
    decidePersonUpdate(holder, [{ set: { plan: 'pro' }, unset: ['email'] }])
    expect(holder).toEqual(stored)
  })

  it('ends every batch of events with the person PostHog would store', () => {
    const key = fc.constantFrom('plan', 'email', '$browser', '$current_url')
    const value = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', 'b'), fc.constant(null))
    const values = fc.dictionary(key, value, { maxKeys: 3 })
    const event = fc.record({ person: fc.boolean(), set: values, setOnce: values, unset: fc.array(key, { maxLength: 2 }) })
    fc.assert(
      fc.property(values, fc.array(event, { maxLength: 6 }), (original, events) => {
        const { outcome, change } = decidePersonUpdate(original, events.map(asIntent))
        const stored = outcome === 'changed' ? applySql(original, change) : original
        expect(sorted(stored)).toEqual(sorted(postHogStores(original, events)))
      }),
      { numRuns: 3000 },
    )
  })
})

describe('a new person', () => {
  it('holds what its first event sets, filtered values included, `$set` winning over `$set_once`', () => {
    expect(
      creationProperties({ ...pageview('https://shop.test/'), set: { plan: 'free' }, setOnce: { plan: 'trial', $initial_os: 'iOS' } }),
    ).toEqual({
      plan: 'free',
      $initial_os: 'iOS',
      $browser: 'Chrome',
      $current_url: 'https://shop.test/',
    })
  })
})

/** An event as the model below sees it: a person event (`$identify`, `$set`, …) or any other. */
interface PostHogEvent {
  person: boolean
  set: Record<string, unknown>
  setOnce: Record<string, unknown>
  unset: string[]
}

const FILTERED = new Set(['$browser', '$current_url'])

/** As capture reads an event's person changes: a non-person event's filtered `$set` values apart. */
function asIntent(e: PostHogEvent): PersonOps {
  const set: Record<string, unknown> = {}
  const softSet: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(e.set)) (!e.person && FILTERED.has(k) ? softSet : set)[k] = v
  return { set, softSet, setOnce: e.setOnce, unset: e.unset, ...(e.person ? { personEvent: true as const } : {}) }
}

/** The update statement's `((set_once || properties) || set) - unset`. */
function applySql(
  properties: Record<string, unknown>,
  change: { set: Record<string, unknown>; setOnce: Record<string, unknown>; unset: string[] },
) {
  const next = { ...change.setOnce, ...properties, ...change.set }
  for (const k of change.unset) delete next[k]
  return next
}

/**
 * PostHog's procedure as it describes it, event by event: each event's changes are taken against
 * the person as the batch has changed it so far (`$set_once` of missing keys, `$set` of other
 * values, `$unset` of present keys, the unset last) and gathered, later ones winning; a person
 * event with a change forces the write; at the end the person is written if forced, if a key is
 * unset, or if a gathered value differs from the stored one for a key that is new or not filtered,
 * and then with every gathered value.
 */
function postHogStores(original: Record<string, unknown>, events: PostHogEvent[]): Record<string, unknown> {
  let current = { ...original }
  const toSet: Record<string, unknown> = {}
  const toUnset = new Set<string>()
  let force = false
  for (const e of events) {
    const eventSet: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(e.setOnce)) if (!Object.hasOwn(current, k)) eventSet[k] = v
    for (const [k, v] of Object.entries(e.set)) if (current[k] !== v || !Object.hasOwn(current, k)) eventSet[k] = v
    const eventUnset = e.unset.filter((k) => Object.hasOwn(current, k))
    if (Object.keys(eventSet).length === 0 && eventUnset.length === 0) continue
    if (e.person) force = true
    for (const [k, v] of Object.entries(eventSet)) {
      toSet[k] = v
      toUnset.delete(k)
    }
    for (const k of eventUnset) {
      toUnset.add(k)
      delete toSet[k]
    }
    current = { ...current, ...eventSet }
    for (const k of eventUnset) delete current[k]
  }
  const triggers =
    (force && (Object.keys(toSet).length > 0 || toUnset.size > 0)) ||
    toUnset.size > 0 ||
    Object.entries(toSet).some(([k, v]) => original[k] !== v && (!Object.hasOwn(original, k) || !FILTERED.has(k)))
  if (!triggers) return original
  const written = { ...original, ...toSet }
  for (const k of toUnset) delete written[k]
  return written
}

const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)))
