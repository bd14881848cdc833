import { describe, expect, it } from 'vitest'
import type { CityResponse } from 'maxmind'
import type { PluginEvent } from './event'
import { samplingPercentage } from './downsampling'
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

describe('Taxonomy Plugin', () => {
  // PostHog's renames, its oddities included: it rewrites the marks of the first other
  // convention it recognises (a capital, then `_x`, `-x`, ` x`) and nothing else.
  it.each([
    ['user_signed_up', 'camelCase', 'userSignedUp'],
    ['checkout-completed', 'camelCase', 'checkoutCompleted'],
    ['User Logged In', 'camelCase', 'user Logged In'],
    ['user_signed_up', 'PascalCase', 'UserSignedUp'],
    ['user logged in', 'PascalCase', 'UserLoggedIn'],
    ['signup', 'PascalCase', 'signup'],
    ['userSignedUp', 'snake_case', 'user_signed_up'],
    ['checkout-completed', 'snake_case', 'checkout_completed'],
    ['User Logged In', 'snake_case', 'user _logged _in'],
    ['HTMLParser', 'snake_case', 'h_t_m_l_parser'],
    ['userSignedUp', 'kebab-case', 'user-signed-up'],
    ['checkout_completed', 'kebab-case', 'checkout-completed'],
    ['userSignedUp', 'spaces in between', 'user signed up'],
    ['user-logged-in', 'spaces in between', 'user logged in'],
    ['user.signed.up', 'camelCase', 'user.signed.up'],
  ] as const)('turns %s into %s: %s', (name, convention, expected) => {
    expect(toConvention(name, convention)).toBe(expected)
  })

  it('renames to camelCase when the config names no convention it knows', () => {
    expect(taxonomyStandardizer({})(event({}, 'user_signed_up'))?.event).toBe('userSignedUp')
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

  it('fills the keys it did not find with null in $set and $set_once only, and writes none for a value the database lacks', () => {
    const noTimeZone = {
      country: { names: { en: 'Sweden' }, iso_code: 'SE' },
      location: { latitude: 59.3, longitude: 18.1, accuracy_radius: 100 },
    } as CityResponse
    const out = geoIp(() => () => noTimeZone)(event({ $ip: '89.160.20.112' }))!.properties
    expect(out).toMatchObject({ $geoip_country_code: 'SE', $geoip_latitude: 59.3 })
    for (const absent of ['$geoip_city_name', '$geoip_postal_code', '$geoip_time_zone']) expect(Object.hasOwn(out, absent)).toBe(false)
    expect(out.$set).toMatchObject({
      $geoip_country_code: 'SE',
      $geoip_city_name: null,
      $geoip_city_confidence: null,
      $geoip_subdivision_2_code: null,
    })
    expect(out.$set_once).toMatchObject({ $initial_geoip_country_name: 'Sweden', $initial_geoip_postal_code: null })
    expect(Object.hasOwn(out.$set as object, '$geoip_time_zone')).toBe(false)
    expect(Object.hasOwn(out.$set_once as object, '$initial_geoip_time_zone')).toBe(false)
  })

  it('is skipped by any true-ish $geoip_disable, and reads an address that is not text as text', () => {
    for (const disable of [true, 'true', 1])
      expect(run(event({ $ip: '81.2.69.142', $geoip_disable: disable }))?.properties.$set).toBeUndefined()
    expect(run(event({ $ip: '81.2.69.142', $geoip_disable: false }))?.properties.$geoip_city_name).toBe('London')
    const asText = geoIp(() => (ip) => (ip === '42' ? london : undefined))
    expect(asText(event({ $ip: 42 }))?.properties.$geoip_country_code).toBe('GB')
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

  it('reaches into arrays by index, leaving a null in the place of what it removed', () => {
    const out = propertyFilter({ properties: 'list.0,items.1.secret' })(
      event({ list: [1, 2], items: [{ secret: 1 }, { secret: 2, keep: 3 }] }),
    )
    expect(JSON.stringify(out?.properties)).toBe('{"list":[null,2],"items":[{"secret":1},{"keep":3}]}')
    expect(propertyFilter({ properties: 'list.length' })(event({ list: [1] }))?.properties).toEqual({ list: [1] })
  })

  it('takes the list as written: an empty name is the property "", and a path through text removes nothing but the rest goes', () => {
    expect(propertyFilter({ properties: 'a,,b' })(event({ '': 1, a: 2, c: 3 }))?.properties).toEqual({ c: 3 })
    expect(propertyFilter({ properties: 'a.b,secret' })(event({ a: 'x', secret: 1 }))?.properties).toEqual({ a: 'x' })
  })
})

describe('Downsampling', () => {
  it('reads the percentage as PostHog does, from the number the text starts with', () => {
    expect(samplingPercentage({ percentage: '50%' })).toBe(50)
    expect(samplingPercentage({ percentage: ' 12.5 ' })).toBe(12.5)
    expect(samplingPercentage({ percentage: '0x10' })).toBe(0)
    expect(samplingPercentage({})).toBe(100)
    for (const percentage of ['', 'half', '101', '-1']) expect(() => samplingPercentage({ percentage })).toThrow('between 0 and 100')
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

  it('skips the plugins an event lists already, and adds to its lists', () => {
    const ran: number[] = []
    const plugin = (id: number) =>
      loaded(id, (e) => {
        ran.push(id)
        return e
      })
    const outcome = runTransformations(event({ $plugins_succeeded: ['P (1)'], $plugins_failed: ['P (9)'] }), [plugin(1), plugin(2)], 1000)
    expect(ran).toEqual([2])
    expect(outcome.event?.properties).toMatchObject({ $plugins_succeeded: ['P (1)', 'P (2)'], $plugins_failed: ['P (9)'] })
  })
})
