import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

/** What posthog-js sends with `cookieless_mode: 'always'`: the sentinel id and what the visitor's hash is made of. */
const cookielessEvent = (event: string, userAgent: string, extra: Record<string, unknown> = {}) => ({
  event,
  distinct_id: '$posthog_cookieless',
  properties: {
    $cookieless_mode: true,
    $raw_user_agent: userAgent,
    $host: 'www.shop.example.co.uk',
    $current_url: 'https://www.shop.example.co.uk/',
    $timezone: 'Europe/London',
    ...extra,
  },
})

async function send(owner: TestAccount, events: unknown[]) {
  const res = await service.post('/batch/', { api_key: owner.projectToken, batch: events })
  expect(res.status).toBe(200)
}

describe('cookieless mode', () => {
  it('drops the events of the cookieless sentinel while the project has not enabled cookieless_server_hash_mode', async () => {
    const project = await service.api(account, `/api/projects/${account.projectId}/`)
    expect((await project.json()).cookieless_server_hash_mode).toBe(0)
    await send(account, [cookielessEvent('$pageview', 'Firefox/120'), { event: 'marker', distinct_id: 'known-user' }])
    const events = await service.eventsOf(account, 1)
    expect(events.map((e) => e.event)).toEqual(['marker'])
  })

  it('gives each visitor a daily hash as distinct id, with a device and a session id, once the project enables it', async () => {
    const fresh = await service.account()
    const patched = await service.api(fresh, `/api/projects/${fresh.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ cookieless_server_hash_mode: 1 }),
    })
    expect(patched.status).toBe(200)
    expect((await patched.json()).cookieless_server_hash_mode).toBe(1)
    await send(fresh, [
      cookielessEvent('$pageview', 'Firefox/120'),
      cookielessEvent('clicked', 'Firefox/120'),
      cookielessEvent('$pageview', 'Safari/17'),
      cookielessEvent('$create_alias', 'Safari/17', { alias: 'someone' }),
    ])
    const events = await service.eventsOf(fresh, 3)
    expect(events).toHaveLength(3)
    const ids = new Set(events.map((e) => e.distinct_id as string))
    expect(ids.size).toBe(2)
    for (const id of ids) expect(id).toMatch(/^cookieless_[A-Za-z0-9+/]{22}$/)
    expect(ids.has('$posthog_cookieless')).toBe(false)
    const firefox = events.filter((e) => e.event === 'clicked')[0]!
    const firefoxPageview = events.find((e) => e.event === '$pageview' && e.distinct_id === firefox.distinct_id)!
    expect(firefoxPageview).toBeDefined()
    for (const e of events) {
      expect(e.properties.$device_id).toMatch(/^cookielessd_/)
      expect(e.properties.$session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      // What was hashed is not stored.
      expect(e.properties).not.toHaveProperty('$raw_user_agent')
      expect(e.properties).not.toHaveProperty('$ip')
    }
    // One session a day per visitor.
    expect(firefox.properties.$session_id).toBe(firefoxPageview.properties.$session_id)
    const safari = events.find((e) => e.distinct_id !== firefox.distinct_id)!
    expect(safari.properties.$session_id).not.toBe(firefox.properties.$session_id)

    // The same visitor the same day gets the same id on a later request.
    await send(fresh, [cookielessEvent('returned', 'Firefox/120')])
    const later = await service.eventsOf(fresh, 4)
    expect(later.find((e) => e.event === 'returned')?.distinct_id).toBe(firefox.distinct_id)
  })

  describe('stateful mode (cookieless_server_hash_mode 2)', () => {
    async function statefulAccount() {
      const fresh = await service.account()
      const patched = await service.api(fresh, `/api/projects/${fresh.projectId}/`, {
        method: 'PATCH',
        body: JSON.stringify({ cookieless_server_hash_mode: 2 }),
      })
      expect(patched.status).toBe(200)
      return fresh
    }
    // A visitor's hash is daily (in the visitor's timezone, Europe/London here), so every event of a
    // test must fall on the day the server is in when it answers. Just after midnight, "two hours
    // ago" is yesterday: the clock of these tests then starts from a moment later today instead
    // (accepted, as the salt of a day is known from 12 hours before it starts).
    const minutesAgo = (minutes: number) => {
      const now = Date.now()
      const london = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/London',
        hourCycle: 'h23',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
      const [hour, minute, second] = london.format(now).split(':').map(Number) as [number, number, number]
      const startOfDay = now - ((hour * 60 + minute) * 60 + second) * 1000 - (now % 1000)
      const clock = Math.max(now, startOfDay + 150 * 60_000)
      return new Date(clock - minutes * 60_000).toISOString()
    }
    const at = (minutes: number, event: Record<string, unknown>) => ({ ...event, timestamp: minutesAgo(minutes) })

    it("ends a visitor's session after 30 minutes without events, also across requests", async () => {
      const fresh = await statefulAccount()
      await send(fresh, [at(120, cookielessEvent('first', 'Firefox/121')), at(100, cookielessEvent('second', 'Firefox/121'))])
      // 40 minutes later: a new session for the same visitor.
      await send(fresh, [at(60, cookielessEvent('third', 'Firefox/121')), at(59, cookielessEvent('other', 'Safari/18'))])
      const events = await service.eventsOf(fresh, 4)
      const byName = Object.fromEntries(events.map((e) => [e.event as string, e]))
      expect(new Set(['first', 'second', 'third'].map((name) => byName[name]!.distinct_id)).size).toBe(1)
      expect(byName.first!.distinct_id).toMatch(/^cookieless_/)
      expect(byName.first!.properties.$device_id).toMatch(/^cookielessd_/)
      expect(byName.second!.properties.$session_id).toBe(byName.first!.properties.$session_id)
      expect(byName.third!.properties.$session_id).not.toBe(byName.first!.properties.$session_id)
      expect(byName.other!.properties.$session_id).not.toBe(byName.third!.properties.$session_id)
      // A session id is a UUIDv7 of its first event's time.
      for (const name of ['first', 'third']) {
        const id = byName[name]!.properties.$session_id as string
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/)
        expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.parse(byName[name]!.timestamp as string))
      }
      for (const e of events) expect(e.properties).not.toHaveProperty('$raw_user_agent')
    })

    it("links the visitor's hash to the person an $identify names, and a visitor who logs out is a new visitor", async () => {
      const fresh = await statefulAccount()
      await send(fresh, [at(30, cookielessEvent('$pageview', 'Chrome/130'))])
      const [anonymous] = await service.eventsOf(fresh, 1)
      const hash = anonymous!.distinct_id as string
      expect(hash).toMatch(/^cookieless_/)
      const identify = cookielessEvent('$identify', 'Chrome/130', {
        $anon_distinct_id: '$posthog_cookieless',
        $set: { email: 'ada@example.com' },
      })
      const identifyUuid = '01932b4e-8a2c-7c1e-9d3f-5a6b7c8d9e0f'
      await send(fresh, [
        at(29, { ...identify, distinct_id: 'ada', uuid: identifyUuid }),
        at(28, { ...cookielessEvent('bought', 'Chrome/130'), distinct_id: 'ada' }),
      ])
      // After posthog.reset(): the sentinel again, from the same browser.
      await send(fresh, [at(27, cookielessEvent('after logout', 'Chrome/130'))])
      const events = await service.eventsOf(fresh, 4)
      const byName = Object.fromEntries(events.map((e) => [e.event as string, e]))
      expect(byName.$identify!.distinct_id).toBe('ada')
      expect(byName.$identify!.properties.$anon_distinct_id).toBe(hash)
      expect(byName.bought!.distinct_id).toBe('ada')
      // The identified visitor stays in the session of the hash it was identified from.
      expect(byName.bought!.properties.$session_id).toBe(anonymous!.properties.$session_id)
      expect(byName.$identify!.properties.$session_id).toBe(anonymous!.properties.$session_id)
      const loggedOut = byName['after logout']!
      expect(loggedOut.distinct_id).toMatch(/^cookieless_/)
      expect(loggedOut.distinct_id).not.toBe(hash)
      expect(loggedOut.properties.$device_id).toBe(anonymous!.properties.$device_id)
      expect(loggedOut.properties.$session_id).not.toBe(anonymous!.properties.$session_id)
      const person = await service.personOf(fresh, 'ada', (p) => (p.distinct_ids as string[]).includes(hash))
      expect(person.distinct_ids).toEqual(expect.arrayContaining(['ada', hash]))
      expect(person.distinct_ids).not.toContain(loggedOut.distinct_id)
      expect(person.properties.email).toBe('ada@example.com')

      // A retried $identify (the same uuid) is not a second identify of the visitor.
      await send(fresh, [at(29, { ...identify, distinct_id: 'ada', uuid: identifyUuid })])
      await send(fresh, [at(26, cookielessEvent('still logged out', 'Chrome/130'))])
      const later = await service.eventsOf(fresh, 1, '&event=still%20logged%20out')
      expect(later.find((e) => e.event === 'still logged out')!.distinct_id).toBe(loggedOut.distinct_id)
    })

    it('evaluates the flags of a visitor who asks as the sentinel for the visitor its events are stored as', async () => {
      const fresh = await statefulAccount()
      const created = await service.api(fresh, `/api/projects/${fresh.projectId}/feature_flags/`, {
        method: 'POST',
        body: JSON.stringify({
          key: 'pro-banner',
          filters: {
            groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
          },
        }),
      })
      expect(created.status).toBe(201)
      const flagsOfVisitor = async () => {
        const res = await service.post(
          '/flags/?v=2',
          { api_key: fresh.projectToken, distinct_id: '$posthog_cookieless', timezone: 'Europe/London' },
          { 'user-agent': 'Edge/131', origin: 'https://www.shop.example.co.uk' },
        )
        expect(res.status).toBe(200)
        return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags['pro-banner']?.enabled
      }
      await send(fresh, [at(10, cookielessEvent('$pageview', 'Edge/131', { $set: { plan: 'pro' } }))])
      const [pageview] = await service.eventsOf(fresh, 1)
      await service.personOf(fresh, pageview!.distinct_id as string, (p) => p.properties.plan === 'pro')
      expect(await flagsOfVisitor()).toBe(true)

      // Once identified, the hash belongs to the person; the browser asking as the sentinel again has logged out.
      const identify = cookielessEvent('$identify', 'Edge/131', { $anon_distinct_id: '$posthog_cookieless' })
      await send(fresh, [at(9, { ...identify, distinct_id: 'grace' })])
      await service.personOf(fresh, 'grace', (p) => (p.distinct_ids as string[]).includes(pageview!.distinct_id as string))
      expect(await flagsOfVisitor()).toBe(false)
    })
  })
})
