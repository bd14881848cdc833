import { describe, expect, it } from 'vitest'
import { dateToHogQL } from './dates'
import { hogqlIdentifier, hogqlString } from './hogqlText'
import { parseHogQL } from './parser'
import { propertyFilterToHogQL } from './propertyFilters'

const NASTY = [
  "it's",
  'back\\slash',
  'line\nbreak',
  'tab\there',
  'nul\0byte',
  "'); DROP TABLE events; --",
  'tick`tock',
  '{placeholder}',
  '😀 é',
]

describe('text the service writes into HogQL', () => {
  it.each(NASTY)('a string reads back as itself: %j', async (value) => {
    const ast = await parseHogQL(hogqlString(value), 'expr')
    expect(ast).toMatchObject({ node: 'Constant', value })
  })

  it.each(NASTY)('a property key reads back as one field: %j', async (key) => {
    const ast = await parseHogQL(`properties.${hogqlIdentifier(key)}`, 'expr')
    expect(ast).toMatchObject({ node: 'Field', chain: ['properties', key] })
  })

  it('a filter value cannot become SQL: it stays one constant', async () => {
    const text = propertyFilterToHogQL({ key: 'plan', value: "x') OR (1 = 1", operator: 'exact', type: 'event' }, 'properties__0')
    const ast = await parseHogQL(text, 'expr')
    expect(ast).toMatchObject({ node: 'Call', name: 'equals', args: [{ node: 'Field' }, { node: 'Constant', value: "x') OR (1 = 1" }] })
  })

  it('refuses an operator PostHog does not have, naming the filter', () => {
    expect(() => propertyFilterToHogQL({ key: 'plan', value: 1, operator: 'near' }, 'properties__3')).toThrow(
      expect.objectContaining({ body: expect.objectContaining({ attr: 'properties__3' }) }) as Error,
    )
  })
})

describe('dates of an EventsQuery', () => {
  const now = new Date('2026-03-10T12:00:00Z')

  it('counts hours back from now, and days back to the start of the day', () => {
    expect(dateToHogQL('-24h', now, 'after')).toBe("minus(toDateTime('2026-03-10T12:00:00.000Z'), toIntervalHour(24))")
    expect(dateToHogQL('-7d', now, 'after')).toBe("toStartOfDay(minus(toDateTime('2026-03-10T12:00:00.000Z'), toIntervalDay(7)))")
  })

  it('takes dates and ISO times as they are', () => {
    expect(dateToHogQL('2026-01-31', now, 'after')).toBe("toDateTime('2026-01-31')")
    expect(dateToHogQL('2026-01-31T10:00:00+02:00', now, 'after')).toBe("toDateTime('2026-01-31T10:00:00+02:00')")
  })

  it.each(['yesterday', "2026-01-01') OR (1", '-d', ''])('refuses %j with a 400 naming the field', (text) => {
    expect(() => dateToHogQL(text, now, 'before')).toThrow(
      expect.objectContaining({ status: 400, body: expect.objectContaining({ attr: 'before' }) }) as Error,
    )
  })
})
