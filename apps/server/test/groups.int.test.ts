import { waitFor, type TestAccount } from '@burrow/testing'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
useTestService((s) => {
  service = s
})

type Group = { group_type_index: number; group_key: string; group_properties: Record<string, unknown>; created_at: string }

async function send(account: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await service.post('/batch/', { api_key: account.projectToken, batch })
  expect(res.status).toBe(200)
}

async function get(account: TestAccount, path: string): Promise<{ status: number; body: any }> {
  const res = await service.api(account, `/api/projects/${account.projectId}${path}`)
  return { status: res.status, body: await res.json() }
}

/** The group once it is stored and `ready` holds for it. */
function groupOnce(account: TestAccount, typeIndex: number, key: string, ready: (g: Group) => boolean = () => true): Promise<Group> {
  return waitFor(
    async () => {
      const { status, body } = await get(account, `/groups/find?group_type_index=${typeIndex}&group_key=${encodeURIComponent(key)}`)
      return status === 200 && ready(body as Group) ? (body as Group) : undefined
    },
    { what: `group ${typeIndex}/${key}`, timeoutMs: 15_000 },
  )
}

const groupIdentify = (type: string, key: string | number, set: Record<string, unknown>, timestamp?: string) => ({
  event: '$groupidentify',
  distinct_id: `$${type}_${key}`,
  properties: { $group_type: type, $group_key: key, $group_set: set },
  ...(timestamp ? { timestamp } : {}),
})

