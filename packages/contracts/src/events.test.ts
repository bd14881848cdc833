import { describe, expect, it } from 'vitest'
import { elementSchema, eventSchema, type ApiEvent, type Element } from './events'

const button: Element = {
  event: null,
  text: 'Buy',
  tag_name: 'button',
  attr_class: ['btn', 'primary'],
  href: null,
  attr_id: 'buy',
  nth_child: 2,
  nth_of_type: 1,
  attributes: { attr__class: 'btn primary', attr__id: 'buy' },
  order: 0,
}

const event: ApiEvent = {
  id: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f60',
  distinct_id: 'ann',
  properties: { $browser: 'Chrome', price: 10 },
  event: '$autocapture',
  timestamp: '2024-01-01T00:00:00.000Z',
  person: { is_identified: true, distinct_ids: ['ann'], properties: { email: 'ann@example.com' } },
  elements: [button],
  elements_chain: 'button.btn.primary:attr__id="buy"nth-child="2"nth-of-type="1"text="Buy"',
}

describe('an event as the API answers it', () => {
  it('carries exactly the fields of PostHog, dropping any other', () => {
    expect(eventSchema.parse({ ...event, team_id: 2, uuid: event.id })).toEqual(event)
  })

  it('has a person or null, never no person field', () => {
    expect(eventSchema.parse({ ...event, person: null }).person).toBeNull()
    const { person: _, ...withoutPerson } = event
    expect(eventSchema.safeParse(withoutPerson).error?.issues[0]?.path).toEqual(['person'])
  })

  it('refuses an element of the chain with a field of the wrong type, at its index', () => {
    expect(eventSchema.safeParse({ ...event, elements: [button, { ...button, nth_child: '2' }] }).error?.issues[0]?.path).toEqual([
      'elements',
      1,
      'nth_child',
    ])
  })

  it('keeps element attributes as text', () => {
    expect(elementSchema.safeParse({ ...button, attributes: { 'data-id': 3 } }).error?.issues[0]?.path).toEqual(['attributes', 'data-id'])
  })
})
