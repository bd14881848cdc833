import { randomUUID } from 'node:crypto'
import { EventDefinitionTracker } from '@burrow/core'
import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const DEFINITION_FIELDS = [
  'action_id',
  'created_at',
  'created_by',
  'description',
  'id',
  'is_action',
  'is_calculating',
  'last_calculated_at',
  'last_seen_at',
  'last_updated_at',
  'name',
  'owner',
  'post_to_chat',
  'query_usage_30_day',
  'tags',
  'updated_at',
  'updated_by',
  'verified',
  'verified_at',
  'verified_by',
  'volume_30_day',
]

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString()

type Definition = Record<string, any>

async function definitions(owner: TestAccount, query = ''): Promise<{ count: number; results: Definition[] }> {
  return (await service.api(owner, `/api/projects/${owner.projectId}/event_definitions/${query}`)).json()
}

describe('event definitions', () => {
  let byName: Map<string, Definition>
  const latestSignup = daysAgo(1)

  beforeAll(async () => {
    const batch = [
      { event: 'signed up', timestamp: daysAgo(40) },
      { event: 'signed up', timestamp: daysAgo(3) },
      { event: 'signed up', timestamp: latestSignup },
      { event: 'upgraded plan', timestamp: daysAgo(2) },
      { event: '$pageview', timestamp: daysAgo(1) },
    ].map((e, i) => ({ ...e, distinct_id: `u${i}` }))
    await service.post('/batch/', { api_key: account.projectToken, batch })
    await service.eventsOf(account, batch.length)
    const page = await waitFor(
      async () => {
        const p = await definitions(account)
        return p.count === 3 ? p : undefined
      },
      { what: 'three event definitions', timeoutMs: 10_000 },
    )
    byName = new Map(page.results.map((d) => [d.name, d]))
  })

  it('lists the events seen, by name, with every field and the 30-day volume computed from the events', async () => {
    const page = await definitions(account)
    expect(page.results.map((d) => d.name)).toEqual(['$pageview', 'signed up', 'upgraded plan'])
    const signup = byName.get('signed up')!
    expect(Object.keys(signup).sort()).toEqual(DEFINITION_FIELDS)
    expect(signup).toMatchObject({ volume_30_day: 2, verified: false, tags: [], description: '', owner: null, is_action: false })
    expect(Date.parse(signup.last_seen_at)).toBe(Date.parse(latestSignup))
    expect(byName.get('upgraded plan')!.volume_30_day).toBe(1)
  })

  it('searches by part of the name, case-insensitively, and paginates', async () => {
    const found = await definitions(account, '?search=SIGNED')
    expect(found.results.map((d) => d.name)).toEqual(['signed up'])
    const page = await definitions(account, '?limit=1&offset=1')
    expect(page).toMatchObject({ count: 3 })
    expect(page.results.map((d) => d.name)).toEqual(['signed up'])
    expect((await definitions(account, '?search=%25')).count).toBe(0)
  })

  it('splits a search into words, each of which the name must contain, as PostHog does', async () => {
    const search = async (text: string) => (await definitions(account, `?search=${encodeURIComponent(text)}`)).results.map((d) => d.name)
    expect(await search('up signed')).toEqual(['signed up'])
    expect(await search('  UP  ')).toEqual(['signed up', 'upgraded plan'])
    expect(await search('plan up')).toEqual(['upgraded plan'])
    expect(await search('plan signed')).toEqual([])
  })

  it('retrieves a definition by its uuid and answers 404 for unknown or malformed ids', async () => {
    const id = byName.get('upgraded plan')!.id
    const res = await service.api(account, `/api/projects/${account.projectId}/event_definitions/${id}/`)
    expect(res.status).toBe(200)
    expect((await res.json()).name).toBe('upgraded plan')
    for (const bad of [randomUUID(), 'nope']) {
      expect((await service.api(account, `/api/projects/${account.projectId}/event_definitions/${bad}/`)).status).toBe(404)
    }
    const other = await service.account()
    expect((await service.api(other, `/api/projects/${other.projectId}/event_definitions/${id}/`)).status).toBe(404)
  })

  it('updates description, tags, owner and post_to_chat but never the name, recording who updated', async () => {
    const id = byName.get('upgraded plan')!.id
    const res = await service.api(account, `/api/projects/${account.projectId}/event_definitions/${id}/`, {
      method: 'PATCH',
      body: JSON.stringify({
        name: 'renamed',
        description: 'A paid plan was chosen',
        tags: ['billing', 'billing', 'growth'],
        owner: account.userId,
        post_to_chat: true,
        volume_30_day: 999,
      }),
    })
    expect(res.status).toBe(200)
    const updated = await res.json()
    expect(updated).toMatchObject({
      name: 'upgraded plan',
      description: 'A paid plan was chosen',
      tags: ['billing', 'growth'],
      owner: account.userId,
      post_to_chat: true,
      volume_30_day: 1,
      updated_by: { id: account.userId },
    })
    expect(Date.parse(updated.last_updated_at)).toBeGreaterThan(Date.parse(updated.created_at))
  })

  it('verifies with verified_at and verified_by, and unverifying clears them', async () => {
    const id = byName.get('signed up')!.id
    const path = `/api/projects/${account.projectId}/event_definitions/${id}/`
    const verified = await (await service.api(account, path, { method: 'PATCH', body: '{"verified":true}' })).json()
    expect(verified).toMatchObject({ verified: true, verified_by: { id: account.userId } })
    expect(Date.now() - Date.parse(verified.verified_at)).toBeLessThan(60_000)
    const again = await (await service.api(account, path, { method: 'PATCH', body: '{"verified":true}' })).json()
    expect(again.verified_at).toBe(verified.verified_at)
    const unverified = await (await service.api(account, path, { method: 'PATCH', body: '{"verified":false}' })).json()
    expect(unverified).toMatchObject({ verified: false, verified_at: null, verified_by: null })
  })

  it.each([
    ['an owner outside the organization', { owner: 999999 }, 'owner', undefined],
    ['tags that are not a list', { tags: 'billing' }, 'tags', 'not_a_list'],
    ['verified that DRF does not read as a boolean', { verified: 'maybe' }, 'verified', 'invalid_input'],
  ])('answers 400 validation_error for %s', async (_name, body, attr, code) => {
    const id = byName.get('$pageview')!.id
    const res = await service.api(account, `/api/projects/${account.projectId}/event_definitions/${id}/`, {
      method: 'PATCH',
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', attr, ...(code ? { code } : {}) })
  })
})

describe('event definitions beside a project deleted while its events were on their way', () => {
  it("drops the deleted project's names and keeps recording every other project's", async () => {
    const gone = await service.account()
    const tracker = new EventDefinitionTracker(service.app.deps)
    tracker.record(gone.projectId, 'sent before the deletion', Date.now())
    expect((await service.api(gone, `/api/projects/${gone.projectId}/`, { method: 'DELETE' })).status).toBe(204)
    tracker.record(account.projectId, 'seen beside a deleted project', Date.now())
    await tracker.flush()
    tracker.record(account.projectId, 'seen after it', Date.now())
    await tracker.flush()
    const names = (await definitions(account, '?search=seen')).results.map((d) => d.name)
    expect(names).toEqual(expect.arrayContaining(['seen beside a deleted project', 'seen after it']))
  })

  it('drops sightings the database refuses for their content, so that later flushes are written', async () => {
    const tracker = new EventDefinitionTracker(service.app.deps)
    tracker.record(2 ** 40, 'of a project id no column holds', Date.now())
    await expect(tracker.flush()).rejects.toMatchObject({ code: '22003' })
    tracker.record(account.projectId, 'written after a refused flush', Date.now())
    await tracker.flush()
    expect((await definitions(account, '?search=refused')).results.map((d) => d.name)).toEqual(['written after a refused flush'])
  })
})
