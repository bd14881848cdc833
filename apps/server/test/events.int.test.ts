import { randomUUID } from 'node:crypto'
import type { TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

const SITE = 'https://analytics.example.com'
let service: TestService
let account: TestAccount
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  // Some of the filters' keys get columns of their own: the filter matrix runs over both kinds of property.
  { SITE_URL: SITE, MATERIALIZED_PROPERTIES: 'plan,seats,beta' },
)

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString()

describe('listing', () => {
  it('lists events newest first in the envelope, with absolute next and previous links', async () => {
    const fresh = await service.account()
    const batch = Array.from({ length: 5 }, (_, i) => ({
      event: 'step',
      distinct_id: `user-${i}`,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      properties: { i },
    }))
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    await service.eventsOf(fresh, 5)
    const first = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?limit=2`)).json()
    expect(first.count).toBe(5)
    expect(first.results.map((e: { properties: { i: number } }) => e.properties.i)).toEqual([4, 3])
    expect(first.results[0].timestamp).toBe('2025-01-01T00:04:00.000000+00:00')
    expect(first.previous).toBeNull()
    // The next page is a keyset step: the events before the last one's time, skipping those of that time already listed.
    const next = new URL(first.next)
    expect(`${next.origin}${next.pathname}`).toBe(`${SITE}/api/projects/${fresh.projectId}/events/`)
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '2', before: '2025-01-01T00:03:00.000001+00:00', offset: '1' })
    const second = await (await service.api(fresh, `${next.pathname}${next.search}`)).json()
    expect(second.results.map((e: { properties: { i: number } }) => e.properties.i)).toEqual([2, 1])
    const last = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?limit=2&offset=4`)).json()
    expect(last.results.map((e: { properties: { i: number } }) => e.properties.i)).toEqual([0])
    expect(last.next).toBeNull()
    expect(last.previous).toBe(`${SITE}/api/projects/${fresh.projectId}/events/?limit=2&offset=2`)
    const one = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?distinct_id=user-1`)).json()
    expect(one.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(['user-1'])
    const between = await (
      await service.api(fresh, `/api/projects/${fresh.projectId}/events/?after=2025-01-01T00:00:30Z&before=2025-01-01T00:03:00Z`)
    ).json()
    expect(between.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(['user-2', 'user-1'])
  })

  it('pages through every event once by following next, events of the same microsecond included', async () => {
    const fresh = await service.account()
    // Seven events share one time, around others: pages end inside the group and past it.
    const at = (minute: number) => new Date(Date.UTC(2025, 0, 2, 0, minute)).toISOString()
    const batch = [
      ...Array.from({ length: 3 }, (_, i) => ({ event: 'e', distinct_id: `late-${i}`, timestamp: at(10 + i) })),
      ...Array.from({ length: 7 }, (_, i) => ({ event: 'e', distinct_id: `tie-${i}`, timestamp: at(5) })),
      ...Array.from({ length: 4 }, (_, i) => ({ event: 'e', distinct_id: `early-${i}`, timestamp: at(i) })),
    ]
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    await service.eventsOf(fresh, batch.length)
    for (const limit of [1, 2, 3, 5]) {
      const seen: string[] = []
      let url: string | null = `/api/projects/${fresh.projectId}/events/?limit=${limit}`
      for (let pages = 0; url !== null && pages < 100; pages++) {
        const page: { results: Array<{ distinct_id: string }>; next: string | null } = await (await service.api(fresh, url)).json()
        seen.push(...page.results.map((e) => e.distinct_id))
        url = page.next === null ? null : new URL(page.next).pathname + new URL(page.next).search
      }
      expect(seen.slice(0, 3)).toEqual(['late-2', 'late-1', 'late-0'])
      expect(new Set(seen.slice(3, 10))).toEqual(new Set(Array.from({ length: 7 }, (_, i) => `tie-${i}`)))
      expect(seen.slice(10)).toEqual(['early-3', 'early-2', 'early-1', 'early-0'])
      expect(seen).toHaveLength(batch.length)
    }
  })

  it('counts matching events up to 1,000 past the page, and exactly near the end', async () => {
    const fresh = await service.account()
    const batch = Array.from({ length: 1_500 }, (_, i) => ({ event: 'many', distinct_id: `u-${i}` }))
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    // All stored once the 1,500th is there.
    await service.eventsOf(fresh, 1, '&offset=1499')
    const first = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?limit=10`)).json()
    expect(first.count).toBe(1_010)
    expect(first.next).not.toBeNull()
    const nearEnd = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?limit=10&offset=1495`)).json()
    expect(nearEnd.count).toBe(1_500)
    expect(nearEnd.results).toHaveLength(5)
    expect(nearEnd.next).toBeNull()
  })

  it('takes relative times (-2d, -1h) as PostHog does', async () => {
    const fresh = await service.account()
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString()
    const batch = [
      { event: 'old', distinct_id: 'd', timestamp: hoursAgo(24 * 5) },
      { event: 'recent', distinct_id: 'd', timestamp: hoursAgo(0.5) },
    ]
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    await service.eventsOf(fresh, 2)
    const names = async (query: string) => {
      const res = await service.api(fresh, `/api/projects/${fresh.projectId}/events/?${query}`)
      expect(res.status, query).toBe(200)
      return (await res.json()).results.map((e: { event: string }) => e.event)
    }
    expect(await names('after=-2d')).toEqual(['recent'])
    expect(await names('after=-1h')).toEqual(['recent'])
    expect(await names('before=-2d')).toEqual(['old'])
    expect(await names('after=-7d')).toEqual(['recent', 'old'])
  })

  it('answers 400 naming the parameter for a time that is not one', async () => {
    const res = await service.api(account, `/api/projects/${account.projectId}/events/?after=yesterday-ish`)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', attr: 'after' })
  })
})

describe('the properties filter', () => {
  let project: TestAccount
  const users = [
    { distinct_id: 'ann', properties: { plan: 'pro', seats: 5, email: 'ann@acme.com', signed_up: '2024-03-01', quote: 'it\'s "fine"' } },
    { distinct_id: 'bob', properties: { plan: 'free', seats: 1, email: 'bob@other.org', signed_up: '2024-06-01' } },
    { distinct_id: 'cat', properties: { plan: 'Pro', seats: 12, beta: true } },
    { distinct_id: 'dan', properties: { seats: '7' } },
  ]

  beforeAll(async () => {
    project = await service.account()
    const batch = users.map((u, i) => ({ event: 'signed in', ...u, timestamp: minutesAgo(10 - i) }))
    await service.post('/batch/', { api_key: project.projectToken, batch })
    await service.eventsOf(project, users.length)
  })

  async function matching(filter: unknown): Promise<string[]> {
    const res = await service.api(
      project,
      `/api/projects/${project.projectId}/events/?properties=${encodeURIComponent(JSON.stringify(filter))}`,
    )
    expect(res.status).toBe(200)
    const page = (await res.json()) as { results: Array<{ distinct_id: string }> }
    return page.results.map((e) => e.distinct_id).sort()
  }

  it.each([
    ['exact', [{ key: 'plan', value: 'pro' }], ['ann']],
    ['exact with a list', [{ key: 'plan', value: ['pro', 'free'], operator: 'exact' }], ['ann', 'bob']],
    ['exact on a number', [{ key: 'seats', value: 5 }], ['ann']],
    ['exact on a boolean', [{ key: 'beta', value: true }], ['cat']],
    ['is_not (missing counts as not)', [{ key: 'plan', value: 'pro', operator: 'is_not' }], ['bob', 'cat', 'dan']],
    ['icontains', [{ key: 'plan', value: 'PRO', operator: 'icontains' }], ['ann', 'cat']],
    ['not_icontains', [{ key: 'email', value: 'acme', operator: 'not_icontains' }], ['bob', 'cat', 'dan']],
    ['regex', [{ key: 'email', value: '@acme\\.com$', operator: 'regex' }], ['ann']],
    ['not_regex', [{ key: 'plan', value: '^[Pp]ro$', operator: 'not_regex' }], ['bob', 'dan']],
    ['gt', [{ key: 'seats', value: 5, operator: 'gt' }], ['cat', 'dan']],
    ['gte', [{ key: 'seats', value: '5', operator: 'gte' }], ['ann', 'cat', 'dan']],
    ['lt', [{ key: 'seats', value: 5, operator: 'lt' }], ['bob']],
    ['lte', [{ key: 'seats', value: 5, operator: 'lte' }], ['ann', 'bob']],
    ['is_set', [{ key: 'email', operator: 'is_set' }], ['ann', 'bob']],
    ['is_not_set', [{ key: 'email', operator: 'is_not_set' }], ['cat', 'dan']],
    ['is_date_before', [{ key: 'signed_up', value: '2024-04-01', operator: 'is_date_before' }], ['ann']],
    ['is_date_after', [{ key: 'signed_up', value: '2024-04-01', operator: 'is_date_after' }], ['bob']],
    [
      'several, AND-ed',
      [
        { key: 'plan', value: 'pro', operator: 'icontains' },
        { key: 'seats', value: 10, operator: 'gt' },
      ],
      ['cat'],
    ],
    [
      'an OR group',
      {
        type: 'OR',
        values: [
          { key: 'plan', value: 'free' },
          { key: 'beta', operator: 'is_set' },
        ],
      },
      ['bob', 'cat'],
    ],
    ['the legacy dict form', { plan: 'free' }, ['bob']],
    ['the legacy dict form with an operator', { email__icontains: 'ACME' }, ['ann']],
    ['a value with quotes', [{ key: 'quote', value: 'it\'s "fine"' }], ['ann']],
  ])('%s', async (_name, filter, expected) => {
    expect(await matching(filter)).toEqual(expected)
  })

  it('never splices keys or values into the query', async () => {
    expect(await matching([{ key: "plan') OR 1=1 --", value: 'x' }])).toEqual([])
    expect(await matching([{ key: 'plan', value: "pro' OR '1'='1" }])).toEqual([])
    expect(await matching([{ key: "x'}, 1) OR 1=1 OR JSONHas('{", operator: 'is_set' }])).toEqual([])
  })

  it.each([
    ['unparsable JSON', '[{"key":'],
    ['an unknown operator', JSON.stringify([{ key: 'plan', value: 'x', operator: 'sounds_like' }])],
    ['gt without a number', JSON.stringify([{ key: 'seats', value: 'many', operator: 'gt' }])],
    ['an invalid regular expression', JSON.stringify([{ key: 'plan', value: '(', operator: 'regex' }])],
    ['a filter without a key', JSON.stringify([{ value: 'x' }])],
    ['an unsupported type', JSON.stringify([{ key: 'plan', value: 'x', type: 'hogql' }])],
  ])('answers 400 validation_error naming properties for %s', async (_name, raw) => {
    const res = await service.api(project, `/api/projects/${project.projectId}/events/?properties=${encodeURIComponent(raw)}`)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', attr: 'properties' })
  })

  it('filters on person properties and by person (integer id or uuid) through all the distinct ids of the person', async () => {
    // ann identifies as cat's anonymous id: one person with both distinct ids.
    await service.post('/capture/', {
      api_key: project.projectToken,
      event: '$identify',
      distinct_id: 'ann',
      properties: { $anon_distinct_id: 'cat', $set: { company: 'Acme' } },
    })
    await service.eventsOf(project, users.length + 1)
    expect(await matching([{ key: 'company', value: 'acme', operator: 'icontains', type: 'person' }])).toEqual(['ann', 'ann', 'cat'])
    const people = await (await service.api(project, `/api/projects/${project.projectId}/persons/?distinct_id=cat`)).json()
    const person = people.results[0]
    expect(person.distinct_ids.sort()).toEqual(['ann', 'cat'])
    for (const id of [person.id, person.uuid]) {
      const byPerson = await (await service.api(project, `/api/projects/${project.projectId}/events/?person_id=${id}`)).json()
      expect(byPerson.results.map((e: { distinct_id: string }) => e.distinct_id).sort()).toEqual(['ann', 'ann', 'cat'])
    }
    for (const id of [999999999, randomUUID(), 'nobody']) {
      const nobody = await (await service.api(project, `/api/projects/${project.projectId}/events/?person_id=${id}`)).json()
      expect(nobody.count).toBe(0)
    }
  })
})

describe('CSV', () => {
  it('renders the page as CSV with a column per nested property for format=csv and for Accept: text/csv', async () => {
    const fresh = await service.account()
    await service.post('/batch/', {
      api_key: fresh.projectToken,
      batch: [
        { event: 'a', distinct_id: 'u1', properties: { plan: 'pro, yearly' }, timestamp: minutesAgo(2) },
        { event: 'b', distinct_id: 'u2', properties: { seats: 3 }, timestamp: minutesAgo(1) },
      ],
    })
    await service.eventsOf(fresh, 2)
    for (const init of [
      { query: '?format=csv', headers: {} as Record<string, string> },
      { query: '', headers: { accept: 'text/csv' } },
    ]) {
      const res = await service.api(fresh, `/api/projects/${fresh.projectId}/events/${init.query}`, { headers: init.headers })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
      const [header, ...rows] = (await res.text()).trim().split('\n')
      const columns = header!.split(',')
      expect(columns).toEqual(expect.arrayContaining(['id', 'distinct_id', 'event', 'timestamp', 'properties.plan', 'properties.seats']))
      expect(rows).toHaveLength(2)
      expect(rows[0]).toContain('u2')
      expect(rows[1]).toContain('"pro, yearly"')
    }
  })
})

describe('retrieving one event', () => {
  it('answers the event by its uuid, 400 for a malformed id and 404 for an unknown one', async () => {
    const fresh = await service.account()
    const uuid = randomUUID()
    await service.post('/capture/', { api_key: fresh.projectToken, event: 'one', distinct_id: 'x', uuid, properties: { k: 1 } })
    await service.eventsOf(fresh, 1)
    const res = await service.api(fresh, `/api/projects/${fresh.projectId}/events/${uuid}/`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      id: uuid,
      event: 'one',
      distinct_id: 'x',
      properties: { k: 1 },
      person: { is_identified: false, distinct_ids: ['x'], properties: {} },
    })

    const malformed = await service.api(fresh, `/api/projects/${fresh.projectId}/events/not-a-uuid/`)
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Invalid UUID', attr: null })

    const unknown = randomUUID()
    const missing = await service.api(fresh, `/api/projects/${fresh.projectId}/events/${unknown}/`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 'not_found', detail: `No events exist for event UUID ${unknown}` })

    const elsewhere = await service.api(account, `/api/projects/${account.projectId}/events/${uuid}/`)
    expect(elsewhere.status).toBe(404)
  })
})

describe('property values', () => {
  it('answers the distinct values of a property with their counts, most frequent first', async () => {
    const fresh = await service.account()
    const batch = [
      { event: 'view', properties: { browser: 'Chrome', tags: ['a', 'b'] } },
      { event: 'view', properties: { browser: 'Chrome', tags: ['a'] } },
      { event: 'view', properties: { browser: 'Firefox' } },
      { event: 'click', properties: { browser: 'Safari' } },
      { event: 'click', properties: { other: 1 } },
      { event: '$pageview', properties: {} },
    ].map((e, i) => ({ ...e, distinct_id: `d${i}`, timestamp: minutesAgo(i + 1) }))
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    await service.eventsOf(fresh, batch.length)
    const values = (query: string) => service.api(fresh, `/api/projects/${fresh.projectId}/events/values/?${query}`).then((r) => r.json())

    expect(await values('key=browser')).toEqual([
      { name: 'Chrome', count: 2 },
      { name: 'Firefox', count: 1 },
      { name: 'Safari', count: 1 },
    ])
    expect(await values('key=browser&value=fire')).toEqual([{ name: 'Firefox', count: 1 }])
    const csv = await service.api(fresh, `/api/projects/${fresh.projectId}/events/values/?key=browser&format=csv`)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(await csv.text()).toBe('name,count\nChrome,2\nFirefox,1\nSafari,1\n')
    expect(await values('key=browser&event=click')).toEqual([{ name: 'Safari', count: 1 }])
    expect(await values('key=tags')).toEqual([
      { name: 'a', count: 2 },
      { name: 'b', count: 1 },
    ])
    expect(await values('key=custom_event')).toEqual([
      { name: 'view', count: 3 },
      { name: 'click', count: 2 },
    ])
    const missing = await service.api(fresh, `/api/projects/${fresh.projectId}/events/values/`)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ type: 'validation_error', attr: 'key', detail: 'You must provide a key' })
  })

  it('answers the values of a property kept in a column of its own as it answers those of any other', async () => {
    const fresh = await service.account()
    // $browser and $os have columns of their own; `browser_copy` and `os_copy` are read from the JSON.
    const shapes: Array<Record<string, unknown>> = [
      { $browser: 'Chrome', $os: ['Mac', 'iOS'] },
      { $browser: 'Chrome', $os: 'Mac' },
      { $browser: 'Firefox', $os: 12 },
      { $browser: null, $os: true },
      { $browser: '' },
      {},
    ]
    const batch = shapes.map((p, i) => ({
      event: 'view',
      distinct_id: `m${i}`,
      timestamp: minutesAgo(i + 1),
      properties: { ...p, ...Object.fromEntries(Object.entries(p).map(([k, v]) => [`${k.slice(1)}_copy`, v])) },
    }))
    await service.post('/batch/', { api_key: fresh.projectToken, batch })
    await service.eventsOf(fresh, batch.length)
    const values = (key: string) =>
      service.api(fresh, `/api/projects/${fresh.projectId}/events/values/?key=${encodeURIComponent(key)}`).then((r) => r.json())
    expect(await values('$browser')).toEqual(await values('browser_copy'))
    expect(await values('$os')).toEqual(await values('os_copy'))
    expect(await values('$os')).toEqual([
      { name: 'Mac', count: 2 },
      { name: '12', count: 1 },
      { name: 'iOS', count: 1 },
      { name: 'true', count: 1 },
    ])
  })
})
