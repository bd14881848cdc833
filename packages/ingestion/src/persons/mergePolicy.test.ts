import type { MergePerson, MergeState } from '@burrow/postgres'
import { describe, expect, it } from 'vitest'
import { mergeOptionsOf, planMerge, retriesMerge, type MergeOptions } from './mergePolicy'

const at = (iso: string) => new Date(iso)

const person = (id: number, fields: Partial<MergePerson> = {}): MergePerson => ({
  id,
  isIdentified: false,
  properties: {},
  createdAt: at('2025-01-01T00:00:00Z'),
  propertiesUpdatedAt: at('2025-01-01T00:00:00Z'),
  ...fields,
})

const state = (owners: Pick<MergeState, 'mine' | 'other'> = {}): MergeState => ({ distinctId: 'user', otherId: 'anon', ...owners })

const options = (fields: Partial<MergeOptions> = {}): MergeOptions => ({
  markIdentified: true,
  force: false,
  createdAt: at('2025-03-01T12:00:00Z'),
  ...fields,
})

/** The fields of the person a merge of `other` into `mine` keeps. */
const merged = (mine: MergePerson, other: MergePerson, opts: MergeOptions = options()) => {
  const plan = planMerge(state({ mine, other }), opts)
  if (plan.kind !== 'merge') throw new Error(`expected a merge, got ${plan.kind}`)
  return plan.person
}

describe('the options of a merge event', () => {
  it('marks the person identified for every merge event', () => {
    expect(mergeOptionsOf({ distinctId: 'user', mergeWith: 'anon' }, at('2025-03-01T12:00:00Z')).markIdentified).toBe(true)
  })

  it('forces the merge only for $merge_dangerously', () => {
    expect(mergeOptionsOf({ distinctId: 'user', mergeWith: 'anon' }, new Date()).force).toBe(false)
    expect(mergeOptionsOf({ distinctId: 'user', mergeWith: 'anon', forceMerge: true }, new Date()).force).toBe(true)
  })

  it('dates a person made by the merge at the merge event', () => {
    const when = at('2025-03-01T12:00:00Z')
    expect(mergeOptionsOf({ distinctId: 'user', mergeWith: 'anon' }, when).createdAt).toBe(when)
  })
})

describe('planning a merge of two distinct ids', () => {
  describe('when neither id has a person', () => {
    it('creates one person holding both ids, dated at the merge event', () => {
      expect(planMerge(state(), options())).toEqual({
        kind: 'create',
        distinctIds: ['user', 'anon'],
        isIdentified: true,
        createdAt: at('2025-03-01T12:00:00Z'),
      })
    })

    it('creates the person unidentified when the merge does not identify', () => {
      expect(planMerge(state(), options({ markIdentified: false }))).toMatchObject({ kind: 'create', isIdentified: false })
    })

    it('names an id only once when both ids are the same', () => {
      expect(planMerge({ distinctId: 'same', otherId: 'same' }, options())).toMatchObject({ kind: 'create', distinctIds: ['same'] })
    })
  })

  describe('when one id has a person', () => {
    it('links the other id to the person of the distinct id and marks it identified', () => {
      expect(planMerge(state({ mine: person(1) }), options())).toEqual({
        kind: 'link',
        personId: 1,
        distinctId: 'anon',
        markIdentified: true,
      })
    })

    it('links the distinct id to the person of the other id', () => {
      expect(planMerge(state({ other: person(2) }), options())).toEqual({
        kind: 'link',
        personId: 2,
        distinctId: 'user',
        markIdentified: true,
      })
    })

    it('links an identified other person without asking for a forced merge', () => {
      expect(planMerge(state({ other: person(2, { isIdentified: true }) }), options())).toMatchObject({ kind: 'link', personId: 2 })
    })

    it('leaves a person that is already identified as it is', () => {
      expect(planMerge(state({ mine: person(1, { isIdentified: true }) }), options())).toMatchObject({
        kind: 'link',
        markIdentified: false,
      })
    })

    it('leaves the identified flag alone when the merge does not identify', () => {
      expect(planMerge(state({ mine: person(1) }), options({ markIdentified: false }))).toMatchObject({
        kind: 'link',
        markIdentified: false,
      })
    })
  })

  describe('when both ids are on one person', () => {
    it('changes nothing but the identified flag', () => {
      const same = person(1)
      expect(planMerge(state({ mine: same, other: same }), options())).toEqual({ kind: 'unchanged', personId: 1, markIdentified: true })
    })

    it('changes nothing at all when the person is already identified', () => {
      const same = person(1, { isIdentified: true })
      expect(planMerge(state({ mine: same, other: same }), options())).toEqual({ kind: 'unchanged', personId: 1, markIdentified: false })
    })

    it('does not refuse an identified person, since there is nothing to merge', () => {
      const same = person(1, { isIdentified: true })
      expect(planMerge(state({ mine: same, other: same }), options({ force: false })).kind).toBe('unchanged')
    })
  })

  describe('when the ids are on two persons', () => {
    it('merges the other id’s person into the distinct id’s person', () => {
      expect(planMerge(state({ mine: person(1), other: person(2) }), options())).toMatchObject({ kind: 'merge', intoId: 1, fromId: 2 })
    })

    it('merges into an identified person whose distinct id is the event’s', () => {
      expect(planMerge(state({ mine: person(1, { isIdentified: true }), other: person(2) }), options())).toMatchObject({
        kind: 'merge',
        intoId: 1,
        fromId: 2,
      })
    })

    it('refuses to merge two identified persons unless the merge is forced', () => {
      const plan = planMerge(state({ mine: person(1, { isIdentified: true }), other: person(2, { isIdentified: true }) }), options())
      expect(plan).toEqual({ kind: 'refuse', personId: 1 })
    })

    it('refuses to merge an identified other person into an anonymous one unless the merge is forced', () => {
      expect(planMerge(state({ mine: person(1), other: person(2, { isIdentified: true }) }), options())).toEqual({
        kind: 'refuse',
        personId: 1,
      })
    })

    it('merges an identified other person when the merge is forced ($merge_dangerously)', () => {
      const plan = planMerge(
        state({ mine: person(1, { isIdentified: true }), other: person(2, { isIdentified: true }) }),
        options({ force: true }),
      )
      expect(plan).toMatchObject({ kind: 'merge', intoId: 1, fromId: 2, person: { isIdentified: true } })
    })
  })
})

