import { waitFor, type TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const INSIGHT_FIELDS = [
  'created_at',
  'created_by',
  'dashboards',
  'deleted',
  'derived_name',
  'description',
  'favorited',
  'id',
  'is_cached',
  'last_modified_at',
  'last_modified_by',
  'last_refresh',
  'name',
  'query',
  'result',
  'saved',
  'short_id',
  'tags',
  'timezone',
]

const DAYS = ['2025-06-01', '2025-06-02', '2025-06-03']

/** Per day, how many `pageview` events the test sends: what the insight must count. */
const PAGEVIEWS_PER_DAY = [3, 0, 5]

const trendsQuery = {
  kind: 'InsightVizNode',
  source: {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: 'pageview' }],
    dateRange: { date_from: DAYS[0], date_to: DAYS[2] },
  },
}

async function api(path: string, init: { method?: string; body?: unknown } = {}, owner = account) {
  const res = await service.api(owner, `/api/projects/${owner.projectId}${path}`, {
    method: init.method ?? 'GET',
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

const createInsight = (body: Record<string, unknown>, owner = account) => api('/insights/', { method: 'POST', body }, owner)

beforeAll(async () => {
  const batch = DAYS.flatMap((day, i) => [
    ...Array.from({ length: PAGEVIEWS_PER_DAY[i]! }, (_, k) => ({
      event: 'pageview',
      distinct_id: `user-${k}`,
      timestamp: `${day}T12:00:0${k}Z`,
    })),
    // Another event on the same days, which the insight's series leaves out.
    { event: 'signup', distinct_id: 'user-0', timestamp: `${day}T13:00:00Z` },
  ])
  const res = await service.post('/batch/', { api_key: account.projectToken, batch })
  expect(res.status).toBe(200)
  await waitFor(
    async () => {
      const stored = await api(`/events/?limit=${batch.length + 1}`)
      return stored.body.results.length === batch.length
    },
    { what: `${batch.length} stored events`, timeoutMs: 30_000 },
  )
}, 60_000)

describe('insights', () => {
  it("creates a trends insight and reads it back with a result counting the events sent, per day of the query's range", async () => {
    const created = await createInsight({ name: 'Daily views', description: 'Views per day', query: trendsQuery, tags: ['web'] })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(INSIGHT_FIELDS)
    expect(created.body).toMatchObject({
      name: 'Daily views',
      derived_name: null,
      description: 'Views per day',
      query: trendsQuery,
      tags: ['web'],
      favorited: false,
      saved: false,
      deleted: false,
      dashboards: [],
      created_by: { id: account.userId },
      last_modified_by: { id: account.userId },
      timezone: 'UTC',
    })
    expect(created.body.short_id).toMatch(/^[A-Za-z0-9]{8}$/)

    const read = await api(`/insights/${created.body.id}/`)
    expect(read.status).toBe(200)
    const [series] = read.body.result
    expect(series.days).toEqual(DAYS)
    expect(series.data).toEqual(PAGEVIEWS_PER_DAY)
    expect(series.count).toBe(PAGEVIEWS_PER_DAY.reduce((a, b) => a + b, 0))
    expect(read.body.last_refresh).toEqual(expect.any(String))
  })

  it('answers the cached result on a second read, and computes it anew with refresh=true', async () => {
    const { body: insight } = await createInsight({ name: 'Cached views', query: trendsQuery })
    const first = await api(`/insights/${insight.id}/`)
    const second = await api(`/insights/${insight.id}/`)
    expect(second.body).toMatchObject({ is_cached: true, last_refresh: first.body.last_refresh, result: first.body.result })
    const refreshed = await api(`/insights/${insight.id}/?refresh=true`)
    expect(refreshed.body.is_cached).toBe(false)
    expect(refreshed.body.result[0].data).toEqual(PAGEVIEWS_PER_DAY)
  })

  it('lists insights, filtered by saved, favorited, short_id and a search of every word', async () => {
    const owner = await service.account()
    const a = (await createInsight({ name: 'Signup funnel weekly', saved: true }, owner)).body
    const b = (await createInsight({ name: 'Weekly revenue', favorited: true, saved: true }, owner)).body
    const c = (await createInsight({ name: 'Draft', description: 'signup draft', tags: ['Marketing'] }, owner)).body
    const ids = async (query: string) => {
      const list = await api(`/insights/${query}`, {}, owner)
      expect(list.status).toBe(200)
      return list.body.results.map((i: { id: number }) => i.id)
    }
    const all = await api('/insights/', {}, owner)
    expect(all.body).toMatchObject({ count: 3, previous: null, next: null })
    expect(Object.keys(all.body.results[0]).sort()).toEqual(INSIGHT_FIELDS)
    expect(await ids('')).toEqual([c.id, b.id, a.id])
    expect(await ids('?saved=true')).toEqual([b.id, a.id])
    expect(await ids('?favorited=true')).toEqual([b.id])
    expect(await ids(`?short_id=${c.short_id}`)).toEqual([c.id])
    expect(await ids('?search=weekly')).toEqual([b.id, a.id])
    expect(await ids('?search=weekly%20signup')).toEqual([a.id])
    expect(await ids('?search=signup')).toEqual([c.id, a.id])
    expect(await ids('?search=market')).toEqual([c.id])
    expect(await ids('?saved=false')).toEqual([c.id])
    // As PostHog reads it, the parameter's presence asks for the favorites.
    expect(await ids('?favorited=false')).toEqual([b.id])
    expect(await ids('?limit=1&offset=1')).toEqual([b.id])
  })

  it('answers an insight whose query cannot be computed with a null result, without failing the list', async () => {
    const owner = await service.account()
    const broken = await createInsight(
      { name: 'Broken', query: { kind: 'HogQLQuery', query: 'select no_such_column from nowhere' } },
      owner,
    )
    expect(broken.status).toBe(201)
    expect(broken.body).toMatchObject({ result: null, last_refresh: null })
    // Retrieved alone, the insight answers why, as PostHog's retrieve does.
    const retrieved = await api(`/insights/${broken.body.id}/`, {}, owner)
    expect(retrieved.status).toBe(400)
    expect(retrieved.body.type).toBe('validation_error')
    await createInsight({ name: 'Fine', query: trendsQuery }, owner)
    const list = await api('/insights/', {}, owner)
    expect(list.status).toBe(200)
    expect(list.body.results.map((i: { name: string; result: unknown }) => [i.name, i.result === null])).toEqual([
      ['Fine', false],
      ['Broken', true],
    ])
  })

  it('soft-deletes an insight with PATCH deleted, which leaves the list; DELETE answers 405', async () => {
    const owner = await service.account()
    const { body: insight } = await createInsight({ name: 'Soon gone', query: trendsQuery }, owner)
    const destroy = await api(`/insights/${insight.id}/`, { method: 'DELETE' }, owner)
    expect(destroy.status).toBe(405)
    const deleted = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { deleted: true } }, owner)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ deleted: true, result: null })
    expect((await api('/insights/', {}, owner)).body.count).toBe(0)
    expect((await api(`/insights/${insight.id}/`, {}, owner)).status).toBe(404)
    expect((await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { name: 'Still gone' } }, owner)).status).toBe(404)
    const restored = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { deleted: false } }, owner)
    expect(restored.body.deleted).toBe(false)
    expect((await api('/insights/', {}, owner)).body.count).toBe(1)
  })

  it('updates the fields sent; only a new name, description or query counts as a modification', async () => {
    const { body: insight } = await createInsight({ name: 'Before', query: trendsQuery })
    const starred = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { favorited: true } })
    expect(starred.body.last_modified_at).toBe(insight.last_modified_at)
    const updated = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { name: 'After', favorited: true, tags: ['a', 'b'] } })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ name: 'After', favorited: true, tags: ['a', 'b'], query: trendsQuery, short_id: insight.short_id })
    expect(Date.parse(updated.body.last_modified_at)).toBeGreaterThanOrEqual(Date.parse(insight.last_modified_at))
  })

  it('refuses a query of an unknown kind, or a node whose source is no insight query, with a 400 naming the field', async () => {
    const unknownKind = await createInsight({ name: 'Bad', query: { kind: 'NoSuchNode', source: trendsQuery.source } })
    expect(unknownKind.status).toBe(400)
    expect(unknownKind.body).toMatchObject({ type: 'validation_error', attr: 'query__kind' })
    const badSource = await createInsight({
      name: 'Bad',
      query: { kind: 'InsightVizNode', source: { kind: 'HogQLQuery', query: 'select 1' } },
    })
    expect(badSource.status).toBe(400)
    expect(badSource.body).toMatchObject({ type: 'validation_error', attr: 'query__source__kind' })
    const noSeries = await createInsight({ name: 'Bad', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [] } } })
    expect(noSeries.status).toBe(400)
    expect(noSeries.body.attr).toBe('query__source__series')
  })

  it("answers 404 for another project's insight, to read and to change", async () => {
    const other = await service.account()
    const { body: theirs } = await createInsight({ name: 'Theirs' }, other)
    expect((await api(`/insights/${theirs.id}/`)).status).toBe(404)
    expect((await api(`/insights/${theirs.id}/`, { method: 'PATCH', body: { name: 'Mine' } })).status).toBe(404)
    expect((await api('/insights/not-an-id/')).status).toBe(404)
    expect((await api(`/insights/${theirs.id}/`, {}, other)).body.name).toBe('Theirs')
  })
})

