import { NIL_UUID } from '@burrow/clickhouse'
import { describe, expect, it } from 'vitest'
import { encodeEvent, rowStarts, rowTimestampMs, setPersonIds } from './eventRow'
import type { DraftEvent } from './pipeline'

function draft(fields: Partial<DraftEvent>): DraftEvent {
  return {
    raw: {},
    input: {},
    name: 'e',
    distinctId: 'd',
    properties: {},
    uuid: '0190f0a2-1c5d-7e4b-9d2a-3f1e5b7c9d01',
    timestampUs: 0,
    elementsChain: '',
    person: 'd',
    ...fields,
  }
}

describe('encoded event rows', () => {
  // Properties are written as the object itself, so their keys appear unescaped in the row.
  const tricky = draft({
    name: 'say "timestamp":"1999-01-01 00:00:00.000000"',
    distinctId: 'user "person_id"',
    timestampUs: Date.UTC(2024, 4, 1, 12, 30) * 1000 + 123_456,
    properties: { timestamp: '2001-02-03 04:05:06.000000', person_id: 'x"}', nested: { quote: '"', newline: '\n' } },
  })
  const other = draft({ timestampUs: Date.UTC(2023, 0, 1) * 1000 })
  const body = Buffer.from(encodeEvent(tricky, 7, '2024-05-01 12:31:00.000000') + encodeEvent(other, 7, '2024-05-01 12:31:00.000000'))

  it('are JSON lines with the properties as an object', () => {
    const [first] = body
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(first).toMatchObject({
      event: tricky.name,
      distinct_id: tricky.distinctId,
      team_id: 7,
      timestamp: '2024-05-01 12:30:00.123456',
      person_id: NIL_UUID,
    })
    expect(first.properties).toEqual(tricky.properties)
  })

  it("give each row's own timestamp, whatever its properties hold", () => {
    const [a, b] = rowStarts(body, 2)
    expect(rowTimestampMs(body, a!)).toBe(Date.UTC(2024, 4, 1, 12, 30, 0, 123))
    expect(rowTimestampMs(body, b!)).toBe(Date.UTC(2023, 0, 1))
  })

  it('take person ids in place without touching the rest of the row', () => {
    const copy = Buffer.from(body)
    setPersonIds(copy, ['11111111-2222-3333-4444-555555555555', undefined])
    const [first, second] = copy
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(first.person_id).toBe('11111111-2222-3333-4444-555555555555')
    expect(first.properties).toEqual(tricky.properties)
    expect(second.person_id).toBe(NIL_UUID)
  })
})
