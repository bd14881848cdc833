import { gzipSync } from 'node:zlib'
import { getFeatureFlagHash } from '@posthog/core'
import type { TestAccount } from '@burrow/testing'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

async function createFlag(body: Record<string, unknown>, owner = account) {
  const res = await service.api(owner, `/api/projects/${owner.projectId}/feature_flags/`, { method: 'POST', body: JSON.stringify(body) })
  expect(res.status).toBe(201)
  return res.json() as Promise<{ id: number; key: string }>
}

async function decide(body: Record<string, unknown>, query = '', path = '/decide/') {
  const res = await service.post(`${path}${query}`, body)
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

describe('/decide/', () => {
  beforeAll(async () => {
    await createFlag({ key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })
    await createFlag({ key: 'nobody', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } })
    await createFlag({ key: 'switched-off', active: false, filters: { groups: [{ rollout_percentage: 100 }] } })
    await createFlag({
      key: 'pricing',
      filters: {
        groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100, variant: 'annual' }],
        multivariate: { variants: [{ key: 'monthly', rollout_percentage: 50 }, { key: 'annual', rollout_percentage: 50 }] },
        payloads: { annual: '{"discount":20}' },
      },
    })
  })

  const user = { distinct_id: 'user-1', person_properties: { plan: 'pro' } }

  it('answers v1 with the keys of the flags that are on, and the configuration', async () => {
    const { status, body } = await decide({ api_key: account.projectToken, ...user })
    expect(status).toBe(200)
    expect(body.featureFlags.sort()).toEqual(['everyone', 'pricing'])
    expect(body).toMatchObject({ config: { enable_collect_everything: true }, editorParams: {}, isAuthenticated: false })
    expect(body.supportedCompression).toEqual(expect.arrayContaining(['gzip', 'lz64']))
  })

  it('answers v2 with values, variants included, and v3 and v4 with every flag, reasons and payloads', async () => {
    expect((await decide({ api_key: account.projectToken, ...user }, '?v=2')).body.featureFlags).toEqual({ everyone: true, pricing: 'annual' })
    const v3 = (await decide({ api_key: account.projectToken, ...user }, '?v=3')).body
    expect(v3.featureFlags).toEqual({ everyone: true, nobody: false, pricing: 'annual' })
    expect(v3.featureFlagPayloads).toEqual({ pricing: '{"discount":20}' })
    const v4 = (await decide({ api_key: account.projectToken, distinct_id: 'user-1', person_properties: { plan: 'free' } }, '?v=4')).body
    expect(v4.flags.nobody).toMatchObject({ enabled: false, variant: null, reason: { code: 'out_of_rollout_bound', condition_index: 0 } })
    expect(v4.flags.pricing).toMatchObject({ enabled: false, reason: { code: 'no_condition_match', description: 'No matching condition set' } })
    expect(v4.flags.everyone).toMatchObject({ enabled: true, reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' } })
    expect(v4.flags).not.toHaveProperty('switched-off')
  })

  it('decodes gzip and base64 forms as capture does', async () => {
    const json = JSON.stringify({ api_key: account.projectToken, ...user })
    const gz = await service.post('/decide/?v=2&compression=gzip-js', gzipSync(json), { 'content-type': 'text/plain' })
    expect((await gz.json()).featureFlags).toEqual({ everyone: true, pricing: 'annual' })
    const form = await fetch(`${service.baseUrl}/decide/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`,
    })
    expect((await form.json()).featureFlags).toEqual({ everyone: true, pricing: 'annual' })
  })

  it('answers 401 for a missing or unknown key and 400 without a distinct_id', async () => {
    expect(await decide({ distinct_id: 'u' })).toMatchObject({ status: 401, body: { type: 'authentication_error', code: 'no_api_key' } })
    expect(await decide({ api_key: 'phc_unknown', distinct_id: 'u' })).toMatchObject({ status: 401, body: { code: 'invalid_api_key' } })
    expect(await decide({ api_key: account.projectToken })).toMatchObject({ status: 400, body: { type: 'validation_error', code: 'missing_distinct_id' } })
  })

  it('puts each user in the bucket the SDKs compute, the same on every call', async () => {
    const fresh = await service.account()
    await createFlag({ key: 'half', filters: { groups: [{ rollout_percentage: 50 }] } }, fresh)
    for (let i = 0; i < 60; i++) {
      const id = `bucket-user-${i}`
      const expected = (await getFeatureFlagHash('half', id)) <= 0.5
      const { body } = await decide({ api_key: fresh.projectToken, distinct_id: id }, '?v=2')
      expect(Boolean(body.featureFlags.half), id).toBe(expected)
    }
  })

  it('sees a flag change at once', async () => {
    const fresh = await service.account()
    const flag = await createFlag({ key: 'toggle', filters: { groups: [{ rollout_percentage: 100 }] } }, fresh)
    expect((await decide({ api_key: fresh.projectToken, distinct_id: 'u' })).body.featureFlags).toEqual(['toggle'])
    await service.api(fresh, `/api/projects/${fresh.projectId}/feature_flags/${flag.id}/`, { method: 'PATCH', body: '{"active":false}' })
    expect((await decide({ api_key: fresh.projectToken, distinct_id: 'u' })).body.featureFlags).toEqual([])
  })

  it('serves posthog-node, which asks /flags/', async () => {
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1 })
    try {
      expect(await client.getFeatureFlag('pricing', 'user-1', { personProperties: { plan: 'pro' } })).toBe('annual')
      expect(await client.isFeatureEnabled('everyone', 'someone')).toBe(true)
      expect(await client.isFeatureEnabled('nobody', 'someone')).toBe(false)
      expect(await client.getFeatureFlagPayload('pricing', 'user-1', undefined, { personProperties: { plan: 'pro' } })).toEqual({ discount: 20 })
    } finally {
      await client.shutdown()
    }
  })

  it('serves flag definitions to SDKs that evaluate locally, and posthog-node agrees with /flags/', async () => {
    const auth = { authorization: `Bearer ${account.personalApiKey}` }
    for (const path of [
      `/api/feature_flag/local_evaluation/?token=${account.projectToken}`,
      `/flags/definitions?token=${account.projectToken}`,
      `/api/projects/${account.projectId}/feature_flags/local_evaluation/`,
    ]) {
      const res = await fetch(`${service.baseUrl}${path}`, { headers: auth })
      expect(res.status, path).toBe(200)
      const body = (await res.json()) as { flags: Array<{ key: string; active: boolean }>; group_type_mapping: object; cohorts: object }
      expect(body.flags.map((f) => f.key).sort(), path).toEqual(['everyone', 'nobody', 'pricing', 'switched-off'])
      expect(body.flags.find((f) => f.key === 'switched-off')?.active).toBe(false)
    }
    expect((await fetch(`${service.baseUrl}/flags/definitions?token=${account.projectToken}`)).status).toBe(401)

    const local = new PostHog(account.projectToken, { host: service.baseUrl, personalApiKey: account.personalApiKey, flushAt: 1 })
    try {
      await local.reloadFeatureFlags()
      for (let i = 0; i < 20; i++) {
        const props = { plan: i % 2 === 0 ? 'pro' : 'free' }
        const locally = await local.getFeatureFlag('pricing', `local-${i}`, { personProperties: props, onlyEvaluateLocally: true })
        const remote = (await decide({ api_key: account.projectToken, distinct_id: `local-${i}`, person_properties: props }, '?v=2', '/flags/')).body
        expect(locally ?? false).toEqual(remote.flags.pricing.enabled ? (remote.flags.pricing.variant ?? true) : false)
      }
    } finally {
      await local.shutdown()
    }
  })

  it('serves the remote config posthog-js loads first, as JSON and as a script, with CORS', async () => {
    const json = await fetch(`${service.baseUrl}/array/${account.projectToken}/config`, { headers: { origin: 'https://app.example.com' } })
    expect(json.status).toBe(200)
    expect(json.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(await json.json()).toMatchObject({ token: account.projectToken, hasFeatureFlags: true, sessionRecording: false, analytics: { endpoint: '/i/v0/e/' } })
    const script = await fetch(`${service.baseUrl}/array/${account.projectToken}/config.js`)
    expect(script.headers.get('content-type')).toMatch(/javascript/)
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: { token: string }; siteApps: unknown[] }> } = {}
    new Function('window', await script.text())(window)
    expect(window._POSTHOG_REMOTE_CONFIG?.[account.projectToken]?.config.token).toBe(account.projectToken)
    expect((await fetch(`${service.baseUrl}/array/phc_unknown/config`)).status).toBe(404)
  })
})
