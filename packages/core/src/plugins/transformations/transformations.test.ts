import { describe, expect, it } from 'vitest'
import type { PluginEvent } from './event'
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

describe('Property Filter', () => {
  it('removes top-level and nested properties, and ignores paths that are not there', () => {
    const out = propertyFilter({ properties: 'a.b,d,missing.x,a.c.z' })(event({ a: { b: 1, c: 2 }, d: 3 }))
    expect(out?.properties).toEqual({ a: { c: 2 } })
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
