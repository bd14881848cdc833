import { describe, expect, it } from 'vitest'
import { personIntentAfterPlugins } from './personIntentAfterPlugins'

describe('the person intent of an event plugins changed', () => {
  it('reads $set, $set_once and $unset again from the new properties', () => {
    const intent = { distinctId: 'd', set: { plan: 'free' }, setOnce: { source: 'ad' }, unset: ['email'] }
    const properties = { $set: { $geoip_city_name: 'London', plan: 'pro' }, $set_once: { $initial_geoip_city_name: 'London' } }
    expect(personIntentAfterPlugins(intent, 'visit', 'd', properties)).toEqual({
      distinctId: 'd',
      set: { $geoip_city_name: 'London', plan: 'pro' },
      setOnce: { $initial_geoip_city_name: 'London' },
    })
  })

  it('keeps merges and groups, under the distinct id the plugins gave', () => {
    const intent = {
      distinctId: 'before',
      mergeWith: 'anon',
      forceMerge: true as const,
      groupTypes: ['company'],
      groups: { company: '"acme"' },
    }
    expect(personIntentAfterPlugins(intent, '$merge_dangerously', 'after', { alias: 'anon' })).toEqual({
      distinctId: 'after',
      mergeWith: 'anon',
      forceMerge: true,
      groupTypes: ['company'],
      groups: { company: '"acme"' },
    })
  })

  it('is the distinct id alone when nothing but the id is left', () => {
    expect(personIntentAfterPlugins({ distinctId: 'd', set: { plan: 'free' } }, 'visit', 'renamed', {})).toBe('renamed')
    expect(personIntentAfterPlugins('d', 'visit', 'd', {})).toBe('d')
  })

  it('leaves an event without a person as it was, under the new distinct id', () => {
    const intent = { distinctId: 'd', noPerson: true as const, groupTypes: ['company'] }
    expect(personIntentAfterPlugins(intent, 'visit', 'e', { $set: { plan: 'pro' } })).toEqual({
      distinctId: 'e',
      noPerson: true,
      groupTypes: ['company'],
    })
  })

  it('parts what GeoIP sets into the keys that update the person and those that only go along', () => {
    const properties = { $set: { $geoip_country_name: 'United Kingdom', $geoip_latitude: 51.5 } }
    expect(personIntentAfterPlugins('d', 'visit', 'd', properties)).toEqual({
      distinctId: 'd',
      set: { $geoip_country_name: 'United Kingdom' },
      softSet: { $geoip_latitude: 51.5 },
    })
  })
})
