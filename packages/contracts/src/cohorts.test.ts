import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { cohortCreateSchema, cohortPersonCsvRow, cohortSchema, cohortUpdateSchema } from './cohorts'

/** The first problem a client is told of (the API answers with the first issue): where, and what. */
function firstProblem(schema: z.ZodType, input: unknown): { path: string; message: string } | undefined {
  const result = schema.safeParse(input)
  const issue = result.error?.issues[0]
  return issue && { path: issue.path.join('.'), message: issue.message }
}

/** A cohort body whose filters hold one condition, with `changes` applied to it. */
const withCondition = (changes: Record<string, unknown>) => ({
  filters: {
    properties: { type: 'AND', values: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com', ...changes }] },
  },
})

describe('cohort filters', () => {
  it('accepts nested AND/OR groups of person, cohort and behavioural conditions as given', () => {
    const body = {
      name: 'Active pros',
      filters: {
        properties: {
          type: 'OR',
          values: [
            {
              type: 'AND',
              values: [
                { key: 'plan', type: 'person', operator: 'exact', value: ['pro'] },
                { key: 3, type: 'cohort', value: 3, negation: true },
              ],
            },
            { key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day' },
          ],
        },
      },
    }
    expect(cohortCreateSchema.parse(body)).toEqual(body)
  })

  it('accepts a condition without an operator, or with a null one', () => {
    expect(cohortCreateSchema.safeParse(withCondition({ operator: undefined })).success).toBe(true)
    expect(cohortCreateSchema.safeParse(withCondition({ operator: null })).success).toBe(true)
  })

  it('refuses a condition with an empty key at the path of the key', () => {
    expect(firstProblem(cohortCreateSchema, withCondition({ key: '' }))?.path).toBe('filters.properties.values.0.key')
  })

  it('refuses a condition of an unknown type or operator at the path of the condition', () => {
    expect(firstProblem(cohortCreateSchema, withCondition({ type: 'event' }))?.path).toBe('filters.properties.values.0')
    expect(firstProblem(cohortCreateSchema, withCondition({ operator: 'contains' }))?.path).toBe('filters.properties.values.0')
    const nested = { filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'group' }] }] } } }
    expect(firstProblem(cohortCreateSchema, nested)?.path).toBe('filters.properties.values.0')
  })

  it('refuses a group that is neither AND nor OR', () => {
    expect(firstProblem(cohortCreateSchema, { filters: { properties: { type: 'XOR', values: [] } } })?.path).toBe('filters.properties.type')
  })

  it('accepts null filters, and keeps fields of filters it does not know', () => {
    expect(cohortCreateSchema.parse({ filters: null }).filters).toBeNull()
    expect(cohortCreateSchema.parse({ filters: { properties: { type: 'AND', values: [] }, source: 'ui' } }).filters).toEqual({
      properties: { type: 'AND', values: [] },
      source: 'ui',
    })
  })
})

describe('legacy cohort groups', () => {
  it('keeps a group of an event performed within some days, unknown fields included', () => {
    const groups = [
      { event_id: '$pageview', days: '7', count: 2, count_operator: 'gte', label: 'x' },
      { properties: [{ key: 'email', value: 'a' }] },
    ]
    expect(cohortCreateSchema.parse({ groups }).groups).toEqual(groups)
  })

  it('refuses a count operator other than gte, lte or eq at its path', () => {
    expect(firstProblem(cohortCreateSchema, { groups: [{ count_operator: 'gt' }] })?.path).toBe('groups.0.count_operator')
  })
})

describe('a cohort sent as a form (a static cohort upload)', () => {
  it('reads booleans and JSON sent as text', () => {
    const body = {
      is_static: 'true',
      deleted: 'false',
      groups: '[{"properties":[{"key":"email"}]}]',
      filters: 'null',
      csv: 'distinct_id\nann\n',
    }
    expect(cohortCreateSchema.parse(body)).toEqual({
      is_static: true,
      deleted: false,
      groups: [{ properties: [{ key: 'email' }] }],
      filters: null,
      csv: 'distinct_id\nann\n',
    })
  })

  it('takes JSON booleans and values as they are', () => {
    expect(cohortUpdateSchema.parse({ is_static: false, groups: [] })).toEqual({ is_static: false, groups: [] })
  })

  it('reads a form boolean as DRF does', () => {
    expect(cohortCreateSchema.parse({ is_static: 'true', deleted: '0' })).toMatchObject({ is_static: true, deleted: false })
    expect(cohortCreateSchema.parse({ is_static: 'yes' }).is_static).toBe(true)
  })

  it('refuses a boolean DRF would not read, and text that is not JSON where JSON is due', () => {
    expect(firstProblem(cohortCreateSchema, { is_static: 'maybe' })?.path).toBe('is_static')
    expect(firstProblem(cohortCreateSchema, { groups: '[{' })?.path).toBe('groups')
  })

  it('refuses an empty distinct id in the list of members, at its index', () => {
    expect(cohortCreateSchema.parse({ distinct_ids: ['ann', 'bob'] }).distinct_ids).toEqual(['ann', 'bob'])
    expect(firstProblem(cohortCreateSchema, { distinct_ids: ['ann', ''] })?.path).toBe('distinct_ids.1')
  })
})

describe('cohort fields', () => {
  it('accepts a null name and ignores fields that are not writable', () => {
    expect(cohortUpdateSchema.parse({ name: null, description: 'd', id: 9, count: 100, is_calculating: true })).toEqual({
      name: null,
      description: 'd',
    })
  })

  it('refuses a name past 400 characters and a description past 1000', () => {
    expect(firstProblem(cohortCreateSchema, { name: 'x'.repeat(401) })?.path).toBe('name')
    expect(firstProblem(cohortCreateSchema, { description: 'x'.repeat(1001) })?.path).toBe('description')
  })

  it('answers a cohort with exactly the fields of the spec', () => {
    const cohort = {
      id: 1,
      name: 'Pros',
      description: '',
      groups: [],
      deleted: false,
      filters: null,
      is_calculating: false,
      created_by: null,
      created_at: '2024-01-01T00:00:00Z',
      last_calculation: null,
      errors_calculating: 0,
      count: null,
      is_static: false,
    }
    expect(cohortSchema.parse({ ...cohort, team_id: 2 })).toEqual(cohort)
  })
})

describe('a cohort member as a CSV row', () => {
  const member = {
    type: 'person' as const,
    id: '0190-a',
    uuid: '0190-a',
    created_at: '2026-01-01T00:00:00Z',
    properties: { email: 'ann@acme.com', plan: 'pro' },
    is_identified: true,
    name: 'ann@acme.com',
    distinct_ids: Array.from({ length: 12 }, (_, i) => `d${i}`),
    matched_recordings: [],
    value_at_data_point: null,
  }

  it('lifts the email out of the properties, keeps ten distinct ids, and leaves out what only insights use', () => {
    expect(cohortPersonCsvRow(member)).toEqual({
      id: '0190-a',
      email: 'ann@acme.com',
      name: 'ann@acme.com',
      created_at: '2026-01-01T00:00:00Z',
      properties: { plan: 'pro' },
      distinct_ids: member.distinct_ids.slice(0, 10),
    })
  })

  it('has no email column for a member without one', () => {
    expect(cohortPersonCsvRow({ ...member, properties: { plan: 'pro' } })).not.toHaveProperty('email')
  })
})
