import { randomUUID } from 'node:crypto'
import { Analytics } from '@segment/analytics-node'
import { PostHog } from 'posthog-node'
import { describe, expect, it } from 'vitest'
import type { TestAccount } from '@burrow/testing'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount

useTestService((s, a) => {
  service = s
  account = a
})

describe('posthog-node 5.x', () => {
  it('delivers capture, identify, alias and groupIdentify through /batch/ (gzip)', async () => {
    const user = `node-${randomUUID()}`
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 100, flushInterval: 0 })
    client.capture({ distinctId: user, event: 'order placed', properties: { total: 42 } })
    client.identify({ distinctId: user, properties: { email: 'buyer@example.com' } })
    client.alias({ distinctId: user, alias: `${user}-alias` })
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { plan: 'pro' } })
    await client.flush()
    await client.shutdown()

    const stored = await service.eventsOf(account, 4)
    const byName = Object.fromEntries(stored.map((e) => [e.event, e]))
    expect(byName['order placed']).toMatchObject({ distinct_id: user, properties: { total: 42, $lib: 'posthog-node' } })
    expect(byName.$identify).toMatchObject({ distinct_id: user, properties: { $set: { email: 'buyer@example.com' } } })
    expect(byName.$create_alias).toMatchObject({ distinct_id: user, properties: { alias: `${user}-alias` } })
    expect(byName.$groupidentify).toMatchObject({ distinct_id: '$company_acme', properties: { $group_key: 'acme' } })
    // posthog-node sends its own uuid with each event: the stored id is the client's.
    expect(stored.every((e) => /^[0-9a-f-]{36}$/.test(e.id))).toBe(true)
  })
})

describe('@segment/analytics-node', () => {
  it('delivers track, identify, page and alias to /batch/ with the project key as write key', async () => {
    const fresh = await service.account()
    const analytics = new Analytics({
      writeKey: fresh.projectToken,
      host: service.baseUrl,
      path: '/batch/',
      flushAt: 10,
      flushInterval: 50,
    })
    analytics.track({ userId: 'seg-1', event: 'Song Played', properties: { title: 'Blue' } })
    analytics.identify({ userId: 'seg-1', anonymousId: 'anon-1', traits: { name: 'Ada' } })
    analytics.page({ userId: 'seg-1', name: 'Pricing', category: 'Marketing' })
    analytics.alias({ userId: 'seg-1', previousId: 'anon-1' })
    await analytics.closeAndFlush({ timeout: 10_000 })

    const stored = await service.eventsOf(fresh, 4)
    const byName = Object.fromEntries(stored.map((e) => [e.event, e]))
    expect(Object.keys(byName).sort()).toEqual(['$create_alias', '$identify', '$page', 'Song Played'])
    expect(stored.every((e) => e.distinct_id === 'seg-1')).toBe(true)
    expect(byName['Song Played']?.properties).toMatchObject({ title: 'Blue' })
    expect(byName.$identify?.properties).toMatchObject({ $set: { name: 'Ada' }, $anon_distinct_id: 'anon-1' })
    expect(byName.$page?.properties).toMatchObject({ name: 'Pricing', category: 'Marketing' })
    expect(byName.$create_alias?.properties).toMatchObject({ alias: 'anon-1' })
  })
})
