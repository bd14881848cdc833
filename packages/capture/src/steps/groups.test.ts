import { describe, expect, it } from 'vitest'
import { runPipeline, type RequestContext } from '../pipeline'
import { INGESTION_STEPS } from './index'

const ctx: RequestContext = { project: { id: 1, anonymizeIps: false }, ip: '203.0.113.9', nowMs: Date.UTC(2025, 5, 1), sentAtMs: undefined }

function intentOf(raw: Record<string, unknown>) {
  const outcome = runPipeline(INGESTION_STEPS, raw, ctx)
  if (outcome.kind !== 'ok') throw new Error(`expected the event to pass, got ${JSON.stringify(outcome)}`)
  return outcome.event.person
}

describe('what an event asks of its groups', () => {
  it('carries the groups of $groups with their keys as the event sent them, as JSON', () => {
    expect(intentOf({ event: 'e', distinct_id: 'u', properties: { $groups: { company: 'acme', project: 42 } } })).toMatchObject({
      distinctId: 'u',
      groups: { company: '"acme"', project: '42' },
    })
  })

  it('leaves an event without groups, or with keys no group can have, as a plain distinct id', () => {
    expect(intentOf({ event: 'e', distinct_id: 'u' })).toBe('u')
    const odd = intentOf({ event: 'e', distinct_id: 'u', properties: { $groups: { company: null, team: { a: 1 }, site: '' } } })
    expect(typeof odd === 'string' ? undefined : odd.groups).toBeUndefined()
  })

  it('reads a $groupidentify: the group, the properties it sets, and its own group for $group_<index>', () => {
    const intent = intentOf({
      event: '$groupidentify',
      distinct_id: '$company_acme',
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } },
    })
    expect(intent).toMatchObject({ groupSet: { type: 'company', key: 'acme', set: { name: 'Acme' } }, groups: { company: '"acme"' } })
  })

  it('reads a numeric group key as text, and a $groupidentify without $group_set sets nothing', () => {
    const intent = intentOf({ event: '$groupidentify', distinct_id: 'd', properties: { $group_type: 'project', $group_key: 7 } })
    expect(intent).toMatchObject({ groupSet: { type: 'project', key: '7', set: {} } })
  })

  it('ignores a $groupidentify without a type or key', () => {
    const intent = intentOf({ event: '$groupidentify', distinct_id: 'd', properties: { $group_type: 'company' } })
    expect(typeof intent === 'string' ? undefined : intent.groupSet).toBeUndefined()
  })
})
