import { describe, expect, it } from 'vitest'
import type { CityResponse } from 'maxmind'
import type { PluginEvent } from './event'
import { geoIp } from './geoip'
import { propertyFilter } from './propertyFilter'
import { runTransformations, type LoadedTransformation } from './runner'
import { taxonomyStandardizer, toConvention } from './taxonomyStandardizer'

const event = (properties: Record<string, unknown> = {}, name = 'custom'): PluginEvent => ({
  uuid: '0190c7a4-8f3b-7000-8000-000000000001',
  team_id: 1,
  event: name,
  distinct_id: 'd',
  properties,
  timestamp: '2024-01-01T00:00:00.000Z',
})

const loaded = (configId: number, run: LoadedTransformation['run']): LoadedTransformation => ({
  configId,
  pluginId: 1,
  label: `P (${configId})`,
  run,
})

describe('Taxonomy Standardizer', () => {
  it.each([
    ['user signed up', 'camelCase', 'userSignedUp'],
    ['userSignedUp', 'PascalCase', 'UserSignedUp'],
    ['UserSignedUp', 'snake_case', 'user_signed_up'],
    ['user_signed_up', 'kebab-case', 'user-signed-up'],
    ['user-signed-up', 'spaces in between', 'user signed up'],
    ['HTMLPageLoaded', 'snake_case', 'html_page_loaded'],
  ])('turns %s into %s: %s', (name, convention, expected) => {
    expect(toConvention(name, convention)).toBe(expected)
  })

  it('leaves $ events and survey events alone', () => {
    const run = taxonomyStandardizer({ defaultNamingConvention: 'snake_case' })
    expect(run(event({}, '$pageview'))?.event).toBe('$pageview')
    expect(run(event({}, 'survey sent'))?.event).toBe('survey sent')
  })
})

describe('GeoIP', () => {
  const london = { city: { names: { en: 'London' } }, country: { names: { en: 'United Kingdom' }, iso_code: 'GB' } } as CityResponse
  const run = geoIp(() => (ip) => (ip === '81.2.69.142' ? london : undefined))

  it('adds the location to $set and $set_once beside what the event sets, which wins', () => {
    const out = run(event({ $ip: '81.2.69.142', $set: { plan: 'pro', $geoip_city_name: 'Chosen' }, $set_once: { source: 'ad' } }))
    expect(out?.properties.$geoip_city_name).toBe('London')
    expect(out?.properties.$set).toMatchObject({
      plan: 'pro',
      $geoip_city_name: 'Chosen',
      $geoip_country_code: 'GB',
      $geoip_postal_code: null,
    })
    expect(out?.properties.$set_once).toMatchObject({ source: 'ad', $initial_geoip_city_name: 'London' })
  })

  it('replaces a $set that is not an object, and keeps a key named __proto__ as an ordinary key', () => {
    const properties = JSON.parse('{"$ip": "81.2.69.142", "$set": "text", "$set_once": {"__proto__": {"polluted": true}}}') as Record<
      string,
      unknown
    >
    const out = run(event(properties))
    expect(out?.properties.$set).toMatchObject({ $geoip_city_name: 'London' })
    const setOnce = out?.properties.$set_once as Record<string, unknown>
    expect(Object.hasOwn(setOnce, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(setOnce)).toBe(Object.prototype)
    expect(setOnce.$initial_geoip_country_code).toBe('GB')
  })

  it('leaves an event whose address it does not know as it was', () => {
    expect(run(event({ $ip: '10.0.0.1' }))?.properties).toEqual({ $ip: '10.0.0.1' })
  })
})

describe('Property Filter', () => {
  it('removes top-level and nested properties, and ignores paths that are not there', () => {
    const out = propertyFilter({ properties: 'a.b,d,missing.x,a.c.z' })(event({ a: { b: 1, c: 2 }, d: 3 }))
    expect(out?.properties).toEqual({ a: { c: 2 } })
  })

  it('keeps the other properties in their order, a key named __proto__ an ordinary key', () => {
    const properties = JSON.parse('{"x": 1, "__proto__": {"polluted": true}, "drop": 2, "y": 3}') as Record<string, unknown>
    const out = propertyFilter({ properties: 'drop' })(event(properties))?.properties as Record<string, unknown>
    expect(Object.keys(out)).toEqual(['x', '__proto__', 'y'])
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(out)).toBe('{"x":1,"__proto__":{"polluted":true},"y":3}')
  })

  it('removes any number of top-level properties, one named twice, and a nested one inside a removed one', () => {
    const properties = JSON.parse('{"a":1,"__proto__":2,"b":{"c":3},"d":4,"e":5,"f":6}') as Record<string, unknown>
    const out = propertyFilter({ properties: 'a,__proto__,d,d,b.c,f,b' })(event(properties))?.properties as Record<string, unknown>
    expect(JSON.stringify(out)).toBe('{"e":5}')
    expect(propertyFilter({ properties: 'x,d' })(event({ d: 1, y: 2 }))?.properties).toEqual({ y: 2 })
  })
})

describe('runTransformations', () => {
  it('stops at a plugin that drops the event', () => {
    let ranSecond = false
    const outcome = runTransformations(
      event(),
      [
        loaded(1, () => null),
        loaded(2, (e) => {
          ranSecond = true
          return e
        }),
      ],
      1000,
    )
    expect(outcome.event).toBeNull()
    expect(outcome.droppedBy?.configId).toBe(1)
    expect(ranSecond).toBe(false)
  })

  it('keeps the event as before a plugin that changed it in place and threw, and names who failed', () => {
    const outcome = runTransformations(
      event({ a: 1 }),
      [
        {
          ...loaded(1, (e) => {
            e.properties.a = 2
            throw new Error('boom')
          }),
          changesInPlace: true,
        },
        loaded(2, (e) => ({ ...e, properties: { ...e.properties, b: 1 } })),
      ],
      1000,
    )
    expect(outcome.event?.properties).toEqual({ a: 1, b: 1, $plugins_succeeded: ['P (2)'], $plugins_failed: ['P (1)'] })
    expect(outcome.failures[0]?.error.message).toBe('boom')
  })

  it('refuses a change of uuid', () => {
    const outcome = runTransformations(event(), [loaded(1, (e) => ({ ...e, uuid: 'other' }))], 1000)
    expect(outcome.event?.uuid).toBe(event().uuid)
    expect(outcome.failures).toHaveLength(1)
  })
})
