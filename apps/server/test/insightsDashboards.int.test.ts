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

/** `purchase` events by day and `plan`: what the dashboard filters of the tests narrow down. */
const PURCHASES = [
  { day: DAYS[0]!, plan: 'free', count: 2 },
  { day: DAYS[0]!, plan: 'pro', count: 1 },
  { day: DAYS[2]!, plan: 'free', count: 1 },
  { day: DAYS[2]!, plan: 'pro', count: 4 },
]

/** The oracle: per day of `days`, the purchases sent on it with a plan among `plans`. */
const purchasesPerDay = (days: readonly string[], plans: readonly string[]) =>
  days.map((day) => PURCHASES.filter((p) => p.day === day && plans.includes(p.plan)).reduce((sum, p) => sum + p.count, 0))

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
    ...PURCHASES.filter((p) => p.day === day).flatMap((p) =>
      Array.from({ length: p.count }, (_, k) => ({
        event: 'purchase',
        distinct_id: `buyer-${p.plan}-${k}`,
        timestamp: `${day}T14:00:0${k}Z`,
        properties: { plan: p.plan },
      })),
    ),
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
    const paths = await createInsight({
      name: 'Paths',
      query: { kind: 'InsightVizNode', source: { kind: 'PathsQuery', pathsFilter: { pathsHogQLExpression: 'event' } } },
    })
    expect(paths.status).toBe(400)
    expect(paths.body).toMatchObject({ attr: 'query__source__pathsFilter__pathsHogQLExpression' })
    const correlation = await createInsight({ name: 'Bad', query: { kind: 'InsightVizNode', source: { kind: 'FunnelCorrelationQuery' } } })
    expect(correlation.status).toBe(400)
    expect(correlation.body).toMatchObject({ attr: 'query__source__kind', detail: 'FunnelCorrelationQuery is not supported.' })
    const noSeries = await createInsight({ name: 'Bad', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [] } } })
    expect(noSeries.status).toBe(400)
    expect(noSeries.body.attr).toBe('query__source__series')
  })

  it('makes the query of an insight saved with only legacy filters, as PostHog converts them, and answers its result', async () => {
    const created = await createInsight({
      name: 'Legacy',
      filters: {
        insight: 'TRENDS',
        events: [{ id: 'pageview', type: 'events', order: 0 }],
        date_from: DAYS[0],
        date_to: DAYS[2],
        interval: 'day',
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.query).toEqual({
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        dateRange: { date_from: DAYS[0], date_to: DAYS[2] },
        interval: 'day',
        series: [{ kind: 'EventsNode', event: 'pageview' }],
      },
    })
    expect(created.body.result[0].data).toEqual(PAGEVIEWS_PER_DAY)
    // A PATCH with filters alone makes the query anew.
    const updated = await api(`/insights/${created.body.id}/`, {
      method: 'PATCH',
      body: {
        filters: {
          insight: 'FUNNELS',
          events: ['pageview', 'signup'].map((id, order) => ({ id, type: 'events', order })),
          date_from: DAYS[0],
          date_to: DAYS[2],
        },
      },
    })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.query.source.kind).toBe('FunnelsQuery')
    expect(updated.body.result.map((step: { count: number }) => step.count)).toEqual([5, 1])
  })

  it('computes a saved stickiness insight, from its query or from legacy filters', async () => {
    // user-0 … user-2 view pages on the first and the last day, user-3 and user-4 on the last only.
    const source = {
      kind: 'StickinessQuery',
      series: [{ kind: 'EventsNode', event: 'pageview' }],
      dateRange: { date_from: DAYS[0], date_to: DAYS[2] },
    }
    const fromQuery = await createInsight({ name: 'Stickiness', query: { kind: 'InsightVizNode', source } })
    expect(fromQuery.status, JSON.stringify(fromQuery.body)).toBe(201)
    expect(fromQuery.body.result[0]).toMatchObject({ data: [2, 3, 0], days: [1, 2, 3], count: 5, label: 'pageview' })
    const fromFilters = await createInsight({
      name: 'Legacy stickiness',
      filters: { insight: 'STICKINESS', events: [{ id: 'pageview', type: 'events', order: 0 }], date_from: DAYS[0], date_to: DAYS[2] },
    })
    expect(fromFilters.status, JSON.stringify(fromFilters.body)).toBe(201)
    expect(fromFilters.body.query.source.kind).toBe('StickinessQuery')
    expect(fromFilters.body.result[0].data).toEqual([2, 3, 0])
  })

  it('refuses legacy filters whose query would ask for what is not applied, naming filters', async () => {
    const created = await createInsight({
      name: 'Group breakdown',
      filters: { events: [{ id: 'pageview', type: 'events' }], breakdown: 'industry', breakdown_group_type_index: 0 },
    })
    expect(created.status).toBe(400)
    expect(created.body).toMatchObject({ type: 'validation_error', attr: 'filters' })
    expect(created.body.detail).toContain('breakdown_group_type_index')
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

const BASIC_FIELDS = [
  'access_control_version',
  'created_at',
  'created_by',
  'creation_mode',
  'deleted',
  'description',
  'effective_privilege_level',
  'effective_restriction_level',
  'id',
  'is_shared',
  'last_accessed_at',
  'last_refresh',
  'last_viewed_at',
  'name',
  'pinned',
  'restriction_level',
  'tags',
  'team_id',
  'user_access_level',
]

const FULL_FIELDS = [
  ...BASIC_FIELDS,
  'breakdown_colors',
  'data_color_theme_id',
  'filters',
  'persisted_filters',
  'persisted_variables',
  'quick_filter_ids',
  'tiles',
  'variables',
].sort()

const TILE_FIELDS = [
  'button_tile',
  'color',
  'filters_overrides',
  'id',
  'insight',
  'is_cached',
  'last_refresh',
  'layouts',
  'order',
  'show_description',
  'text',
  'transparent_background',
]

const createDashboard = async (body: Record<string, unknown>, owner = account) => {
  const res = await api('/dashboards/', { method: 'POST', body }, owner)
  expect(res.status).toBe(201)
  return res.body
}

const patchDashboard = (id: number, body: Record<string, unknown>, owner = account) =>
  api(`/dashboards/${id}/`, { method: 'PATCH', body }, owner)

describe('dashboards', () => {
  it('creates a dashboard, answering the full form without tiles', async () => {
    const created = await api('/dashboards/', { method: 'POST', body: { name: 'Web', description: 'Traffic', pinned: true } })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(FULL_FIELDS)
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
      // The fields PostHog answers that have nothing behind them here.
      last_viewed_at: null,
      effective_restriction_level: 21,
      effective_privilege_level: 37,
      user_access_level: 'editor',
      access_control_version: 'v2',
      last_refresh: null,
      team_id: account.projectId,
      persisted_filters: null,
      variables: {},
      persisted_variables: null,
      breakdown_colors: [],
      data_color_theme_id: null,
      quick_filter_ids: [],
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
    expect(Object.keys(tile).sort()).toEqual(TILE_FIELDS)
    expect(tile).toMatchObject({
      insight: { id: insight.id, name: 'Views', dashboards: [dashboard.id] },
      text: null,
      button_tile: null,
      color: null,
      layouts: {},
      filters_overrides: {},
      show_description: null,
      transparent_background: null,
      order: 0,
    })
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

describe('dashboard fields', () => {
  it('answers access_control_version v1 above restriction level 21, and keeps breakdown_colors and data_color_theme_id as written', async () => {
    const dashboard = await createDashboard({ name: 'Colours' })
    const colors = [{ breakdownValue: 'pro', colorToken: 'preset-2' }]
    const patched = await patchDashboard(dashboard.id, { restriction_level: 37, breakdown_colors: colors, data_color_theme_id: 3 })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      restriction_level: 37,
      effective_restriction_level: 37,
      access_control_version: 'v1',
      breakdown_colors: colors,
      data_color_theme_id: 3,
    })
    const read = await api(`/dashboards/${dashboard.id}/`)
    expect(read.body).toMatchObject({ breakdown_colors: colors, data_color_theme_id: 3 })
    const listed = (await api('/dashboards/')).body.results.find((d: { id: number }) => d.id === dashboard.id)
    expect(listed).toMatchObject({ access_control_version: 'v1', team_id: account.projectId, last_viewed_at: null })
  })

  it('refuses quick filters, which are not served, as PostHog refuses ids it does not have; an empty list is fine', async () => {
    const dashboard = await createDashboard({ name: 'Quick' })
    const bad = await patchDashboard(dashboard.id, { quick_filter_ids: ['nope'] })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ attr: 'quick_filter_ids', detail: 'Invalid UUID: nope' })
    const id = '0b7e4c2a-9f51-4d3e-8a6b-2c1d0e9f8a7b'
    const unknown = await patchDashboard(dashboard.id, { quick_filter_ids: [id] })
    expect(unknown.body).toMatchObject({ attr: 'quick_filter_ids', detail: `Quick filters not found: ${id}` })
    const none = await patchDashboard(dashboard.id, { quick_filter_ids: [] })
    expect(none.status).toBe(200)
    expect(none.body.quick_filter_ids).toEqual([])
  })

  it('keeps the filters and answers them as persisted_filters; filters of the wrong shape or size are a 400', async () => {
    const filters = { date_from: '-7d', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] }
    const dashboard = await createDashboard({ name: 'Filtered', filters })
    expect(dashboard).toMatchObject({ filters, persisted_filters: filters })
    const badDate = await patchDashboard(dashboard.id, { filters: { date_from: 7 } })
    expect(badDate.status).toBe(400)
    expect(badDate.body).toMatchObject({ attr: 'filters', detail: 'date_from must be a date or a relative date such as -7d.' })
    const huge = await patchDashboard(dashboard.id, { filters: { properties: [{ key: 'x'.repeat(70_000), value: 'y' }] } })
    expect(huge.status).toBe(400)
    expect(huge.body.attr).toBe('filters')
    expect((await api(`/dashboards/${dashboard.id}/`)).body.filters).toEqual(filters)
  })
})

describe('dashboard tiles', () => {
  it('adds a text card through PATCH tiles, edits it by its id, and says who wrote and who edited it', async () => {
    const dashboard = await createDashboard({ name: 'Notes' })
    const added = await patchDashboard(dashboard.id, { name: 'Notes', tiles: [{ text: { body: 'Read me first' } }] })
    expect(added.status).toBe(200)
    expect(added.body.tiles).toHaveLength(1)
    const [tile] = added.body.tiles
    expect(Object.keys(tile).sort()).toEqual(TILE_FIELDS)
    expect(Object.keys(tile.text).sort()).toEqual(['body', 'created_by', 'id', 'last_modified_at', 'last_modified_by', 'team'])
    expect(tile).toMatchObject({
      insight: null,
      button_tile: null,
      order: 0,
      last_refresh: null,
      is_cached: false,
      text: { body: 'Read me first', created_by: { id: account.userId }, last_modified_by: null, team: account.projectId },
    })

    // A client sends the tile back as it read it, with the new body.
    const edited = await patchDashboard(dashboard.id, { tiles: [{ ...tile, text: { ...tile.text, body: 'Read me second' } }] })
    expect(edited.status).toBe(200)
    expect(edited.body.tiles).toHaveLength(1)
    expect(edited.body.tiles[0]).toMatchObject({
      id: tile.id,
      text: { id: tile.text.id, body: 'Read me second', created_by: { id: account.userId }, last_modified_by: { id: account.userId } },
    })
    expect(Date.parse(edited.body.tiles[0].text.last_modified_at)).toBeGreaterThanOrEqual(Date.parse(tile.text.last_modified_at))

    // At most 4000 characters, as PostHog takes them.
    const longest = await patchDashboard(dashboard.id, { tiles: [{ text: { id: tile.text.id, body: 'x'.repeat(4000) } }] })
    expect(longest.status).toBe(200)
    const tooLong = await patchDashboard(dashboard.id, { tiles: [{ text: { id: tile.text.id, body: 'x'.repeat(4001) } }] })
    expect(tooLong.status).toBe(400)
    expect(tooLong.body).toMatchObject({
      type: 'validation_error',
      code: 'max_length',
      attr: 'text__body',
      detail: 'Text body cannot exceed 4000 characters',
    })
    expect((await api(`/dashboards/${dashboard.id}/`)).body.tiles[0].text.body).toBe('x'.repeat(4000))
  })

  it('refuses a text or a tile of another dashboard, of this project or another, and changes nothing of the PATCH', async () => {
    const dashboard = await createDashboard({ name: 'Mine' })
    const sibling = await createDashboard({ name: 'Sibling' })
    const siblingText = (await patchDashboard(sibling.id, { tiles: [{ text: { body: 'Sibling note' } }] })).body.tiles[0]
    const other = await service.account()
    const theirs = await createDashboard({ name: 'Theirs' }, other)
    const theirText = (await patchDashboard(theirs.id, { tiles: [{ text: { body: 'Their note' } }] }, other)).body.tiles[0]

    for (const foreign of [siblingText, theirText]) {
      const refused = await patchDashboard(dashboard.id, { name: 'Renamed', tiles: [{ text: { id: foreign.text.id, body: 'Stolen' } }] })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ type: 'validation_error', attr: 'text', detail: 'Text tile not found.' })
      const byTile = await patchDashboard(dashboard.id, { tiles: [{ id: foreign.id, color: 'red' }] })
      expect(byTile.status).toBe(400)
      expect(byTile.body).toMatchObject({
        type: 'validation_error',
        attr: 'tiles',
        detail: `Tile ${foreign.id} is not a tile of this dashboard.`,
      })
    }
    // The refused PATCH left the dashboard's name as it was, and the other dashboards' texts untouched.
    expect((await api(`/dashboards/${dashboard.id}/`)).body).toMatchObject({ name: 'Mine', tiles: [] })
    expect((await api(`/dashboards/${sibling.id}/`)).body.tiles[0]).toMatchObject({ color: null, text: { body: 'Sibling note' } })
    expect((await api(`/dashboards/${theirs.id}/`, {}, other)).body.tiles[0].text.body).toBe('Their note')

    const noId = await patchDashboard(dashboard.id, { tiles: [{ color: 'red' }] })
    expect(noId.status).toBe(400)
    expect(noId.body.attr).toBe('tiles')
  })

  it('moves and styles tiles by id, numbers them by their sm layout, and never changes the insight through them', async () => {
    const dashboard = await createDashboard({ name: 'Layout' })
    const first = (await createInsight({ name: 'First', query: trendsQuery, dashboards: [dashboard.id] })).body
    const second = (await createInsight({ name: 'Second', query: trendsQuery, dashboards: [dashboard.id] })).body
    const withText = await patchDashboard(dashboard.id, { tiles: [{ text: { body: 'Unplaced' } }] })
    const tileOf = (tiles: Array<{ id: number; insight: { id: number } | null }>, insightId: number) =>
      tiles.find((t) => t.insight?.id === insightId)!
    const firstTile = tileOf(withText.body.tiles, first.id)
    const secondTile = tileOf(withText.body.tiles, second.id)
    const textTile = withText.body.tiles.find((t: { text: unknown }) => t.text !== null)

    const firstLayouts = { sm: { x: 0, y: 4, w: 6, h: 5 }, xs: { x: 0, y: 0, w: 1, h: 5 } }
    const moved = await patchDashboard(dashboard.id, {
      tiles: [
        { id: firstTile.id, layouts: firstLayouts, color: 'blue', show_description: true, insight: { name: 'Hijacked' } },
        { id: secondTile.id, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 } }, transparent_background: true },
      ],
    })
    expect(moved.status).toBe(200)
    // Top to bottom: the second insight's tile (y 0), the first's (y 4), then the text without a layout.
    expect(moved.body.tiles.map((t: { id: number; order: number }) => [t.id, t.order])).toEqual([
      [secondTile.id, 0],
      [firstTile.id, 1],
      [textTile.id, 2],
    ])
    expect(tileOf(moved.body.tiles, first.id)).toMatchObject({
      layouts: firstLayouts,
      color: 'blue',
      show_description: true,
      transparent_background: null,
      insight: { name: 'First' },
    })
    expect(tileOf(moved.body.tiles, second.id)).toMatchObject({ transparent_background: true, color: null })
    expect((await api(`/insights/${first.id}/`)).body.name).toBe('First')

    const tooMany = await patchDashboard(dashboard.id, { tiles: Array.from({ length: 101 }, () => ({ id: firstTile.id, color: 'red' })) })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body).toMatchObject({ attr: 'tiles', detail: 'Ensure this field has no more than 100 elements.' })
    const hugeLayout = await patchDashboard(dashboard.id, { tiles: [{ id: firstTile.id, layouts: { sm: { note: 'x'.repeat(20_000) } } }] })
    expect(hugeLayout.status).toBe(400)
    expect(hugeLayout.body.attr).toBe('tiles__0__layouts')
  })

  it('takes a deleted tile off the dashboard and its insight, and brings the same tile back when the insight is put on it again', async () => {
    const dashboard = await createDashboard({ name: 'Tile deletion' })
    const insight = (await createInsight({ name: 'Comes back', query: trendsQuery, dashboards: [dashboard.id] })).body
    const [tile] = (await api(`/dashboards/${dashboard.id}/`)).body.tiles
    await patchDashboard(dashboard.id, { tiles: [{ id: tile.id, color: 'green', layouts: { sm: { x: 1, y: 1, w: 4, h: 4 } } }] })

    const deleted = await patchDashboard(dashboard.id, { tiles: [{ id: tile.id, deleted: true }] })
    expect(deleted.status).toBe(200)
    expect(deleted.body.tiles).toEqual([])
    expect((await api(`/insights/${insight.id}/`)).body.dashboards).toEqual([])

    const readded = await api(`/insights/${insight.id}/`, { method: 'PATCH', body: { dashboards: [dashboard.id] } })
    expect(readded.body.dashboards).toEqual([dashboard.id])
    const [back] = (await api(`/dashboards/${dashboard.id}/`)).body.tiles
    expect(back).toMatchObject({ id: tile.id, color: 'green', layouts: { sm: { x: 1, y: 1, w: 4, h: 4 } }, insight: { id: insight.id } })
  })

  it('deletes the insights shown on this dashboard only with delete_insights, and restores them with the dashboard', async () => {
    const doomed = await createDashboard({ name: 'Doomed' })
    const kept = await createDashboard({ name: 'Kept' })
    const alone = (await createInsight({ name: 'Alone', query: trendsQuery, dashboards: [doomed.id] })).body
    const shared = (await createInsight({ name: 'Shared', query: trendsQuery, dashboards: [doomed.id, kept.id] })).body
    await patchDashboard(doomed.id, { tiles: [{ text: { body: 'Goes too' } }] })

    const deleted = await patchDashboard(doomed.id, { deleted: true, delete_insights: true })
    expect(deleted.status).toBe(200)
    expect(deleted.body.deleted).toBe(true)
    expect((await api(`/insights/${alone.id}/`)).status).toBe(404)
    expect((await api(`/insights/${shared.id}/`)).body).toMatchObject({ deleted: false, dashboards: [kept.id] })

    const restored = await patchDashboard(doomed.id, { deleted: false })
    expect(restored.status).toBe(200)
    expect(
      restored.body.tiles.map((t: { insight: { id: number } | null; text: { body: string } | null }) => t.insight?.id ?? t.text?.body),
    ).toEqual([alone.id, shared.id, 'Goes too'])
    expect((await api(`/insights/${alone.id}/`)).body).toMatchObject({ deleted: false, dashboards: [doomed.id] })
    expect((await api(`/insights/${shared.id}/`)).body.dashboards).toEqual([doomed.id, kept.id])
  })
})

