import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

describe('GET /api/users/@me/', () => {
  it('describes the user, their organization and current project, marked deprecated', async () => {
    const res = await service.api(account, '/api/users/@me/')
    expect(res.status).toBe(200)
    expect(res.headers.get('deprecation')).toBe('@1617580800')
    const me = await res.json()
    expect(me).toMatchObject({
      id: account.userId,
      team: { id: account.projectId, api_token: account.projectToken, app_urls: [], event_names: [], event_properties: [] },
      organization: {
        id: account.organizationId,
        membership_level: 15,
        teams: [{ id: account.projectId, api_token: account.projectToken }],
      },
      organizations: [{ id: account.organizationId, membership_level: 15 }],
    })
    expect(me.email).toMatch(/@example\.com$/)
    expect(me.posthog_version).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('lists the event names and properties seen in the project, numeric ones apart', async () => {
    const fresh = await service.account()
    await service.post('/batch/', {
      api_key: fresh.projectToken,
      batch: [
        { event: 'purchase', distinct_id: 'a', properties: { amount: 12.5, currency: 'EUR' } },
        { event: 'refund', distinct_id: 'a', properties: { amount: 3 } },
      ],
    })
    await service.eventsOf(fresh, 2)
    const me = await waitFor(
      async () => {
        const body = await (await service.api(fresh, '/api/users/@me')).json()
        return body.team.event_names.length === 2 ? body : undefined
      },
      { what: 'event names in @me', timeoutMs: 10_000 },
    )
    expect(me.team.event_names).toEqual(['purchase', 'refund'])
    expect(me.team.event_properties).toEqual(['$ip', 'amount', 'currency'])
    expect(me.team.event_properties_numerical).toContain('amount')
    expect(me.team.event_properties_numerical).not.toContain('currency')
  })

  it('answers through tRPC as users.me', async () => {
    const res = await fetch(`${service.baseUrl}/trpc/users.me`, { headers: { authorization: `Bearer ${account.personalApiKey}` } })
    expect(res.status).toBe(200)
    expect((await res.json()).result.data.id).toBe(account.userId)
  })
})