describe('groups from events', () => {
  let account: TestAccount
  beforeAll(async () => {
    account = await service.account()
  })

  it('$groupidentify creates a group as old as its event and later ones set properties over it', async () => {
    await send(account, [groupIdentify('company', 'acme', { name: 'Acme', plan: 'free' }, '2026-01-02T03:04:05.000Z')])
    const created = await groupOnce(account, 0, 'acme')
    expect(created).toEqual({
      group_type_index: 0,
      group_key: 'acme',
      group_properties: { name: 'Acme', plan: 'free' },
      created_at: '2026-01-02T03:04:05.000Z',
      notebook: null,
    })
    await send(account, [groupIdentify('company', 'acme', { plan: 'paid', seats: 12 })])
    const updated = await groupOnce(account, 0, 'acme', (g) => g.group_properties.plan === 'paid')
    expect(updated.group_properties).toEqual({ name: 'Acme', plan: 'paid', seats: 12 })
    expect(updated.created_at).toBe('2026-01-02T03:04:05.000Z')
  })

  it('gives each group type its index, lists them as groups_types, and lists and finds groups by type', async () => {
    await send(account, [groupIdentify('company', 'globex', { name: 'Globex' }), groupIdentify('project', 42, { name: 'Rocket' })])
    await groupOnce(account, 1, '42')
    await groupOnce(account, 0, 'globex')
    const types = await get(account, '/groups_types/')
    expect(types.status).toBe(200)
    expect(types.body).toEqual([
      expect.objectContaining({
        group_type: 'company',
        group_type_index: 0,
        name_singular: null,
        name_plural: null,
        detail_dashboard: null,
      }),
      expect.objectContaining({ group_type: 'project', group_type_index: 1 }),
    ])
    const companies = await get(account, '/groups/?group_type_index=0')
    expect(companies.status).toBe(200)
    expect(companies.body.results.map((g: Group) => g.group_key).sort()).toEqual(['acme', 'globex'])
    const searched = await get(account, '/groups/?group_type_index=0&search=glob')
    expect(searched.body.results.map((g: Group) => g.group_key)).toEqual(['globex'])
    const byKey = await get(account, '/groups/?group_type_index=1&group_key=4')
    expect(byKey.body.results).toEqual([expect.objectContaining({ group_key: '42', group_properties: { name: 'Rocket' } })])
  })

  it('counts group property keys per type from the copy in ClickHouse', async () => {
    await groupOnce(account, 0, 'acme', (g) => g.group_properties.plan === 'paid')
    const definitions = await waitFor(
      async () => {
        const { body } = await get(account, '/groups/property_definitions/')
        return body['1'] && body['0']?.length === 3 ? body : undefined
      },
      { what: 'group property definitions', timeoutMs: 15_000 },
    )
    expect(definitions['0']).toEqual([
      { name: 'name', count: 2 },
      { name: 'plan', count: 1 },
      { name: 'seats', count: 1 },
    ])
    expect(definitions['1']).toEqual([{ name: 'name', count: 1 }])
    const values = await get(account, '/groups/property_values/?group_type_index=0&key=name')
    expect(values.body).toEqual({
      results: [
        { name: 'Acme', count: 1 },
        { name: 'Globex', count: 1 },
      ],
      refreshing: false,
    })
    const noKey = await get(account, '/groups/property_values/?group_type_index=0')
    expect(noKey.status).toBe(400)
    expect(noKey.body).toMatchObject({ attr: 'key', detail: 'This query parameter is required.' })
  })

  it('gives an event with $groups the key of each group under $group_<index>', async () => {
    await send(account, [
      { event: 'clicked', distinct_id: 'member-1', properties: { $groups: { company: 'acme', project: 42, team: 'blue' } } },
    ])
    const [event] = await service.eventsOf(account, 1, '&event=clicked')
    // `team` is the third type, registered by this event: index 2.
    expect(event!.properties).toMatchObject({ $group_0: 'acme', $group_1: 42, $group_2: 'blue' })
    const filtered = await get(
      account,
      `/events/?event=clicked&properties=${encodeURIComponent(JSON.stringify([{ key: '$group_2', value: 'blue', type: 'event' }]))}`,
    )
    expect(filtered.body.results).toHaveLength(1)
    // And the events table's group columns, as PostHog's, hold the keys as text.
    const result = await service.app.deps.ch.reader.query({
      query:
        'SELECT `$group_0` AS g0, `$group_1` AS g1, `$group_2` AS g2, `$group_3` AS g3 FROM events WHERE team_id = {team:Int64} AND event = {event:String}',
      query_params: { team: account.projectId, event: 'clicked' },
      format: 'JSONEachRow',
    })
    expect(await result.json()).toEqual([{ g0: 'acme', g1: '42', g2: 'blue', g3: '' }])
  })

  it("names group types and sets their default columns, as PostHog's update_metadata and set_default_columns", async () => {
    const patch = await service.api(account, `/api/projects/${account.projectId}/groups_types/update_metadata`, {
      method: 'PATCH',
      body: JSON.stringify([{ group_type_index: 0, name_singular: 'Company', name_plural: 'Companies' }]),
    })
    expect(patch.status).toBe(200)
    expect(await patch.json()).toEqual(
      expect.arrayContaining([expect.objectContaining({ group_type: 'company', name_singular: 'Company', name_plural: 'Companies' })]),
    )
    const columns = await service.api(account, `/api/projects/${account.projectId}/groups_types/set_default_columns`, {
      method: 'PUT',
      body: JSON.stringify({ group_type_index: 0, default_columns: ['name', 'plan'] }),
    })
    expect(columns.status).toBe(200)
    expect(await columns.json()).toMatchObject({ group_type: 'company', name_singular: 'Company', default_columns: ['name', 'plan'] })
    const missing = await service.api(account, `/api/projects/${account.projectId}/groups_types/set_default_columns`, {
      method: 'PUT',
      body: JSON.stringify({ group_type_index: 4, default_columns: [] }),
    })
    expect(missing.status).toBe(404)
    const notAList = await service.api(account, `/api/projects/${account.projectId}/groups_types/update_metadata`, {
      method: 'PATCH',
      body: JSON.stringify({ group_type_index: 0 }),
    })
    expect(notAList.status).toBe(400)
  })

  it('creates a group through the API, once per key, of a registered type only', async () => {
    const post = (body: Record<string, unknown>) =>
      service.api(account, `/api/projects/${account.projectId}/groups/`, { method: 'POST', body: JSON.stringify(body) })
    const created = await post({ group_type_index: 1, group_key: 'apollo', group_properties: { stage: 'launch' } })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ group_type_index: 1, group_key: 'apollo', group_properties: { stage: 'launch' } })
    expect((await get(account, '/groups/find?group_type_index=1&group_key=apollo')).body.group_properties).toEqual({ stage: 'launch' })
    const again = await post({ group_type_index: 1, group_key: 'apollo' })
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'A group with this key already exists',
      attr: 'detail',
    })
    expect((await post({ group_type_index: 4, group_key: 'x' })).status).toBe(404)
    expect((await post({ group_type_index: 7, group_key: 'x' })).status).toBe(404)
    expect((await post({ group_type_index: 1 })).status).toBe(400)
  })

  it('refuses a list without a group type and answers 404 for a group that does not exist', async () => {
    const list = await get(account, '/groups/')
    expect(list.status).toBe(400)
    expect(list.body).toMatchObject({ type: 'validation_error', attr: 'group_type_index' })
    expect(list.body.detail).toContain('groups_types')
    expect((await get(account, '/groups/?group_type_index=7')).status).toBe(400)
    expect((await get(account, '/groups/find?group_type_index=0&group_key=nobody')).status).toBe(404)
    for (const [query, attr] of [
      ['group_key=acme', 'group_type_index'],
      ['group_type_index=0', 'group_key'],
    ]) {
      const find = await get(account, `/groups/find?${query}`)
      expect(find.status).toBe(400)
      expect(find.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'This query parameter is required.', attr })
    }
    const other = await service.account()
    const foreign = await service.api(other, `/api/projects/${account.projectId}/groups/?group_type_index=0`)
    expect([403, 404]).toContain(foreign.status)
    expect((await get(other, '/groups/?group_type_index=0')).body.results).toEqual([])
  })
})