describe('dashboard copies and templates', () => {
  it("copies another dashboard's tiles (same insights, new texts) and filters with use_dashboard", async () => {
    const filters = { date_from: DAYS[2] }
    const source = await createDashboard({ name: 'Source', filters })
    const insight = (await createInsight({ name: 'Shown twice', query: trendsQuery, dashboards: [source.id] })).body
    const [insightTile] = (await api(`/dashboards/${source.id}/`)).body.tiles
    const withText = await patchDashboard(source.id, {
      tiles: [
        { id: insightTile.id, color: 'purple', layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } },
        { text: { body: 'Copied note' }, layouts: { sm: { x: 6, y: 0, w: 6, h: 2 } } },
      ],
    })
    const sourceText = withText.body.tiles.find((t: { text: unknown }) => t.text !== null)

    const copy = await createDashboard({ name: 'Copy', use_dashboard: source.id })
    expect(copy).toMatchObject({ name: 'Copy', creation_mode: 'duplicate', filters, persisted_filters: filters })
    expect(copy.tiles).toHaveLength(2)
    const [copiedInsight, copiedText] = copy.tiles
    expect(copiedInsight).toMatchObject({ insight: { id: insight.id }, color: 'purple', layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } })
    expect(copiedInsight.id).not.toBe(insightTile.id)
    expect(copiedText).toMatchObject({
      text: { body: 'Copied note', created_by: { id: account.userId } },
      layouts: { sm: { x: 6, y: 0, w: 6, h: 2 } },
    })
    expect(copiedText.text.id).not.toBe(sourceText.text.id)
    expect((await api(`/insights/${insight.id}/`)).body.dashboards).toEqual([source.id, copy.id])

    // The copy's text is its own: editing it leaves the source's as it was.
    await patchDashboard(copy.id, { tiles: [{ text: { id: copiedText.text.id, body: 'Edited copy' } }] })
    expect((await api(`/dashboards/${source.id}/`)).body.tiles.find((t: { text: unknown }) => t.text !== null).text.body).toBe(
      'Copied note',
    )

    // Filters the request gives win over the source's.
    const own = await createDashboard({ name: 'Own filters', use_dashboard: source.id, filters: { date_from: '-30d' } })
    expect(own.filters).toEqual({ date_from: '-30d' })
  })

  it('copies the insights too with duplicate_tiles, named "(Copy)"', async () => {
    const source = await createDashboard({ name: 'Deep source' })
    const insight = (await createInsight({ name: 'Original', query: trendsQuery, tags: ['t'], dashboards: [source.id] })).body
    const copy = await createDashboard({ name: 'Deep copy', use_dashboard: source.id, duplicate_tiles: true })
    expect(copy.tiles).toHaveLength(1)
    const copied = copy.tiles[0].insight
    expect(copied.id).not.toBe(insight.id)
    expect(copied).toMatchObject({
      name: 'Original (Copy)',
      query: trendsQuery,
      tags: ['t'],
      dashboards: [copy.id],
      created_by: { id: account.userId },
    })
    expect(copied.short_id).not.toBe(insight.short_id)
    expect((await api(`/insights/${insight.id}/`)).body.dashboards).toEqual([source.id])
  })

  it('refuses an unknown use_dashboard, any use_template, and both together', async () => {
    const other = await service.account()
    const theirs = await createDashboard({ name: 'Theirs' }, other)
    for (const id of [theirs.id, 2_000_000_000, 99_999_999_999]) {
      const unknown = await api('/dashboards/', { method: 'POST', body: { name: 'X', use_dashboard: id } })
      expect(unknown.status).toBe(400)
      expect(unknown.body).toMatchObject({ type: 'validation_error', attr: 'use_dashboard', detail: 'Invalid value provided' })
    }
    const template = await api('/dashboards/', { method: 'POST', body: { name: 'X', use_template: 'DEFAULT_APP' } })
    expect(template.status).toBe(400)
    expect(template.body).toMatchObject({ attr: 'use_template', detail: 'Invalid template provided: DEFAULT_APP' })
    const mine = await createDashboard({ name: 'Mine' })
    const both = await api('/dashboards/', { method: 'POST', body: { name: 'X', use_template: 'DEFAULT_APP', use_dashboard: mine.id } })
    expect(both.status).toBe(400)
    expect(both.body).toMatchObject({ attr: null, detail: '`use_dashboard` and `use_template` cannot be used together' })
    const count = (await api('/dashboards/?search=X')).body.count
    expect(count).toBe(0)
  })
})

