import { randomUUID } from 'node:crypto'
import { waitFor, type TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

// What a PostHog user notices of ingestion, tried through the HTTP API as clients send events.

let service: TestService
let account: TestAccount
// The test's requests come from loopback as if through two proxies in front of the service.
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  { TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' },
)

type Person = { id: number; uuid: string; distinct_ids: string[]; properties: Record<string, unknown>; is_identified: boolean }
type Warning = { type: string; timestamp: string; details: Record<string, unknown> }
type WarningSummary = { type: string; lastSeen: string | null; sparkline: Array<[number, string]>; warnings: Warning[]; count: number }

const secondsAgo = (n: number) => new Date(Date.now() - n * 1000).toISOString()

async function send(batch: Array<Record<string, unknown>>, query = '', headers: Record<string, string> = {}): Promise<void> {
  const res = await service.post(`/batch/${query}`, { api_key: account.projectToken, batch }, headers)
  expect(res.status).toBe(200)
}

const personOf = (distinctId: string, ready: (p: Person) => boolean = () => true) =>
  service.personOf(account, distinctId, (p) => ready(p as Person)) as Promise<Person>

async function eventsOf(distinctId: string, count = 1): Promise<Array<Record<string, any>>> {
  return service.eventsOf(account, count, `&distinct_id=${encodeURIComponent(distinctId)}`)
}

async function warnings(query = ''): Promise<WarningSummary[]> {
  const res = await service.api(account, `/api/projects/${account.projectId}/ingestion_warnings/${query}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { results: WarningSummary[] }).results
}

const warningsOfType = (type: string, ready: (s: WarningSummary) => boolean = () => true) =>
  waitFor(
    async () => {
      const found = (await warnings()).find((s) => s.type === type)
      return found && ready(found) ? found : undefined
    },
    { what: `ingestion warnings of type ${type}`, timeoutMs: 15_000 },
  )

describe('event times', () => {
  it('stores a date-only timestamp at midnight UTC and accepts a spaced +0000 zone', async () => {
    await send([
      { event: 'dated', distinct_id: 'dates', timestamp: '2024-01-02' },
      { event: 'dated', distinct_id: 'dates', timestamp: '2023-12-31' },
      { event: 'dated', distinct_id: 'dates', timestamp: '2024-01-02 03:04:05 +0000' },
    ])
    const stored = (await eventsOf('dates', 3)).map((e) => e.timestamp).sort()
    expect(stored).toEqual(['2023-12-31T00:00:00.000000+00:00', '2024-01-02T00:00:00.000000+00:00', '2024-01-02T03:04:05.000000+00:00'])
  })
})

describe('what is stored of an event', () => {
  it('keeps the first 200 characters of a longer event name', async () => {
    await send([{ event: `long-${'x'.repeat(400)}`, distinct_id: 'long-name' }])
    const [event] = await eventsOf('long-name')
    expect(event!.event).toBe(`long-${'x'.repeat(195)}`)
  })

  it('keeps the exact digits of a 20-digit numeric distinct id', async () => {
    const body = `{"api_key":"${account.projectToken}","batch":[{"event":"numeric","distinct_id":12345678901234567891}]}`
    expect((await service.post('/batch/', body)).status).toBe(200)
    const [event] = await eventsOf('12345678901234567891')
    expect(event!.distinct_id).toBe('12345678901234567891')
  })

  it('gives $ip: null or "" the request’s address, and reads an X-Forwarded-For with a port or garbage', async () => {
    await send([{ event: 'ip', distinct_id: 'ip-null', properties: { $ip: null } }], '', { 'x-forwarded-for': '203.0.113.7:51234' })
    await send([{ event: 'ip', distinct_id: 'ip-empty', properties: { $ip: '' } }], '', {
      'x-forwarded-for': '[2001:db8::7]:443, 10.0.0.1',
    })
    await send([{ event: 'ip', distinct_id: 'ip-garbage' }], '', { 'x-forwarded-for': 'not-an-address' })
    expect((await eventsOf('ip-null'))[0]!.properties.$ip).toBe('203.0.113.7')
    expect((await eventsOf('ip-empty'))[0]!.properties.$ip).toBe('2001:db8::7')
    expect((await eventsOf('ip-garbage'))[0]!.properties.$ip).toBe('127.0.0.1')
  })

  it('keeps attr__class in the elements and both element forms out of the properties', async () => {
    await send([
      {
        event: '$autocapture',
        distinct_id: 'clicker',
        properties: { $elements: [{ tag_name: 'button', attr__class: 'btn primary', $el_text: 'Buy', nth_child: 2 }], $elements_chain: '' },
      },
    ])
    const [event] = await eventsOf('clicker')
    expect(event!.properties).not.toHaveProperty('$elements')
    expect(event!.properties).not.toHaveProperty('$elements_chain')
    expect(event!.elements[0]).toMatchObject({ tag_name: 'button', attr_class: ['btn', 'primary'], text: 'Buy', nth_child: 2 })
    expect(event!.elements[0].attributes).toMatchObject({ attr__class: 'btn primary' })
  })

  it('answers 200 to $performance_event, $$heatmap and $$client_ingestion_warning but stores none of them as events', async () => {
    await send([
      { event: '$performance_event', distinct_id: 'not-events' },
      { event: '$$heatmap', distinct_id: 'not-events', properties: { $heatmap_data: { '/': [] } } },
      { event: '$$client_ingestion_warning', distinct_id: 'not-events', properties: { $$client_ingestion_warning_message: 'too fast' } },
      { event: '$pageview', distinct_id: 'not-events', properties: { $heatmap_data: { '/': [{ x: 1 }] } } },
    ])
    const events = await eventsOf('not-events')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect((await eventsOf('not-events')).map((e) => e.event)).toEqual(['$pageview'])
    expect(events[0]!.properties).not.toHaveProperty('$heatmap_data')
    const summary = await warningsOfType('client_ingestion_warning')
    expect(summary.warnings[0]!.details).toMatchObject({
      event: '$$client_ingestion_warning',
      distinctId: 'not-events',
      message: 'too fast',
    })
  })
})

describe('persons', () => {
  it('keeps the identified person’s values over the anonymous one’s on $identify, as PostHog merges', async () => {
    await send([
      {
        event: 'login',
        distinct_id: 'user-m',
        properties: { $set: { plan: 'paid' }, $set_once: { $initial_referrer: 'https://news.example/' } },
      },
    ])
    await personOf('user-m')
    // The anonymous person is written after the user: PostHog still keeps the user's values.
    await send([
      { event: '$pageview', distinct_id: 'anon-m', properties: { $set: { plan: 'free', colour: 'blue' }, $referrer: '$direct' } },
    ])
    await personOf('anon-m', (p) => p.properties.plan === 'free')
    await send([{ event: '$identify', distinct_id: 'user-m', properties: { $anon_distinct_id: 'anon-m' } }])
    const person = await personOf('anon-m', (p) => p.distinct_ids.length === 2)
    expect(person.properties).toMatchObject({ plan: 'paid', colour: 'blue', $initial_referrer: 'https://news.example/' })
  })

  it('keeps initial and campaign properties of a $pageview on the person', async () => {
    await send([
      {
        event: '$pageview',
        distinct_id: 'utm-visitor',
        properties: { $browser: 'Firefox', $os: 'Linux', utm_source: 'newsletter', $current_url: 'https://x.test/?utm_source=newsletter' },
      },
    ])
    const person = await personOf('utm-visitor', (p) => Object.keys(p.properties).length > 0)
    expect(person.properties).toEqual({
      $browser: 'Firefox',
      $os: 'Linux',
      utm_source: 'newsletter',
      $current_url: 'https://x.test/?utm_source=newsletter',
      $initial_browser: 'Firefox',
      $initial_os: 'Linux',
      $initial_utm_source: 'newsletter',
      $initial_current_url: 'https://x.test/?utm_source=newsletter',
    })
  })

  it('does not update a person for new values of the page, browser and device properties alone, as PostHog filters them', async () => {
    const visitor = 'filtered-visitor'
    await send([{ event: '$pageview', distinct_id: visitor, properties: { $browser: 'Firefox', utm_source: 'newsletter' } }])
    await personOf(visitor, (p) => p.properties.$browser === 'Firefox')
    // Only filtered values of keys the person has: the person stays as it was.
    await send([{ event: '$pageview', distinct_id: visitor, properties: { $browser: 'Chrome' } }])
    await eventsOf(visitor, 2)
    expect((await personOf(visitor)).properties).toMatchObject({ $browser: 'Firefox', utm_source: 'newsletter' })
    // A campaign parameter is not filtered: its change writes the event's filtered values too.
    await send([{ event: '$pageview', distinct_id: visitor, properties: { $browser: 'Chrome', utm_source: 'ad' } }])
    await eventsOf(visitor, 3)
    expect((await personOf(visitor)).properties).toMatchObject({ $browser: 'Chrome', utm_source: 'ad', $initial_utm_source: 'newsletter' })
    // A filtered key the person lacks is written, with the other filtered values of that event.
    await send([{ event: '$pageview', distinct_id: visitor, properties: { $browser: 'Safari', $device_type: 'Mobile' } }])
    await eventsOf(visitor, 4)
    expect((await personOf(visitor)).properties).toMatchObject({ $browser: 'Safari', $device_type: 'Mobile' })
    // A change of the client's own properties writes the filtered values along with it.
    await send([{ event: 'upgraded', distinct_id: visitor, properties: { $browser: 'Opera', $set: { plan: 'pro' } } }])
    await eventsOf(visitor, 5)
    const person = await personOf(visitor)
    expect(person.properties).toMatchObject({ plan: 'pro', $browser: 'Opera', $initial_browser: 'Firefox' })
    // An $identify updates the person with every property it carries.
    await send([{ event: '$identify', distinct_id: visitor, properties: { $browser: 'Edge' } }])
    await eventsOf(visitor, 6)
    expect((await personOf(visitor)).properties).toMatchObject({ $browser: 'Edge' })
  })

  it('lists a person’s distinct ids in the order they joined it', async () => {
    await send([{ event: 'visit', distinct_id: 'zz-first', timestamp: secondsAgo(3) }])
    await personOf('zz-first')
    await send([{ event: '$identify', distinct_id: 'aa-second', properties: { $anon_distinct_id: 'zz-first' } }])
    const person = await personOf('zz-first', (p) => p.distinct_ids.length === 2)
    expect(person.distinct_ids).toEqual(['zz-first', 'aa-second'])
    const events = await eventsOf('zz-first')
    expect(events[0]!.person.distinct_ids).toEqual(['zz-first'])

    // Two new ids at once: the event's own first, as PostHog creates the person.
    await send([{ event: '$identify', distinct_id: 'zz-user', properties: { $anon_distinct_id: 'aa-anon' } }])
    expect((await personOf('aa-anon')).distinct_ids).toEqual(['zz-user', 'aa-anon'])
  })

  it('with $process_person_profile false, drops $identify with a warning and keeps no $set on the event', async () => {
    await send([
      {
        event: 'visit',
        distinct_id: 'personless',
        properties: { $process_person_profile: false, $set: { plan: 'x' }, $browser: 'Safari' },
      },
      {
        event: '$identify',
        distinct_id: 'personless-user',
        properties: { $process_person_profile: false, $anon_distinct_id: 'personless' },
      },
      { event: 'visit', distinct_id: 'profiled', properties: { $process_person_profile: true } },
    ])
    const [visit] = await eventsOf('personless')
    expect(visit!.properties).not.toHaveProperty('$set')
    expect(visit!.properties).not.toHaveProperty('$set_once')
    expect(visit!.properties.$process_person_profile).toBe(false)
    expect((await eventsOf('profiled'))[0]!.properties).not.toHaveProperty('$process_person_profile')
    const summary = await warningsOfType('invalid_event_when_process_person_profile_is_false')
    expect(summary).toMatchObject({ count: 1, sparkline: [[1, expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)]] })
    expect(summary.warnings[0]).toMatchObject({ type: summary.type, details: { event: '$identify', distinctId: 'personless-user' } })
    expect(summary.lastSeen).toBe(summary.warnings[0]!.timestamp)
    const noEvents = await service.api(account, `/api/projects/${account.projectId}/events/?distinct_id=personless-user`)
    expect((await noEvents.json()).results).toEqual([])
  })

  it('does not change the person from $groupidentify with $set, nor from $exception', async () => {
    await send([{ event: 'visit', distinct_id: 'grouped', properties: { $set: { plan: 'free' } } }])
    await personOf('grouped')
    await send([
      {
        event: '$groupidentify',
        distinct_id: 'grouped',
        properties: { $group_type: 'company', $group_key: 'acme', $set: { plan: 'group' } },
      },
      { event: '$exception', distinct_id: 'grouped', properties: { $set: { plan: 'exception' }, $browser: 'Edge' } },
      { event: 'after', distinct_id: 'grouped', properties: { $set: { seen: true } } },
    ])
    const person = await personOf('grouped', (p) => p.properties.seen === true)
    expect(person.properties).toEqual({ plan: 'free', seen: true })
  })
})

describe('static cohorts through merges', () => {
  let cohortId: number
  const cohortPath = () => `/api/projects/${account.projectId}/cohorts/${cohortId}/`

  beforeAll(async () => {
    await send([
      { event: 'visit', distinct_id: 'i-b' },
      { event: 'visit', distinct_id: 'tgt-1' },
    ])
    await personOf('i-b')
    await personOf('tgt-1')
    const res = await service.api(account, `/api/projects/${account.projectId}/cohorts/`, {
      method: 'POST',
      body: JSON.stringify({ name: `Static ${randomUUID()}`, is_static: true, distinct_ids: ['i-b'] }),
    })
    expect(res.status).toBe(201)
    cohortId = ((await res.json()) as { id: number }).id
    await waitFor(
      async () => {
        const c = await (await service.api(account, cohortPath())).json()
        return !c.is_calculating && c.last_calculation ? c : undefined
      },
      { what: 'the static cohort', timeoutMs: 15_000 },
    )
  })

  it('keeps the member after $identify merges its person into another', async () => {
    await send([{ event: '$identify', distinct_id: 'tgt-1', properties: { $anon_distinct_id: 'i-b' } }])
    const merged = await personOf('i-b', (p) => p.distinct_ids.length === 2)

    expect((await (await service.api(account, cohortPath())).json()).count).toBe(1)
    const members = await waitFor(
      async () => {
        const page = await (await service.api(account, `${cohortPath()}persons/`)).json()
        return page.results.length > 0 ? (page.results as Person[]) : undefined
      },
      { what: 'the cohort’s members', timeoutMs: 15_000 },
    )
    expect(members.map((p) => p.uuid)).toEqual([merged.uuid])

    const inCohort = encodeURIComponent(JSON.stringify([{ key: 'id', value: cohortId, type: 'cohort' }]))
    const events = await (await service.api(account, `/api/projects/${account.projectId}/events/?properties=${inCohort}`)).json()
    expect(new Set((events.results as Array<{ distinct_id: string }>).map((e) => e.distinct_id))).toEqual(new Set(['i-b', 'tgt-1']))

    const flag = await service.api(account, `/api/projects/${account.projectId}/feature_flags/`, {
      method: 'POST',
      body: JSON.stringify({
        key: `static-${cohortId}`,
        filters: { groups: [{ properties: [{ key: 'id', value: cohortId, type: 'cohort' }], rollout_percentage: 100 }] },
      }),
    })
    expect(flag.status).toBe(201)
    const decide = await service.post('/decide/?v=2', { api_key: account.projectToken, distinct_id: 'tgt-1' })
    expect(((await decide.json()) as { featureFlags: Record<string, unknown> }).featureFlags[`static-${cohortId}`]).toBe(true)
  })
})

describe('the ingestion warnings endpoint', () => {
  it('searches types and details with q', async () => {
    await send([
      { event: '$$client_ingestion_warning', distinct_id: 'searcher', properties: { $$client_ingestion_warning_message: 'needle-42' } },
    ])
    await warningsOfType('client_ingestion_warning', (s) => s.warnings.some((w) => w.details.message === 'needle-42'))
    const found = await warnings('?q=needle-42')
    expect(found.map((s) => s.type)).toEqual(['client_ingestion_warning'])
    expect(found[0]!.warnings.map((w) => w.details.message)).toEqual(['needle-42'])
    expect(await warnings('?q=nothing-matches-this')).toEqual([])
  })

  it('tells of merges refused: a placeholder id, and a person identified already', async () => {
    await send([{ event: '$identify', distinct_id: 'real-user', properties: { $anon_distinct_id: '"anonymous"' } }])
    const illegal = await warningsOfType('cannot_merge_with_illegal_distinct_id')
    expect(illegal.warnings[0]!.details).toMatchObject({ illegalDistinctId: '"anonymous"', otherDistinctId: 'real-user' })

    await send([
      { event: '$identify', distinct_id: 'known-a', properties: { $anon_distinct_id: 'anon-a' } },
      { event: '$identify', distinct_id: 'known-b', properties: { $anon_distinct_id: 'anon-b' } },
    ])
    await personOf('anon-a', (p) => p.is_identified)
    await personOf('anon-b', (p) => p.is_identified)
    await send([{ event: '$identify', distinct_id: 'known-a', properties: { $anon_distinct_id: 'known-b' } }])
    const refused = await warningsOfType('cannot_merge_already_identified')
    expect(refused.warnings[0]!.details).toEqual({ sourcePersonDistinctId: 'known-b', targetPersonDistinctId: 'known-a' })
  })

  it('answers 401 without credentials', async () => {
    const res = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/ingestion_warnings/`)
    expect(res.status).toBe(401)
  })
})