describe('the groups list, as PostHog pages it', () => {
  it('answers pages of 100 newest first with next and previous cursor links and no count, which a client follows to the end', async () => {
    const account = await service.account()
    await send(account, [groupIdentify('organization', 'org-000', { n: 0 })])
    await groupOnce(account, 0, 'org-000')
    for (let start = 1; start < 105; start += 26) {
      const keys = Array.from({ length: Math.min(26, 105 - start) }, (_, i) => `org-${String(start + i).padStart(3, '0')}`)
      const created = await Promise.all(
        keys.map((group_key) =>
          service.api(account, `/api/projects/${account.projectId}/groups/`, {
            method: 'POST',
            body: JSON.stringify({ group_type_index: 0, group_key }),
          }),
        ),
      )
      expect(created.map((r) => r.status)).toEqual(keys.map(() => 201))
    }
    const first = await get(account, '/groups/?group_type_index=0&limit=10')
    expect(first.status).toBe(200)
    expect(Object.keys(first.body).sort()).toEqual(['next', 'previous', 'results'])
    // `limit` does not change PostHog's page size.
    expect(first.body.results).toHaveLength(100)
    expect(first.body.previous).toBeNull()
    const createdAt = first.body.results.map((g: Group) => Date.parse(g.created_at))
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a))
    // The event's group is the oldest, so the last.
    expect(first.body.results.map((g: Group) => g.group_key)).not.toContain('org-000')

    const next = new URL(first.body.next)
    expect(next.pathname).toBe(`/api/projects/${account.projectId}/groups/`)
    expect(next.searchParams.get('group_type_index')).toBe('0')
    expect(next.searchParams.get('cursor')).toBeTruthy()
    const second = await service.api(account, `${next.pathname}${next.search}`)
    expect(second.status).toBe(200)
    const secondBody = await second.json()
    expect(secondBody.next).toBeNull()
    expect(secondBody.results).toHaveLength(5)
    expect(secondBody.results.at(-1).group_key).toBe('org-000')
    const all = [...first.body.results, ...secondBody.results].map((g: Group) => g.group_key)
    expect(new Set(all).size).toBe(105)

    const previous = new URL(secondBody.previous)
    const back = await (await service.api(account, `${previous.pathname}${previous.search}`)).json()
    expect(back.results.map((g: Group) => g.group_key)).toEqual(first.body.results.map((g: Group) => g.group_key))
    expect(back.previous).toBeNull()
    expect(back.next).toBeTruthy()
  })

  it("answers DRF's 404 for a cursor it did not make", async () => {
    const account = await service.account()
    for (const cursor of ['not-a-cursor', Buffer.from('p=soon&k=x').toString('base64')]) {
      const res = await get(account, `/groups/?group_type_index=0&cursor=${encodeURIComponent(cursor)}`)
      expect(res.status, cursor).toBe(404)
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Invalid cursor', attr: null })
    }
    // As DRF, an empty cursor is the first page.
    expect((await get(account, '/groups/?group_type_index=0&cursor=')).status).toBe(200)
  })
})

