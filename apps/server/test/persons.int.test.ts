import { randomBytes, randomUUID } from 'node:crypto'
import { waitFor, type TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
useTestService((s) => {
  service = s
})

type Person = {
  id: number
  uuid: string
  name: string
  distinct_ids: string[]
  properties: Record<string, unknown>
  is_identified: boolean
  created_at: string
}

const secondsAgo = (n: number) => new Date(Date.now() - n * 1000).toISOString()

async function send(account: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await service.post('/batch/', { api_key: account.projectToken, batch })
  expect(res.status).toBe(200)
}

async function personsPage(account: TestAccount, query = ''): Promise<{ count: number; results: Person[] }> {
  const res = await service.api(account, `/api/projects/${account.projectId}/persons/${query}`)
  expect(res.status).toBe(200)
  return res.json()
}

/** The names of the project's event definitions once they include `name` (definitions trail their events). */
async function definitionNamesOnce(account: TestAccount, name: string): Promise<string[]> {
  return waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/${account.projectId}/event_definitions/`)
      const found = ((await res.json()).results as Array<{ name: string }>).map((d) => d.name)
      return found.includes(name) ? found : undefined
    },
    { what: `the definition of ${name}`, timeoutMs: 15_000 },
  )
}

const personOf = (account: TestAccount, distinctId: string, ready: (p: Person) => boolean = () => true) =>
  service.personOf(account, distinctId, (p) => ready(p as Person)) as Promise<Person>

describe('persons from events', () => {
  let account: TestAccount
  beforeAll(async () => {
    account = await service.account()
  })

  it('creates a person with the first event of a distinct id, once, and shows it beside its events', async () => {
    await send(account, [
      { event: 'first', distinct_id: 'newcomer', timestamp: secondsAgo(3) },
      { event: 'second', distinct_id: 'newcomer', timestamp: secondsAgo(2) },
    ])
    const person = await personOf(account, 'newcomer')
    expect(person).toMatchObject({ distinct_ids: ['newcomer'], properties: {}, is_identified: false, name: 'newcomer' })
    expect(person.uuid).toMatch(/^[0-9a-f-]{36}$/)
    await send(account, [{ event: 'third', distinct_id: 'newcomer' }])
    const events = await service.eventsOf(account, 3, '&distinct_id=newcomer')
    for (const e of events) expect(e.person).toEqual({ is_identified: false, distinct_ids: ['newcomer'], properties: {} })
    expect((await personsPage(account, '?distinct_id=newcomer')).count).toBe(1)
  })

  it('applies $set, $set_once and $unset in event order, from properties and from the top level', async () => {
    await send(account, [
      {
        event: 'a',
        distinct_id: 'props',
        properties: { $set: { plan: 'free', email: 'p@example.com' }, $set_once: { first_seen: 'monday' } },
      },
      { event: 'b', distinct_id: 'props', $set: { plan: 'pro' }, $set_once: { first_seen: 'tuesday', source: 'ad' } },
      { event: 'c', distinct_id: 'props', properties: { $unset: ['email'], $set_once: { plan: 'ignored' } } },
    ])
    const person = await personOf(account, 'props', (p) => p.properties.plan === 'pro')
    expect(person.properties).toEqual({ plan: 'pro', first_seen: 'monday', source: 'ad' })

    // A later batch: $set_once keeps what is there, and fills a key removed earlier.
    await send(account, [
      { event: 'd', distinct_id: 'props', properties: { $set_once: { first_seen: 'friday', email: 'again@example.com' } } },
      { event: 'e', distinct_id: 'props', properties: { $set: { name: 'Pat' } } },
    ])
    const later = await personOf(account, 'props', (p) => p.properties.name === 'Pat')
    expect(later.properties).toEqual({ plan: 'pro', first_seen: 'monday', source: 'ad', email: 'again@example.com', name: 'Pat' })
    expect(later.name).toBe('again@example.com')
  })

  it('leaves a person as it is when an event sets only what it already holds', async () => {
    const versionOf = async (uuid: string) => {
      const [row] = await service.app.deps.sql<{ version: number; properties_updated_at: Date }[]>`
        select version::int as version, properties_updated_at from persons where uuid = ${uuid}`
      return row
    }
    const visit = (browser: string, setOnce: string) => ({
      event: 'visit',
      distinct_id: 'steady',
      properties: { $browser: browser, $set: { plan: 'pro' }, $set_once: { source: setOnce } },
    })
    await send(account, [visit('Chrome', 'ad')])
    const person = await personOf(account, 'steady', (p) => p.properties.plan === 'pro')
    const before = await versionOf(person.uuid)

    // The same $set, a $set_once of a key it has, and a device property that alone changes no person (as in PostHog).
    await send(account, [visit('Firefox', 'newsletter'), visit('Chrome', 'newsletter')])
    await service.eventsOf(account, 3, '&distinct_id=steady')
    expect(await versionOf(person.uuid)).toEqual(before)
    expect((await personOf(account, 'steady')).properties).toEqual({
      plan: 'pro',
      source: 'ad',
      $browser: 'Chrome',
      $initial_browser: 'Chrome',
    })

    await send(account, [{ event: 'upgrade', distinct_id: 'steady', properties: { $set: { plan: 'team' } } }])
    await personOf(account, 'steady', (p) => p.properties.plan === 'team')
    expect((await versionOf(person.uuid))?.version).toBe(before!.version + 1)
  })

  it('merges the anonymous person into the identified one on $identify, keeping both histories', async () => {
    await send(account, [
      {
        event: '$pageview',
        distinct_id: 'anon-1',
        properties: { $set_once: { landing: '/pricing' }, $set: { plan: 'trial' } },
        timestamp: secondsAgo(5),
      },
      { event: 'login', distinct_id: 'user-1', properties: { $set: { email: 'one@example.com', plan: 'old' } }, timestamp: secondsAgo(4) },
    ])
    await personOf(account, 'user-1')
    await personOf(account, 'anon-1')
    await send(account, [{ event: '$identify', distinct_id: 'user-1', properties: { $anon_distinct_id: 'anon-1', $set: { name: 'One' } } }])
    const person = await personOf(account, 'anon-1', (p) => p.distinct_ids.length === 2)
    expect(person.distinct_ids.sort()).toEqual(['anon-1', 'user-1'])
    expect(person.is_identified).toBe(true)
    // The identified person's (user-1) values win, as in PostHog; $set of the identify applies after the merge.
    expect(person.properties).toEqual({ landing: '/pricing', email: 'one@example.com', plan: 'old', name: 'One' })
    expect((await personOf(account, 'user-1')).uuid).toBe(person.uuid)

    const events = await service.eventsOf(account, 3, `&person_id=${person.id}`)
    expect(events.map((e) => e.distinct_id).sort()).toEqual(['anon-1', 'user-1', 'user-1'])
  })

  it('links a new distinct id to the existing person on $identify and $create_alias, and follows chains of merges', async () => {
    await send(account, [{ event: 'visit', distinct_id: 'chain-a', properties: { $set: { step: 'a' } } }])
    await personOf(account, 'chain-a')
    await send(account, [
      { event: '$identify', distinct_id: 'chain-b', properties: { $anon_distinct_id: 'chain-a' } },
      { event: '$create_alias', distinct_id: 'chain-b', properties: { alias: 'chain-c' } },
      { event: 'visit', distinct_id: 'chain-d', properties: { $set: { step: 'd' } } },
    ])
    await personOf(account, 'chain-d')
    await send(account, [{ event: '$create_alias', distinct_id: 'chain-c', properties: { alias: 'chain-d' } }])
    const person = await personOf(account, 'chain-a', (p) => p.distinct_ids.length === 4)
    expect(person.distinct_ids.sort()).toEqual(['chain-a', 'chain-b', 'chain-c', 'chain-d'])
    for (const id of ['chain-b', 'chain-c', 'chain-d']) expect((await personOf(account, id)).uuid).toBe(person.uuid)
    expect((await personsPage(account, '?search=chain-')).count).toBe(1)
  })

  it('merges across the slices a large batch is processed in', async () => {
    // Sent back to back, these requests are usually consumed as one batch of 1,500 rows,
    // which persons are processed for in slices: the merges must find the earlier slices' persons.
    const users = Array.from({ length: 300 }, (_, i) => i)
    for (let part = 0; part < 3; part++) {
      await send(account, [
        ...users.map((i) => ({ event: 'browse', distinct_id: `slice-anon-${i}`, properties: { $set: { n: i, part } } })),
        ...users.slice(0, 100 * part).map((i) => ({ event: 'again', distinct_id: `slice-anon-${i}` })),
      ])
    }
    for (const half of [users.slice(0, 150), users.slice(150)]) {
      await send(
        account,
        half.map((i) => ({ event: '$identify', distinct_id: `slice-user-${i}`, properties: { $anon_distinct_id: `slice-anon-${i}` } })),
      )
    }
    for (const i of [0, 149, 150, 299]) {
      const person = await personOf(account, `slice-user-${i}`, (p) => p.distinct_ids.length === 2)
      expect(person.distinct_ids.sort()).toEqual([`slice-anon-${i}`, `slice-user-${i}`])
      expect(person.properties).toEqual({ n: i, part: 2 })
    }
    const res = await personsPage(account, '?search=slice-&limit=1000')
    expect(res.count).toBe(300)
  })

  it('does not merge two identified persons unless the event is $merge_dangerously', async () => {
    await send(account, [
      { event: '$identify', distinct_id: 'known-x', properties: { $anon_distinct_id: 'anon-x' } },
      { event: '$identify', distinct_id: 'known-y', properties: { $anon_distinct_id: 'anon-y' } },
    ])
    await personOf(account, 'known-y', (p) => p.is_identified)
    await send(account, [{ event: '$identify', distinct_id: 'known-x', properties: { $anon_distinct_id: 'known-y' } }])
    await send(account, [{ event: 'marker', distinct_id: 'known-x', properties: { $set: { marker: 1 } } }])
    const x = await personOf(account, 'known-x', (p) => p.properties.marker === 1)
    expect(x.distinct_ids.sort()).toEqual(['anon-x', 'known-x'])

    await send(account, [{ event: '$merge_dangerously', distinct_id: 'known-x', properties: { alias: 'known-y' } }])
    const merged = await personOf(account, 'known-x', (p) => p.distinct_ids.length === 4)
    expect(merged.distinct_ids.sort()).toEqual(['anon-x', 'anon-y', 'known-x', 'known-y'])
  })

  it('ignores merges on placeholder ids and keeps events without a person when asked to', async () => {
    await send(account, [
      { event: '$identify', distinct_id: 'real-user', properties: { $anon_distinct_id: 'undefined' } },
      { event: 'not profiled', distinct_id: 'ghost', properties: { $process_person_profile: false, $set: { x: 1 } } },
    ])
    const person = await personOf(account, 'real-user')
    expect(person.distinct_ids).toEqual(['real-user'])
    const [ghostEvent] = await service.eventsOf(account, 1, '&distinct_id=ghost')
    expect(ghostEvent!.person).toBeNull()
    expect((await personsPage(account, '?distinct_id=ghost')).count).toBe(0)
  })

  it('stores U+0000 in person properties, ids and event names as U+FFFD, without failing the events beside them', async () => {
    const fresh = await service.account()
    await send(fresh, [
      {
        event: 'signed up',
        distinct_id: 'nul-props',
        properties: { $set: { 'na\u0000me': 'a\u0000b', nested: { deep: ['x\u0000'] } }, $set_once: { first: '\u0000' } },
      },
      { event: 'signed up', distinct_id: 'clean', properties: { $set: { plan: 'pro' } } },
      { event: 'clicked\u0000button', distinct_id: 'clean' },
      {
        event: '$identify',
        distinct_id: 'nul-props',
        properties: { $anon_distinct_id: 'anon\u0000device', $groups: { 'org\u0000type': 'acme' } },
      },
    ])
    const clean = await service.personOf(fresh, 'clean', (p) => p.properties.plan === 'pro')
    expect(clean.properties).toEqual({ plan: 'pro' })
    const dirty = await service.personOf(fresh, 'nul-props', (p) => p.distinct_ids.length === 2)
    expect(dirty.properties).toEqual({ 'na\uFFFDme': 'a\uFFFDb', nested: { deep: ['x\uFFFD'] }, first: '\uFFFD' })
    expect(dirty.distinct_ids.sort()).toEqual(['anon\uFFFDdevice', 'nul-props'])

    // The event name is stored as its definition is named, and later names are still recorded.
    await send(fresh, [{ event: 'after it', distinct_id: 'clean' }])
    const names = await definitionNamesOnce(fresh, 'after it')
    expect(names).toContain('clicked\uFFFDbutton')
    const stored = await service.eventsOf(fresh, 1, `&event=${encodeURIComponent('clicked\uFFFDbutton')}`)
    expect(stored[0]!.person).toMatchObject({ distinct_ids: ['clean'] })
  })

  it('stores events whose group type is beyond PostHog’s 400 characters, cuts long names to 200, and keeps persons and definitions', async () => {
    const fresh = await service.account()
    // Incompressible, so that it cannot fit a PostgreSQL index entry by compression either.
    const long = randomBytes(15_000).toString('base64')
    await send(fresh, [
      { event: long, distinct_id: 'long-name' },
      { event: 'grouped', distinct_id: 'long-group', properties: { $groups: { [long]: 'acme', company: 'acme' }, $set: { plan: 'team' } } },
    ])
    await send(fresh, [{ event: 'after the long ones', distinct_id: 'long-name' }])
    const person = await service.personOf(fresh, 'long-group', (p) => p.properties.plan === 'team')
    expect(person.distinct_ids).toEqual(['long-group'])
    await service.personOf(fresh, 'long-name')
    const names = await definitionNamesOnce(fresh, 'after the long ones')
    expect(names.sort()).toEqual(['after the long ones', 'grouped', long.slice(0, 200)].sort())
    expect((await service.eventsOf(fresh, 3)).map((e) => e.event.length).sort((a, b) => a - b)).toEqual([7, 19, 200])
    const project = await (await service.api(fresh, `/api/projects/${fresh.projectId}/`)).json()
    expect(project.has_group_types).toBe(true)
  })
})

describe('the persons endpoints', () => {
  let account: TestAccount
  let ann: Person
  beforeAll(async () => {
    account = await service.account()
    await send(account, [
      { event: 'e', distinct_id: 'ann', properties: { $set: { email: 'ann@acme.com', plan: 'pro', seats: 5 } }, timestamp: secondsAgo(3) },
      {
        event: 'e',
        distinct_id: 'bob',
        properties: { $set: { email: 'bob@other.org', plan: 'free', seats: 1 } },
        timestamp: secondsAgo(2),
      },
      { event: 'e', distinct_id: 'cat', properties: { $set: { name: 'Cat', plan: 'pro' } }, timestamp: secondsAgo(1) },
    ])
    await waitFor(async () => ((await personsPage(account)).count === 3 ? true : undefined), { what: 'three persons', timeoutMs: 15_000 })
    ann = await personOf(account, 'ann')
  })

  const names = (page: { results: Person[] }) => page.results.map((p) => p.name).sort()

  it('lists the persons newest first with search, distinct_id and properties filters', async () => {
    const all = await personsPage(account)
    expect(all.count).toBe(3)
    expect(all.results.map((p) => p.distinct_ids[0])).toEqual(['cat', 'bob', 'ann'])
    expect(names(await personsPage(account, '?search=ACME'))).toEqual(['ann@acme.com'])
    expect(names(await personsPage(account, '?search=bo'))).toEqual(['bob@other.org'])
    // Each word of a search must match, in the properties or a distinct id.
    expect(names(await personsPage(account, '?search=pro%20ACME'))).toEqual(['ann@acme.com'])
    expect(names(await personsPage(account, '?search=pro%20other'))).toEqual([])
    expect(names(await personsPage(account, '?distinct_id=cat'))).toEqual(['Cat'])
    const pro = encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro', type: 'person' }]))
    expect(names(await personsPage(account, `?properties=${pro}`))).toEqual(['Cat', 'ann@acme.com'])
    const seats = encodeURIComponent(JSON.stringify([{ key: 'seats', value: 2, operator: 'gt' }]))
    expect(names(await personsPage(account, `?properties=${seats}`))).toEqual(['ann@acme.com'])
    const page = await personsPage(account, '?limit=2')
    expect(page.results).toHaveLength(2)
    expect(page).toMatchObject({ count: 3, next: expect.stringContaining('offset=2') })
  })

  it('renders the list as CSV with distinct id, person id and property columns', async () => {
    const res = await service.api(account, `/api/projects/${account.projectId}/persons/?format=csv`)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    const [header, ...rows] = (await res.text()).trim().split('\n')
    expect(header!.split(',')).toEqual(expect.arrayContaining(['id', 'uuid', 'distinct_ids.0', 'properties.plan', 'properties.email']))
    expect(rows).toHaveLength(3)
  })

  it('retrieves a person by id and by uuid, 404 otherwise', async () => {
    for (const id of [ann.id, ann.uuid]) {
      const res = await service.api(account, `/api/projects/${account.projectId}/persons/${id}/`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual(ann)
    }
    for (const id of [999999999, randomUUID(), 'nobody']) {
      const res = await service.api(account, `/api/projects/${account.projectId}/persons/${id}/`)
      expect(res.status).toBe(404)
    }
    const other = await service.account()
    expect((await service.api(other, `/api/projects/${other.projectId}/persons/${ann.id}/`)).status).toBe(404)
  })

  it('deletes a person, and with delete_events=true its events too', async () => {
    const bob = await personOf(account, 'bob')
    const res = await service.api(account, `/api/projects/${account.projectId}/persons/${bob.id}/`, { method: 'DELETE' })
    expect(res.status).toBe(204)
    expect((await service.api(account, `/api/projects/${account.projectId}/persons/${bob.id}/`)).status).toBe(404)
    expect(names(await personsPage(account))).toEqual(['Cat', 'ann@acme.com'])
    expect(await service.eventsOf(account, 1, '&distinct_id=bob')).toHaveLength(1)

    const cat = await personOf(account, 'cat')
    const withEvents = await service.api(account, `/api/projects/${account.projectId}/persons/${cat.uuid}/?delete_events=true`, {
      method: 'DELETE',
    })
    expect(withEvents.status).toBe(204)
    const left = await (await service.api(account, `/api/projects/${account.projectId}/events/?distinct_id=cat`)).json()
    expect(left.count).toBe(0)

    // A later event of a deleted person's distinct id makes a new person.
    await send(account, [{ event: 'back', distinct_id: 'bob' }])
    const reborn = await personOf(account, 'bob')
    expect(reborn.uuid).not.toBe(bob.uuid)
    expect(reborn.properties).toEqual({})
  })
})
