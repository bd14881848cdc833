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
    expect(values.body).toEqual([
      { name: 'Acme', count: 1 },
      { name: 'Globex', count: 1 },
    ])
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
    expect((await again.json()).detail).toBe('A group with this key already exists')
    expect((await post({ group_type_index: 4, group_key: 'x' })).status).toBe(404)
    expect((await post({ group_type_index: 1 })).status).toBe(400)
  })

  it('refuses a list without a group type and answers 404 for a group that does not exist', async () => {
    const list = await get(account, '/groups/')
    expect(list.status).toBe(400)
    expect(list.body).toMatchObject({ type: 'validation_error', attr: 'group_type_index' })
    expect(list.body.detail).toContain('groups_types')
    expect((await get(account, '/groups/?group_type_index=7')).status).toBe(400)
    expect((await get(account, '/groups/find?group_type_index=0&group_key=nobody')).status).toBe(404)
    const other = await service.account()
    const foreign = await service.api(other, `/api/projects/${account.projectId}/groups/?group_type_index=0`)
    expect([403, 404]).toContain(foreign.status)
    expect((await get(other, '/groups/?group_type_index=0')).body.results).toEqual([])
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