describe('dashboards', () => {
  const BASIC_FIELDS = [
    'created_at',
    'created_by',
    'creation_mode',
    'deleted',
    'description',
    'id',
    'is_shared',
    'last_accessed_at',
    'name',
    'pinned',
    'restriction_level',
    'tags',
  ]

  it('creates a dashboard, answering the full form without tiles', async () => {
    const created = await api('/dashboards/', { method: 'POST', body: { name: 'Web', description: 'Traffic', pinned: true } })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual([...BASIC_FIELDS, 'filters', 'tiles'].sort())
    expect(created.body).toMatchObject({
      name: 'Web',
      description: 'Traffic',
      pinned: true,
      deleted: false,
      is_shared: false,
      creation_mode: 'default',
      restriction_level: 21,
      tags: [],
      tiles: [],
      filters: {},
      created_by: { id: account.userId },
    })
  })

  it("shows an insight as a tile once PATCH on the insight names the dashboard, with the insight's result", async () => {
    const { body: dashboard } = await api('/dashboards/', { method: 'POST', body: { name: 'Overview' } })
    const { body: insight } = await createInsight({ name: 'Views', query: trendsQuery })
    const patched = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { dashboards: [dashboard.id] } })
    expect(patched.status).toBe(200)
    expect(patched.body.dashboards).toEqual([dashboard.id])

    const full = await api(`/dashboards/${dashboard.id}/`, {})
    expect(full.status).toBe(200)
    expect(full.body.last_accessed_at).toEqual(expect.any(String))
    expect(full.body.tiles).toHaveLength(1)
    const [tile] = full.body.tiles
    expect(Object.keys(tile).sort()).toEqual(['color', 'id', 'insight', 'is_cached', 'last_refresh', 'layouts', 'text'])
    expect(tile).toMatchObject({ insight: { id: insight.id, name: 'Views', dashboards: [dashboard.id] }, text: null, color: null })
    expect(tile.insight.result[0].data).toEqual(PAGEVIEWS_PER_DAY)
    expect(tile.last_refresh).toBe(tile.insight.last_refresh)

    // On a dashboard, an insight counts as saved.
    const saved = await api(`/insights/?saved=true&short_id=${insight.short_id}`)
    expect(saved.body.results.map((i: { id: number }) => i.id)).toEqual([insight.id])

    // Naming no dashboard takes the tile away.
    await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { dashboards: [] } })
    expect((await api(`/dashboards/${dashboard.id}/`, {})).body.tiles).toEqual([])
  })

  it('takes a deleted insight off its dashboards, and leaves deleted dashboards out of the ones named', async () => {
    const { body: shown } = await api('/dashboards/', { method: 'POST', body: { name: 'Shown' } })
    const { body: gone } = await api('/dashboards/', { method: 'POST', body: { name: 'Gone' } })
    await api(`/dashboards/${gone.id}/`, { method: 'PATCH', body: { deleted: true } })
    const { body: insight } = await createInsight({ name: 'On two', dashboards: [shown.id, gone.id] })
    expect(insight.dashboards).toEqual([shown.id])
    await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { deleted: true } })
    expect((await api(`/dashboards/${shown.id}/`)).body.tiles).toEqual([])
    const restored = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { deleted: false } })
    expect(restored.body).toMatchObject({ deleted: false, dashboards: [] })
  })

  it("refuses to put an insight on another project's dashboard", async () => {
    const other = await service.account()
    const { body: theirs } = await api('/dashboards/', { method: 'POST', body: { name: 'Theirs' } }, other)
    const { body: insight } = await createInsight({ name: 'Mine' })
    const refused = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { dashboards: [theirs.id] } })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ type: 'validation_error', attr: null, detail: 'Dashboard not found' })
    expect((await api(`/dashboards/${theirs.id}/`)).status).toBe(404)
  })

  it('lists dashboards in the basic form, pinned first, then by name, soft-deleted ones left out', async () => {
    const owner = await service.account()
    const create = async (body: Record<string, unknown>) => (await api('/dashboards/', { method: 'POST', body }, owner)).body
    const zebra = await create({ name: 'Zebra', pinned: true })
    const apple = await create({ name: 'Apple' })
    const mango = await create({ name: 'Mango' })
    await api(`/dashboards/${mango.id}/`, { method: 'PATCH', body: { deleted: true } }, owner)
    const list = await api('/dashboards/', {}, owner)
    expect(list.body.count).toBe(2)
    expect(list.body.results.map((d: { id: number }) => d.id)).toEqual([zebra.id, apple.id])
    expect(Object.keys(list.body.results[0]).sort()).toEqual(BASIC_FIELDS)
  })

  it('soft-deletes a dashboard with PATCH deleted: gone until a PATCH deleted false brings it back with its tiles; DELETE answers 405', async () => {
    const { body: dashboard } = await api('/dashboards/', { method: 'POST', body: { name: 'Soon gone' } })
    const { body: insight } = await createInsight({ name: 'On it', dashboards: [dashboard.id] })
    expect((await api(`/dashboards/${dashboard.id}/`, { method: 'DELETE' })).status).toBe(405)
    const deleted = await api(`/dashboards/${dashboard.id}/`, { method: 'PATCH', body: { deleted: true } })
    expect(deleted.status).toBe(200)
    expect(deleted.body.deleted).toBe(true)
    expect((await api(`/dashboards/${dashboard.id}/`)).status).toBe(404)
    expect((await api(`/dashboards/${dashboard.id}/`, { method: 'PATCH', body: { name: 'Renamed' } })).status).toBe(404)
    expect((await api(`/insights/${insight.id}/`)).body.dashboards).toEqual([])
    const restored = await api(`/dashboards/${dashboard.id}/`, { method: 'PATCH', body: { deleted: false } })
    expect(restored.status).toBe(200)
    expect(restored.body.tiles.map((t: { insight: { id: number } }) => t.insight.id)).toEqual([insight.id])
    expect((await api(`/insights/${insight.id}/`)).body.dashboards).toEqual([dashboard.id])
  })

  it('refuses a restriction level PostHog does not have', async () => {
    const refused = await api('/dashboards/', { method: 'POST', body: { name: 'X', restriction_level: 99 } })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ type: 'validation_error', attr: 'restriction_level' })
    const badFilters = await api('/dashboards/', { method: 'POST', body: { name: 'X', filters: [] } })
    expect(badFilters.status).toBe(400)
    expect(badFilters.body).toMatchObject({ attr: 'filters', detail: 'Filters must be a dictionary' })
  })
})

describe('the OpenAPI document', () => {
  it('describes the insight and dashboard routes, with the fields of their answers', async () => {
    const res = await fetch(`${service.baseUrl}/api/schema/`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as { paths: Record<string, Record<string, any>> }
    const insight = doc.paths['/api/projects/{project_id}/insights/{id}/']!.get.responses['200'].content['application/json'].schema
    expect(Object.keys(insight.properties).sort()).toEqual(INSIGHT_FIELDS)
    expect(doc.paths['/api/projects/{project_id}/insights/{id}/']!.patch).toBeDefined()
    expect(doc.paths['/api/projects/{project_id}/dashboards/']!.get).toBeDefined()
    expect(doc.paths['/api/projects/{project_id}/dashboards/{id}/']!.patch).toBeDefined()
  })
})