describe('the person a merge keeps', () => {
  const earlier = at('2025-02-01T00:00:00.000Z')
  const later = at('2025-02-01T00:00:00.001Z')

  it('keeps the distinct id’s person’s values where both have a key, as PostHog does, whichever changed last', () => {
    const mine = person(1, { properties: { plan: 'paid', email: 'a@example.com' }, propertiesUpdatedAt: earlier })
    const other = person(2, { properties: { plan: 'trial', landing: '/pricing' }, propertiesUpdatedAt: later })
    expect(merged(mine, other).properties).toEqual({ plan: 'paid', email: 'a@example.com', landing: '/pricing' })
    expect(merged({ ...mine, propertiesUpdatedAt: later }, { ...other, propertiesUpdatedAt: earlier }).properties).toEqual({
      plan: 'paid',
      email: 'a@example.com',
      landing: '/pricing',
    })
  })
  it('keeps the identified user’s first-touch properties over the anonymous visitor’s', () => {
    const user = person(1, { properties: { $initial_referrer: 'https://news.example/' }, propertiesUpdatedAt: earlier })
    const visitor = person(2, { properties: { $initial_referrer: '$direct', $browser: 'Firefox' }, propertiesUpdatedAt: later })
    expect(merged(user, visitor).properties).toEqual({ $initial_referrer: 'https://news.example/', $browser: 'Firefox' })
  })
  it('replaces a nested value whole rather than merging inside it', () => {
    const mine = person(1, { properties: { address: { city: 'Bergen' } }, propertiesUpdatedAt: earlier })
    const other = person(2, { properties: { address: { city: 'Oslo', zip: '0150' } }, propertiesUpdatedAt: later })
    expect(merged(mine, other).properties).toEqual({ address: { city: 'Bergen' } })
  })
  it('keeps a key the distinct id’s person set to null', () => {
    const mine = person(1, { properties: { email: null }, propertiesUpdatedAt: earlier })
    const other = person(2, { properties: { email: 'a@example.com' }, propertiesUpdatedAt: later })
    expect(merged(mine, other).properties).toEqual({ email: null })
  })
  it('treats a key named __proto__ as an ordinary property', () => {
    const mine = person(1, {
      properties: JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>,
      propertiesUpdatedAt: later,
    })
    const other = person(2, { properties: { plan: 'pro' }, propertiesUpdatedAt: earlier })
    const properties = merged(mine, other).properties
    expect(Object.hasOwn(properties, '__proto__')).toBe(true)
    expect(properties.plan).toBe('pro')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('does not change the persons it reads', () => {
    const mine = person(1, { properties: { plan: 'old' }, propertiesUpdatedAt: earlier })
    const other = person(2, { properties: { landing: '/' }, propertiesUpdatedAt: later })
    merged(mine, other)
    expect(mine.properties).toEqual({ plan: 'old' })
    expect(other.properties).toEqual({ landing: '/' })
  })

  it('is as old as the older of the two persons', () => {
    const old = at('2024-06-01T00:00:00Z')
    const young = at('2025-01-01T00:00:00Z')
    expect(merged(person(1, { createdAt: young }), person(2, { createdAt: old })).createdAt).toEqual(old)
    expect(merged(person(1, { createdAt: old }), person(2, { createdAt: young })).createdAt).toEqual(old)
  })

  it('has its properties changed as late as the later of the two persons', () => {
    expect(merged(person(1, { propertiesUpdatedAt: earlier }), person(2, { propertiesUpdatedAt: later })).propertiesUpdatedAt).toEqual(
      later,
    )
    expect(merged(person(1, { propertiesUpdatedAt: later }), person(2, { propertiesUpdatedAt: earlier })).propertiesUpdatedAt).toEqual(
      later,
    )
  })

  it('is identified when the merge identifies, or when either person was', () => {
    const noIdentify = options({ markIdentified: false, force: true })
    expect(merged(person(1), person(2), options()).isIdentified).toBe(true)
    expect(merged(person(1), person(2), noIdentify).isIdentified).toBe(false)
    expect(merged(person(1, { isIdentified: true }), person(2), noIdentify).isIdentified).toBe(true)
    expect(merged(person(1), person(2, { isIdentified: true }), noIdentify).isIdentified).toBe(true)
  })
})

describe('retrying a merge', () => {
  const error = (code: string) => Object.assign(new Error('conflict'), { code })

  it.each([
    ['a unique violation (another server linked the id first)', '23505'],
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('tries again after %s', (_name, code) => {
    expect(retriesMerge(error(code), 1)).toBe(true)
  })

  it('gives up after the fifth attempt', () => {
    expect(retriesMerge(error('40P01'), 4)).toBe(true)
    expect(retriesMerge(error('40P01'), 5)).toBe(false)
  })

  it('does not retry other failures', () => {
    expect(retriesMerge(error('22P02'), 1)).toBe(false)
    expect(retriesMerge(new Error('connection reset'), 1)).toBe(false)
    expect(retriesMerge(undefined, 1)).toBe(false)
  })
})