describe('dashboard filters', () => {
  const pro = { key: 'plan', value: 'pro', operator: 'exact', type: 'event' }
  const purchasesQuery = {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'purchase' }],
      dateRange: { date_from: DAYS[0], date_to: DAYS[2] },
    },
  }
  const tileResult = async (dashboardId: number, insightId: number, query = '') => {
    const read = await api(`/dashboards/${dashboardId}/${query}`)
    expect(read.status).toBe(200)
    const tile = read.body.tiles.find((t: { insight: { id: number } | null }) => t.insight?.id === insightId)
    return tile.insight.result[0] as { days: string[]; data: number[] }
  }

  it("computes the tiles' results under the dashboard's date range and properties, leaving the insight's query as it was", async () => {
    const dashboard = await createDashboard({ name: 'Narrowed' })
    const insight = (await createInsight({ name: 'Purchases', query: purchasesQuery, dashboards: [dashboard.id] })).body
    expect(insight.result[0].data).toEqual(purchasesPerDay(DAYS, ['free', 'pro']))

    // One day.
    await patchDashboard(dashboard.id, { filters: { date_from: DAYS[2], date_to: DAYS[2] } })
    const oneDay = await tileResult(dashboard.id, insight.id)
    expect(oneDay.days).toEqual([DAYS[2]])
    expect(oneDay.data).toEqual(purchasesPerDay([DAYS[2]!], ['free', 'pro']))

    // One plan, over the insight's own range.
    await patchDashboard(dashboard.id, { filters: { properties: [pro] } })
    const onePlan = await tileResult(dashboard.id, insight.id)
    expect(onePlan.days).toEqual(DAYS)
    expect(onePlan.data).toEqual(purchasesPerDay(DAYS, ['pro']))

    // Both, and the insight seen from the dashboard is computed the same way.
    await patchDashboard(dashboard.id, { filters: { date_from: DAYS[2], date_to: DAYS[2], properties: [pro] } })
    expect((await tileResult(dashboard.id, insight.id)).data).toEqual(purchasesPerDay([DAYS[2]!], ['pro']))
    const fromDashboard = await api(`/insights/${insight.id}/?from_dashboard=${dashboard.id}`)
    expect(fromDashboard.status).toBe(200)
    expect(fromDashboard.body.result[0].data).toEqual(purchasesPerDay([DAYS[2]!], ['pro']))

    // Alone, the insight is what it always was.
    const alone = await api(`/insights/${insight.id}/`)
    expect(alone.body.query).toEqual(purchasesQuery)
    expect(alone.body.result[0].data).toEqual(purchasesPerDay(DAYS, ['free', 'pro']))
    // A dashboard the insight is not on changes nothing.
    const elsewhere = await createDashboard({ name: 'Elsewhere', filters: { properties: [pro] } })
    expect((await api(`/insights/${insight.id}/?from_dashboard=${elsewhere.id}`)).body.result[0].data).toEqual(
      purchasesPerDay(DAYS, ['free', 'pro']),
    )
  })

  it("ANDs the dashboard's properties with the insight's own, and lays a tile's filters_overrides over the dashboard's", async () => {
    const dashboard = await createDashboard({ name: 'Layered', filters: { date_from: DAYS[2], date_to: DAYS[2] } })
    const free = { key: 'plan', value: 'free', operator: 'exact', type: 'event' }
    const onlyFree = { ...purchasesQuery, source: { ...purchasesQuery.source, properties: [free] } }
    const freeInsight = (await createInsight({ name: 'Free purchases', query: onlyFree, dashboards: [dashboard.id] })).body
    const allInsight = (await createInsight({ name: 'All purchases', query: purchasesQuery, dashboards: [dashboard.id] })).body
    expect((await tileResult(dashboard.id, freeInsight.id)).data).toEqual(purchasesPerDay([DAYS[2]!], ['free']))

    // free AND pro: nothing.
    await patchDashboard(dashboard.id, { filters: { date_from: DAYS[2], date_to: DAYS[2], properties: [pro] } })
    expect((await tileResult(dashboard.id, freeInsight.id)).data).toEqual([0])

    // The tile's own date range replaces the dashboard's; the dashboard's properties still apply.
    const tiles = (await api(`/dashboards/${dashboard.id}/`)).body.tiles
    const allTile = tiles.find((t: { insight: { id: number } }) => t.insight.id === allInsight.id)
    await patchDashboard(dashboard.id, { tiles: [{ id: allTile.id, filters_overrides: { date_from: DAYS[0], date_to: DAYS[0] } }] })
    const overridden = await tileResult(dashboard.id, allInsight.id)
    expect(overridden.days).toEqual([DAYS[0]])
    expect(overridden.data).toEqual(purchasesPerDay([DAYS[0]!], ['pro']))
    const fromDashboard = await api(`/insights/${allInsight.id}/?from_dashboard=${dashboard.id}`)
    expect(fromDashboard.body.result[0].data).toEqual(purchasesPerDay([DAYS[0]!], ['pro']))
  })

  it('shows the dashboard under filters_override for one request, without storing them', async () => {
    const dashboard = await createDashboard({ name: 'Overridden', filters: { properties: [pro] } })
    const insight = (await createInsight({ name: 'Purchases', query: purchasesQuery, dashboards: [dashboard.id] })).body
    const override = encodeURIComponent(JSON.stringify({ date_from: DAYS[0], date_to: DAYS[0] }))
    const read = await api(`/dashboards/${dashboard.id}/?filters_override=${override}`)
    expect(read.body.filters).toEqual({ properties: [pro], date_from: DAYS[0], date_to: DAYS[0] })
    expect(read.body.persisted_filters).toEqual({ properties: [pro] })
    expect((await tileResult(dashboard.id, insight.id, `?filters_override=${override}`)).data).toEqual(purchasesPerDay([DAYS[0]!], ['pro']))
    const bad = await api(`/dashboards/${dashboard.id}/?filters_override=not-json`)
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ attr: 'filters_override', detail: 'Invalid JSON passed in filters_override parameter' })
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
    const dashboard = doc.paths['/api/projects/{project_id}/dashboards/{id}/']!.get.responses['200'].content['application/json'].schema
    expect(Object.keys(dashboard.properties).sort()).toEqual(FULL_FIELDS)
    expect(Object.keys(dashboard.properties.tiles.items.properties).sort()).toEqual(TILE_FIELDS)
  })
})
