import type { TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

// A person is written only when something changes, as PostHog decides it: PostHog's filtered
// properties (page, browser, device) alone do not write it, and what this server last wrote or
// read of a person settles later batches without a PostgreSQL round trip.

let service: TestService
useTestService((s) => {
  service = s
})

interface StoredPerson {
  version: number
  properties: Record<string, unknown>
}

async function send(account: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await service.post('/batch/', { api_key: account.projectToken, batch })
  expect(res.status).toBe(200)
}

/** Sends the events and waits until the distinct id has `stored` events in all (persons are processed before events are stored). */
async function sendAndStore(account: TestAccount, distinctId: string, stored: number, batch: Array<Record<string, unknown>>) {
  await send(account, batch)
  await service.eventsOf(account, stored, `&distinct_id=${encodeURIComponent(distinctId)}`)
}

/** The person as PostgreSQL holds it: its version counts its writes after the first. */
async function storedPerson(account: TestAccount, distinctId: string): Promise<StoredPerson | undefined> {
  const [row] = await service.app.deps.sql<StoredPerson[]>`
    select p.version::int as version, p.properties from persons p join person_distinct_ids d on d.person_id = p.id
    where d.project_id = ${account.projectId} and d.distinct_id = ${distinctId}`
  return row
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${service.baseUrl}/_metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  if (!line) throw new Error(`${name} is not in /_metrics`)
  return Number(line.slice(name.length + 1))
}

const counts = async () => ({
  writes: await metric('burrow_person_writes_total'),
  fromMemory: await metric('burrow_person_updates_total{settled_by="memory"}'),
  toPostgres: await metric('burrow_person_updates_total{settled_by="postgres"}'),
})

/** A posthog-js page view: its page and browser values, which capture copies into `$set` and, as `$initial_*`, `$set_once`. */
const pageview = (distinctId: string, url: string, extra: Record<string, unknown> = {}) => ({
  event: '$pageview',
  distinct_id: distinctId,
  properties: {
    $current_url: url,
    $pathname: new URL(url).pathname,
    $browser: 'Chrome',
    $browser_version: 131,
    $os: 'Mac OS X',
    $set_once: { first_campaign: 'winter' },
    $set: { plan: 'free' },
    ...extra,
  },
})

describe('persons written only when something changes', () => {
  let account: TestAccount
  beforeAll(async () => {
    account = await service.account()
  })

  it('writes a person once for a thousand page views with the same properties, the later batches settled without PostgreSQL', async () => {
    const before = await counts()
    for (let request = 0; request < 10; request++) {
      const views = Array.from({ length: 100 }, () => pageview('reader', 'https://shop.test/pricing'))
      await sendAndStore(account, 'reader', (request + 1) * 100, views)
    }
    const after = await counts()
    const person = await storedPerson(account, 'reader')
    // Created with its first event's values, then never written again.
    expect(person).toMatchObject({
      version: 0,
      properties: { plan: 'free', first_campaign: 'winter', $current_url: 'https://shop.test/pricing' },
    })
    expect(after.writes - before.writes).toBe(1)
    expect(after.toPostgres - before.toPostgres).toBe(0)
    expect(after.fromMemory - before.fromMemory).toBeGreaterThanOrEqual(10)
  })

  it('writes a real change at once, after batches it settled from memory, and only once', async () => {
    await sendAndStore(account, 'upgrader', 1, [pageview('upgrader', 'https://shop.test/')])
    await sendAndStore(account, 'upgrader', 2, [pageview('upgrader', 'https://shop.test/')])
    await sendAndStore(account, 'upgrader', 3, [pageview('upgrader', 'https://shop.test/', { $set: { plan: 'pro' } })])
    expect(await storedPerson(account, 'upgrader')).toMatchObject({ version: 1, properties: { plan: 'pro' } })
    await sendAndStore(account, 'upgrader', 4, [pageview('upgrader', 'https://shop.test/', { $set: { plan: 'pro' } })])
    await sendAndStore(account, 'upgrader', 5, [{ event: 'checkout', distinct_id: 'upgrader', properties: { $unset: ['first_campaign'] } }])
    const person = await storedPerson(account, 'upgrader')
    expect(person?.version).toBe(2)
    expect(person?.properties).not.toHaveProperty('first_campaign')
  })

  it('does not write a change of filtered properties alone, and writes it with the next real change', async () => {
    await sendAndStore(account, 'browser', 1, [pageview('browser', 'https://shop.test/a')])
    await sendAndStore(account, 'browser', 3, [
      pageview('browser', 'https://shop.test/b', { $browser_version: 132 }),
      pageview('browser', 'https://shop.test/c', { $browser: 'Firefox' }),
    ])
    expect(await storedPerson(account, 'browser')).toMatchObject({
      version: 0,
      properties: { $current_url: 'https://shop.test/a', $browser: 'Chrome', $browser_version: 131 },
    })
    await sendAndStore(account, 'browser', 4, [pageview('browser', 'https://shop.test/d', { $set: { plan: 'team' } })])
    expect(await storedPerson(account, 'browser')).toMatchObject({
      version: 1,
      properties: { plan: 'team', $current_url: 'https://shop.test/d', $pathname: '/d', $browser: 'Chrome', $browser_version: 131 },
    })
  })

  it('writes a filtered property the person does not have yet, and a changed campaign parameter, which PostHog does not filter', async () => {
    const withZone = (zone: string, extra: Record<string, unknown> = {}) =>
      pageview('campaign', 'https://shop.test/', { $set: { plan: 'free', $geoip_time_zone: zone }, ...extra })
    await sendAndStore(account, 'campaign', 1, [pageview('campaign', 'https://shop.test/', { utm_source: 'newsletter' })])
    await sendAndStore(account, 'campaign', 2, [withZone('Europe/Paris')])
    expect(await storedPerson(account, 'campaign')).toMatchObject({ version: 1, properties: { $geoip_time_zone: 'Europe/Paris' } })
    await sendAndStore(account, 'campaign', 3, [withZone('Europe/Berlin')])
    expect(await storedPerson(account, 'campaign')).toMatchObject({ version: 1, properties: { $geoip_time_zone: 'Europe/Paris' } })
    await sendAndStore(account, 'campaign', 4, [withZone('Europe/Berlin', { utm_source: 'ad' })])
    expect(await storedPerson(account, 'campaign')).toMatchObject({
      version: 2,
      properties: { utm_source: 'ad', $initial_utm_source: 'newsletter', $geoip_time_zone: 'Europe/Berlin' },
    })
  })

  it('writes a filtered value that a person event ($set) changes, as PostHog forces such updates', async () => {
    await sendAndStore(account, 'member', 1, [pageview('member', 'https://shop.test/a')])
    await sendAndStore(account, 'member', 2, [{ event: '$set', distinct_id: 'member', properties: { $set: { $browser: 'Safari' } } }])
    expect(await storedPerson(account, 'member')).toMatchObject({ version: 1, properties: { $browser: 'Safari' } })
  })

  it('gives a deleted person’s distinct id a new person with its next event’s values, though they equal the deleted one’s', async () => {
    await sendAndStore(account, 'leaver', 1, [pageview('leaver', 'https://shop.test/')])
    const person = await service.personOf(account, 'leaver')
    const res = await service.api(account, `/api/projects/${account.projectId}/persons/${person.id}/`, { method: 'DELETE' })
    expect(res.status).toBe(204)
    await send(account, [pageview('leaver', 'https://shop.test/')])
    const again = await service.personOf(account, 'leaver', (p) => p.id !== person.id)
    expect(again.properties).toMatchObject({ plan: 'free', first_campaign: 'winter', $current_url: 'https://shop.test/' })
  })
})

describe('where the storing side spends its time', () => {
  it('counts each stage before the insert in /_metrics: the events it saw, its wall time and the event loop’s busy time', async () => {
    const account = await service.account()
    const stages = ['projects', 'transform', 'groups', 'persons'] as const
    const read = async () =>
      Object.fromEntries(
        await Promise.all(
          stages.map(async (stage) => [
            stage,
            {
              events: await metric(`burrow_storing_stage_events_total{stage="${stage}"}`),
              seconds: await metric(`burrow_storing_stage_seconds_total{stage="${stage}"}`),
              busy: await metric(`burrow_storing_stage_loop_busy_seconds_total{stage="${stage}"}`),
            },
          ]),
        ),
      ) as Record<(typeof stages)[number], { events: number; seconds: number; busy: number }>
    // Earlier batches of this service may still be counted: the counters only grow, by at least this batch.
    const before = await read()
    await sendAndStore(
      account,
      'timed',
      50,
      Array.from({ length: 50 }, () => pageview('timed', 'https://shop.test/')),
    )
    const after = await read()
    for (const stage of stages) {
      expect(after[stage].events - before[stage].events, stage).toBeGreaterThanOrEqual(50)
      expect(after[stage].seconds, stage).toBeGreaterThan(before[stage].seconds)
      expect(after[stage].busy, stage).toBeGreaterThanOrEqual(before[stage].busy)
      expect(after[stage].busy - before[stage].busy, stage).toBeLessThanOrEqual(after[stage].seconds - before[stage].seconds + 0.05)
    }
  })
})
