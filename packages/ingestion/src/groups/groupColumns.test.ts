import { encodeEvent } from '@burrow/capture'
import { encodeFrame, readFrame, type PersonIntent } from '@burrow/spool'
import { describe, expect, it } from 'vitest'
import { withGroupColumns } from './groupColumns'

const row = (properties: Record<string, unknown>, distinctId = 'u') =>
  encodeEvent(
    {
      uuid: '01890000-0000-7000-8000-000000000000',
      name: 'e',
      distinctId,
      properties,
      timestampUs: Date.UTC(2025, 0, 1) * 1000,
      elementsChain: '',
    } as never,
    1,
    '2025-01-01 00:00:00.000000',
  )

const propertiesOf = (line: string) => (JSON.parse(line) as { properties: Record<string, unknown> }).properties

describe('group properties written into encoded rows', () => {
  const mapping = new Map([
    ['company', 0],
    ['project', 1],
  ])

  it('adds $group_<index> for each group of a known type and leaves other rows as they were', () => {
    const body = Buffer.from(row({ $groups: { company: 'acme', project: 42, other: 'x' } }) + row({ a: 1 }, '"properties":{'))
    const intents: PersonIntent[] = [{ distinctId: 'u', groups: { company: '"acme"', project: '42', other: '"x"' } }, 'u']
    const lines = withGroupColumns(body, intents, mapping).toString().split('\n')
    expect(propertiesOf(lines[0]!)).toEqual({ $group_0: 'acme', $group_1: 42, $groups: { company: 'acme', project: 42, other: 'x' } })
    expect(lines[1]).toBe(row({ a: 1 }, '"properties":{').trimEnd())
  })

  it('answers the same buffer when no row has a group of a known type', () => {
    const body = Buffer.from(row({ $groups: { other: 'x' } }))
    expect(withGroupColumns(body, [{ distinctId: 'u', groups: { other: '"x"' } }], mapping)).toBe(body)
  })

  it('writes into empty properties without a trailing comma', () => {
    const lines = withGroupColumns(Buffer.from(row({})), [{ distinctId: 'u', groups: { company: '"a\\"b"' } }], mapping).toString()
    expect(propertiesOf(lines.split('\n')[0]!)).toEqual({ $group_0: 'a"b' })
  })

  it('keeps the groups and the group a $groupidentify sets through the spool frame', () => {
    const intent: PersonIntent = {
      distinctId: 'u',
      groups: { company: '"acme"' },
      groupSet: { type: 'company', key: 'acme', set: { n: 1 } },
    }
    const frame = encodeFrame([row({})], [], 1, [intent])
    const read = readFrame(frame.bytes)
    expect(read.kind === 'frame' ? read.content.persons : undefined).toEqual([intent])
  })
})
