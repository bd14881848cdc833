import { describe, expect, it } from 'vitest'
import { personDeleteQuerySchema, personSchema, personsListQuerySchema, type Person } from './persons'

const person: Person = {
  id: 1,
  uuid: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f60',
  name: 'ann@example.com',
  distinct_ids: ['ann', 'anon-1'],
  properties: { email: 'ann@example.com' },
  is_identified: true,
  created_at: '2024-01-01T00:00:00Z',
}

describe('deleting a person', () => {
  it('keeps the events unless delete_events asks otherwise', () => {
    expect(personDeleteQuerySchema.parse({})).toEqual({ delete_events: false })
  })

  it('reads delete_events from the query string as true/false or 1/0', () => {
    expect(personDeleteQuerySchema.parse({ delete_events: 'true' }).delete_events).toBe(true)
    expect(personDeleteQuerySchema.parse({ delete_events: '1' }).delete_events).toBe(true)
    expect(personDeleteQuerySchema.parse({ delete_events: true }).delete_events).toBe(true)
    expect(personDeleteQuerySchema.parse({ delete_events: 'false' }).delete_events).toBe(false)
    expect(personDeleteQuerySchema.parse({ delete_events: '0' }).delete_events).toBe(false)
  })

  it('refuses any other spelling rather than guessing', () => {
    expect(personDeleteQuerySchema.safeParse({ delete_events: 'yes' }).error?.issues[0]?.path).toEqual(['delete_events'])
  })
})

describe('listing persons', () => {
  it('takes search, distinct_id and the properties filter as given, ignoring other parameters', () => {
    const query = { search: 'ann', distinct_id: 'anon-1', properties: '[{"key":"email","value":"ann@example.com"}]' }
    expect(personsListQuerySchema.parse({ ...query, format: 'csv' })).toEqual(query)
  })
})

describe('a person as the API answers it', () => {
  it('carries exactly the fields of PostHog, dropping any other', () => {
    expect(personSchema.parse({ ...person, team_id: 2, version: 3 })).toEqual(person)
  })

  it('is refused without one of them', () => {
    const { is_identified: _, ...incomplete } = person
    expect(personSchema.safeParse(incomplete).error?.issues[0]?.path).toEqual(['is_identified'])
  })
})