describe("a group's properties and the group types, changed through the API", () => {
  let account: TestAccount
  const post = (path: string, body: unknown) =>
    service.api(account, `/api/projects/${account.projectId}${path}`, { method: 'POST', body: JSON.stringify(body) })
  beforeAll(async () => {
    account = await service.account()
    await send(account, [groupIdentify('company', 'initech', { name: 'Initech', plan: 'free' }), groupIdentify('project', 'tps', {})])
    await groupOnce(account, 0, 'initech')
    await groupOnce(account, 1, 'tps')
  })

  it('update_property sets one property, answers the group, and the copy in ClickHouse follows', async () => {
    const res = await post('/groups/update_property?group_type_index=0&group_key=initech', { key: 'plan', value: 'enterprise' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      group_type_index: 0,
      group_key: 'initech',
      group_properties: { name: 'Initech', plan: 'enterprise' },
      created_at: expect.any(String),
    })
    const added = await post('/groups/update_property?group_type_index=0&group_key=initech', { key: 'seats', value: 40 })
    expect((await added.json()).group_properties).toEqual({ name: 'Initech', plan: 'enterprise', seats: 40 })
    expect((await get(account, '/groups/find?group_type_index=0&group_key=initech')).body.group_properties).toEqual({
      name: 'Initech',
      plan: 'enterprise',
      seats: 40,
    })
    const values = await waitFor(
      async () => {
        const { body } = await get(account, '/groups/property_values/?group_type_index=0&key=plan')
        return body.results?.[0]?.name === 'enterprise' ? body : undefined
      },
      { what: 'the changed property in ClickHouse', timeoutMs: 15_000 },
    )
    expect(values.results).toEqual([{ name: 'enterprise', count: 1 }])
  })

  it('update_property refuses a missing key or value and answers 404 for a group that does not exist', async () => {
    const at = '/groups/update_property?group_type_index=0&group_key=initech'
    const noKey = await post(at, { value: 1 })
    expect(noKey.status).toBe(400)
    expect(await noKey.json()).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'This field is required.', attr: 'key' })
    const noValue = await post(at, { key: 'plan', value: null })
    expect(noValue.status).toBe(400)
    expect(await noValue.json()).toMatchObject({ attr: 'value', detail: 'This field is required.' })
    const noGroupKey = await post('/groups/update_property?group_type_index=0', { key: 'plan', value: 'x' })
    expect(noGroupKey.status).toBe(400)
    expect(await noGroupKey.json()).toMatchObject({ attr: 'group_key', detail: 'This query parameter is required.' })
    expect((await post('/groups/update_property?group_type_index=0&group_key=nobody', { key: 'plan', value: 'x' })).status).toBe(404)
  })

  it('delete_property removes the property $unset names, and refuses one the group does not have', async () => {
    await post('/groups/update_property?group_type_index=0&group_key=initech', { key: 'temporary', value: true })
    const res = await post('/groups/delete_property?group_type_index=0&group_key=initech', { $unset: 'temporary' })
    expect(res.status).toBe(200)
    expect((await res.json()).group_properties).not.toHaveProperty('temporary')
    expect((await get(account, '/groups/find?group_type_index=0&group_key=initech')).body.group_properties).not.toHaveProperty('temporary')
    const missing = await post('/groups/delete_property?group_type_index=0&group_key=initech', { $unset: 'temporary' })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: "Property 'temporary' does not exist on this group.",
      attr: '$unset',
    })
    const notAName = await post('/groups/delete_property?group_type_index=0&group_key=initech', { $unset: ['name'] })
    expect(notAName.status).toBe(400)
    expect(await notAName.json()).toMatchObject({
      attr: '$unset',
      detail: 'This field is required and must be a string (the property name to delete).',
    })
  })

  it('DELETE groups_types/:group_type_index/ forgets the type but keeps its groups', async () => {
    const path = (index: string) => `/api/projects/${account.projectId}/groups_types/${index}/`
    const deleted = await service.api(account, path('1'), { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    expect((await get(account, '/groups_types/')).body.map((t: { group_type: string }) => t.group_type)).toEqual(['company'])
    expect((await get(account, '/groups/find?group_type_index=1&group_key=tps')).status).toBe(200)
    for (const index of ['1', '4', 'abc']) {
      const again = await service.api(account, path(index), { method: 'DELETE' })
      expect(again.status, index).toBe(404)
      expect(await again.json()).toMatchObject({ type: 'invalid_request', code: 'not_found' })
    }
  })
})

