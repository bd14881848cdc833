import { describe, expect, it } from 'vitest'
import { withoutPersonalKey } from './credentials'
import type { RawEvent } from './payload'

const KEY = 'phx_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG'

describe('withoutPersonalKey', () => {
  it('removes the key from every field at every depth, $set and $set_once included, and keeps the rest', () => {
    const event: RawEvent = {
      event: 'e',
      distinct_id: 'd',
      token: KEY,
      note: KEY,
      $set: { k: KEY, plan: 'pro' },
      $set_once: { first: KEY },
      properties: {
        kept: 'yes',
        $set: { k: KEY, email: 'a@example.com' },
        $set_once: { nested: { again: KEY } },
        nested: { deep: { deeper: [1, KEY, { k: KEY, n: 2 }, 'x'] } },
        url: `https://example.com/?personal_api_key=${KEY}`,
        [KEY]: 'named with the key',
      },
    }
    withoutPersonalKey([event], KEY)
    expect(event).toEqual({
      event: 'e',
      distinct_id: 'd',
      $set: { plan: 'pro' },
      $set_once: {},
      properties: {
        kept: 'yes',
        $set: { email: 'a@example.com' },
        $set_once: { nested: {} },
        nested: { deep: { deeper: [1, { n: 2 }, 'x'] } },
      },
    })
    expect(JSON.stringify(event)).not.toContain(KEY)
  })

  it('changes events without the key in no way, and leaves them the same objects', () => {
    const properties = { a: 1, list: ['x', { y: 'z' }], $set: { email: 'a@example.com' } }
    const event: RawEvent = { event: 'e', distinct_id: 'd', properties }
    const before = structuredClone(event)
    const events = [event]
    withoutPersonalKey(events, KEY)
    expect(events[0]).toBe(event)
    expect(event.properties).toBe(properties)
    expect(event).toEqual(before)
  })

  it('leaves events sent with a project API key untouched, a personal key among their properties included', () => {
    const event: RawEvent = { event: 'e', token: 'phc_project', properties: { token: 'phc_project', pasted: KEY } }
    const before = structuredClone(event)
    withoutPersonalKey([event], 'phc_project')
    withoutPersonalKey([event], undefined)
    expect(event).toEqual(before)
  })
})
