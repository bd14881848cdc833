import { describe, expect, it } from 'vitest'
import { eventsQuerySchema, hogQLQuerySchema } from './hogql'

describe('HogQLQuery and EventsQuery bodies', () => {
  it('takes PostHog clients’ bodies as they send them', () => {
    expect(hogQLQuerySchema.safeParse({ kind: 'HogQLQuery', query: 'SELECT 1', values: { a: [1, 'x'] } }).success).toBe(true)
    expect(
      eventsQuerySchema.safeParse({ kind: 'EventsQuery', select: ['*', 'person'], orderBy: ['timestamp DESC'], after: '-24h', limit: 100 })
        .success,
    ).toBe(true)
  })

  it('bounds every size a client chooses', () => {
    const tooMuch = [
      hogQLQuerySchema.safeParse({ kind: 'HogQLQuery', query: 'x'.repeat(65_537) }),
      hogQLQuerySchema.safeParse({ kind: 'HogQLQuery', query: '' }),
      eventsQuerySchema.safeParse({ kind: 'EventsQuery', select: ['event'], limit: 50_001 }),
      eventsQuerySchema.safeParse({ kind: 'EventsQuery', select: Array.from({ length: 101 }, () => 'event') }),
      eventsQuerySchema.safeParse({
        kind: 'EventsQuery',
        select: ['event'],
        properties: Array.from({ length: 101 }, () => ({ key: 'k' })),
      }),
    ]
    for (const result of tooMuch) expect(result.success).toBe(false)
  })
})
