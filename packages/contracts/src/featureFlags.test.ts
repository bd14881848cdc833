import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { featureFlagCreateSchema, featureFlagUpdateSchema, flagFiltersSchema } from './featureFlags'

/** Every problem a schema finds, as paths and messages (the API answers with the first). */
function problems(schema: z.ZodType, input: unknown): { path: string; message: string }[] {
  return (schema.safeParse(input).error?.issues ?? []).map((issue) => ({ path: issue.path.join('.'), message: issue.message }))
}

/** A flag whose one release condition holds `properties`. */
const flagWith = (properties: Record<string, unknown>[], filters: Record<string, unknown> = {}) => ({
  key: 'new-checkout',
  filters: { groups: [{ properties, rollout_percentage: 50 }], ...filters },
})

/** The message of the one problem found in a flag whose condition holds `property`. */
const propertyProblem = (property: Record<string, unknown>) => problems(featureFlagCreateSchema, flagWith([property]))

describe('the key of a flag', () => {
  it('is required to create a flag, not to update one', () => {
    expect(featureFlagCreateSchema.parse({ key: 'new-checkout_2' })).toEqual({ key: 'new-checkout_2' })
    expect(problems(featureFlagCreateSchema, { name: 'Checkout' })[0]?.path).toBe('key')
    expect(featureFlagUpdateSchema.parse({ active: false })).toEqual({ active: false })
  })

  it('may only hold letters, numbers, hyphens and underscores', () => {
    expect(problems(featureFlagCreateSchema, { key: 'new checkout' })).toEqual([
      { path: 'key', message: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.' },
    ])
    expect(problems(featureFlagCreateSchema, { key: '' })[0]?.path).toBe('key')
    expect(problems(featureFlagCreateSchema, { key: 'a'.repeat(401) })[0]?.path).toBe('key')
  })
})

describe('release conditions', () => {
  it('keep every field they are given, known or not', () => {
    const body = flagWith([{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person', extra: 1 }], { other: 3 })
    expect(featureFlagCreateSchema.parse(body)).toEqual(body)
  })

  it('turn a numeric property key into text', () => {
    const parsed = featureFlagCreateSchema.parse(flagWith([{ key: 5, value: 'x' }]))
    expect(parsed.filters?.groups?.[0]?.properties?.[0]?.key).toBe('5')
  })

  it('accept null properties and rollout', () => {
    expect(
      featureFlagCreateSchema.safeParse({ key: 'f', filters: { groups: [{ properties: null, rollout_percentage: null }] } }).success,
    ).toBe(true)
  })

  it("accept the flag-only operators besides PostHog's property operators", () => {
    for (const operator of ['in', 'not_in', 'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with', 'exact', 'is_not_set']) {
      expect(propertyProblem({ key: 'a', operator, value: ['x'] })).toEqual([])
    }
  })

  it('refuse an unknown operator or property type at its path, quoting it', () => {
    expect(propertyProblem({ key: 'a', operator: 'contains', value: 'x' })).toEqual([
      { path: 'filters.groups.0.properties.0.operator', message: '"contains" is not a valid operator.' },
    ])
    expect(propertyProblem({ key: 'a', type: 'event', value: 'x' })).toEqual([
      { path: 'filters.groups.0.properties.0.type', message: '"event" is not a valid property type.' },
    ])
  })

  it('refuse a rollout outside 0 to 100', () => {
    expect(problems(featureFlagCreateSchema, { key: 'f', filters: { groups: [{ rollout_percentage: 101 }] } })[0]?.path).toBe(
      'filters.groups.0.rollout_percentage',
    )
    expect(problems(featureFlagCreateSchema, { key: 'f', filters: { groups: [{ rollout_percentage: -1 }] } })[0]?.path).toBe(
      'filters.groups.0.rollout_percentage',
    )
  })

  it('want a number for gt, gte, lt and lte, text that reads as one included', () => {
    expect(propertyProblem({ key: 'age', operator: 'gt', value: '18' })).toEqual([])
    expect(propertyProblem({ key: 'age', operator: 'lte', value: 18 })).toEqual([])
    expect(propertyProblem({ key: 'age', operator: 'gt', value: 'old' })).toEqual([
      { path: 'filters', message: 'The value of "age" must be a number for the "gt" operator.' },
    ])
  })

  it('want a date, or a relative one such as -7d, for the date operators', () => {
    expect(propertyProblem({ key: 'joined', operator: 'is_date_before', value: '2024-01-31' })).toEqual([])
    expect(propertyProblem({ key: 'joined', operator: 'is_date_after', value: '-7d' })).toEqual([])
    expect(propertyProblem({ key: 'joined', operator: 'is_date_exact', value: 'yesterday' })).toEqual([
      { path: 'filters', message: 'The value of "joined" is not a date.' },
    ])
    // PostHog reads no relative date of 10,000 units or more.
    expect(propertyProblem({ key: 'joined', operator: 'is_date_after', value: '10000d' })).toEqual([
      { path: 'filters', message: 'The value of "joined" is not a date.' },
    ])
    expect(propertyProblem({ key: 'joined', operator: 'is_date_after', value: '9999d' })).toEqual([])
  })

  it('want a valid regular expression for regex and not_regex', () => {
    expect(propertyProblem({ key: 'email', operator: 'regex', value: '@example\\.com$' })).toEqual([])
    expect(propertyProblem({ key: 'email', operator: 'not_regex', value: '(' })).toEqual([
      { path: 'filters', message: 'The value of "email" is not a valid regular expression.' },
    ])
  })

  it('want a group aggregation for group properties', () => {
    const property = { key: 'industry', type: 'group', group_type_index: 0, value: 'tech' }
    expect(propertyProblem(property)).toEqual([{ path: 'filters', message: 'Group properties need a group aggregation.' }])
    expect(problems(featureFlagCreateSchema, flagWith([property], { aggregation_group_type_index: 0 }))).toEqual([])
    expect(problems(featureFlagCreateSchema, { key: 'f', filters: { aggregation_group_type_index: 5 } })[0]?.path).toBe(
      'filters.aggregation_group_type_index',
    )
  })
})

describe('variants', () => {
  const variants = (...list: [string, number][]) => ({
    multivariate: { variants: list.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) },
  })

  it('accept variants whose rollouts sum to 100, with payloads and overrides naming them', () => {
    const filters = {
      ...variants(['control', 33.3], ['test', 66.7]),
      payloads: { control: '{"a":1}' },
      groups: [{ variant: 'test', rollout_percentage: 10 }],
    }
    expect(problems(flagFiltersSchema, filters)).toEqual([])
  })

  it('refuse rollouts that do not sum to 100, and repeated keys', () => {
    expect(problems(flagFiltersSchema, variants(['a', 50], ['b', 40]))).toEqual([
      { path: '', message: 'Invalid variant definitions: Variant rollout percentages must sum to 100.' },
    ])
    expect(problems(flagFiltersSchema, variants(['a', 50], ['a', 50]))).toEqual([
      { path: '', message: 'Invalid variant definitions: variant keys must be unique.' },
    ])
  })

  it('refuse an empty list and a key with other characters', () => {
    expect(problems(flagFiltersSchema, variants())[0]?.path).toBe('multivariate.variants')
    expect(problems(flagFiltersSchema, variants(['a b', 100]))).toEqual([
      { path: 'multivariate.variants.0.key', message: 'Variant keys may only contain letters, numbers, hyphens and underscores.' },
    ])
  })

  it('refuse an override naming no variant', () => {
    expect(problems(flagFiltersSchema, { ...variants(['a', 100]), groups: [{ variant: 'b' }] })).toEqual([
      { path: '', message: 'Filters are not valid (variant override "b" does not exist)' },
    ])
  })

  it('list every problem of the filters, not only the first', () => {
    expect(problems(flagFiltersSchema, { ...variants(['a', 10]), groups: [{ variant: 'z' }] }).map((p) => p.message)).toEqual([
      'Invalid variant definitions: Variant rollout percentages must sum to 100.',
      'Filters are not valid (variant override "z" does not exist)',
    ])
  })
})

describe('payloads', () => {
  it('belong to "true" for a flag without variants, and may be JSON text or JSON', () => {
    expect(problems(flagFiltersSchema, { payloads: { true: '{"a":1}' } })).toEqual([])
    expect(problems(flagFiltersSchema, { payloads: { true: { a: 1 } } })).toEqual([])
  })

  it('are refused for a value the flag does not have, or as text that is not JSON', () => {
    expect(problems(flagFiltersSchema, { payloads: { control: '1' } })).toEqual([
      { path: '', message: 'Payload key "control" names no value of the flag.' },
    ])
    expect(problems(flagFiltersSchema, { payloads: { true: '{' } })).toEqual([
      { path: '', message: 'The payload of "true" is not valid JSON.' },
    ])
  })

  it('name the path of the filters when checked as part of a flag', () => {
    expect(problems(featureFlagCreateSchema, { key: 'f', filters: { payloads: { control: '1' } } })[0]?.path).toBe('filters')
  })
})