describe('group flags on stored group properties', () => {
  let account: TestAccount
  beforeAll(async () => {
    account = await service.account()
    await send(account, [groupIdentify('organization', 'big-co', { employees: 500, tier: 'enterprise' })])
    await groupOnce(account, 0, 'big-co')
    const res = await service.api(account, `/api/projects/${account.projectId}/feature_flags/`, {
      method: 'POST',
      body: JSON.stringify({
        key: 'enterprise-only',
        filters: {
          aggregation_group_type_index: 0,
          groups: [{ properties: [{ key: 'tier', value: 'enterprise', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
        },
      }),
    })
    expect(res.status).toBe(201)
  })

  const flags = async (body: Record<string, unknown>) => {
    const res = await service.post('/flags/?v=2', { token: account.projectToken, distinct_id: 'someone', ...body })
    expect(res.status).toBe(200)
    return (await res.json()) as { flags: Record<string, { enabled: boolean }>; errorsWhileComputingFlags: boolean }
  }

  it('matches a group from the properties its $groupidentify stored, when the request sends none', async () => {
    const answer = await flags({ groups: { organization: 'big-co' } })
    expect(answer.flags['enterprise-only']!.enabled).toBe(true)
    expect(answer.errorsWhileComputingFlags).toBe(false)
    expect((await flags({ groups: { organization: 'unknown-co' } })).flags['enterprise-only']!.enabled).toBe(false)
  })

  it('lets the properties a request sends override the stored ones', async () => {
    const answer = await flags({ groups: { organization: 'big-co' }, group_properties: { organization: { tier: 'starter' } } })
    expect(answer.flags['enterprise-only']!.enabled).toBe(false)
  })
})

describe('posthog-node groups', () => {
  it("stores groupIdentify's properties, which the flags posthog-node asks for then match", async () => {
    const account = await service.account()
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
    try {
      client.groupIdentify({ groupType: 'workspace', groupKey: 'ws-1', properties: { seats: 40, region: 'eu' } })
      await client.flush()
      const group = await groupOnce(account, 0, 'ws-1')
      expect(group.group_properties).toEqual({ seats: 40, region: 'eu' })
      const res = await service.api(account, `/api/projects/${account.projectId}/feature_flags/`, {
        method: 'POST',
        body: JSON.stringify({
          key: 'big-workspaces',
          filters: {
            aggregation_group_type_index: 0,
            groups: [
              { properties: [{ key: 'seats', value: 25, operator: 'gt', type: 'group', group_type_index: 0 }], rollout_percentage: 100 },
            ],
          },
        }),
      })
      expect(res.status).toBe(201)
      expect(await client.getFeatureFlag('big-workspaces', 'member', { groups: { workspace: 'ws-1' } })).toBe(true)
      expect(await client.getFeatureFlag('big-workspaces', 'member', { groups: { workspace: 'ws-2' } })).toBe(false)
    } finally {
      await client.shutdown()
    }
  })
})
