import { readFileSync } from 'node:fs'
import { get, type IncomingHttpHeaders } from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { getFeatureFlagHash } from '@posthog/core'
import { waitFor, type TestAccount } from '@burrow/testing'
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
        multivariate: {
          variants: [
            { key: 'monthly', rollout_percentage: 50 },
            { key: 'annual', rollout_percentage: 50 },
          ],
        },
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
    expect((await decide({ api_key: account.projectToken, ...user }, '?v=2')).body.featureFlags).toEqual({
      everyone: true,
      pricing: 'annual',
    })
    const v3 = (await decide({ api_key: account.projectToken, ...user }, '?v=3')).body
    expect(v3.featureFlags).toEqual({ everyone: true, nobody: false, pricing: 'annual' })
    expect(v3.featureFlagPayloads).toEqual({ pricing: '{"discount":20}' })
    const v4 = (await decide({ api_key: account.projectToken, distinct_id: 'user-1', person_properties: { plan: 'free' } }, '?v=4')).body
    expect(v4.flags.nobody).toMatchObject({ enabled: false, variant: null, reason: { code: 'out_of_rollout_bound', condition_index: 0 } })
    expect(v4.flags.pricing).toMatchObject({
      enabled: false,
      reason: { code: 'no_condition_match', description: 'No matching condition set' },
    })
    expect(v4.flags.everyone).toMatchObject({
      enabled: true,
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
    })
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
    expect(await decide({ api_key: account.projectToken })).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'missing_distinct_id' },
    })
  })

  it('evaluates for a personal API key with project_id, as capture accepts it', async () => {
    const answer = await decide({ api_key: account.personalApiKey, project_id: account.projectId, distinct_id: 'u' }, '?v=2')
    expect(answer.status).toBe(200)
    expect(answer.body.featureFlags).toEqual({ everyone: true })
    const inQuery = await decide({ api_key: account.personalApiKey, distinct_id: 'u' }, `?v=2&project_id=${account.projectId}`)
    expect(inQuery.status).toBe(200)
    expect(inQuery.body.featureFlags).toEqual({ everyone: true })
    const other = await service.account()
    expect(await decide({ api_key: account.personalApiKey, project_id: other.projectId, distinct_id: 'u' })).toMatchObject({
      status: 400,
      body: { code: 'invalid_project', attr: 'project_id' },
    })
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

  it('agrees with posthog-node evaluating locally for hundreds of users: /decide/ v1 and v2 and /flags/ v2', async () => {
    const fresh = await service.account()
    const person = (key: string, value: unknown, operator = 'exact') => ({ key, value, operator, type: 'person' })
    const flagSet = [
      { key: 'rollout-37', filters: { groups: [{ rollout_percentage: 37 }] } },
      {
        key: 'three-way',
        filters: {
          groups: [{ rollout_percentage: 80 }],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 20 },
              { key: 'b', rollout_percentage: 30 },
              { key: 'c', rollout_percentage: 50 },
            ],
          },
        },
      },
      { key: 'acme', filters: { groups: [{ properties: [person('email', '@acme.com', 'icontains')], rollout_percentage: 100 }] } },
      {
        key: 'big-teams',
        filters: { groups: [{ properties: [person('seats', 10, 'gt'), person('plan', ['free'], 'is_not')], rollout_percentage: 60 }] },
      },
      {
        key: 'layered',
        filters: {
          groups: [
            { properties: [person('email', '^[a-m]', 'regex')], rollout_percentage: 50 },
            { properties: [person('beta', '', 'is_set')], rollout_percentage: 100, variant: 'beta' },
          ],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 50 },
              { key: 'beta', rollout_percentage: 50 },
            ],
          },
        },
      },
    ]
    for (const flag of flagSet) await createFlag(flag, fresh)
    const local = new PostHog(fresh.projectToken, { host: service.baseUrl, personalApiKey: fresh.personalApiKey, flushAt: 1 })
    try {
      await local.reloadFeatureFlags()
      for (let i = 0; i < 300; i++) {
        const id = `agree-${i}`
        const personProperties: Record<string, unknown> = {
          email: `${String.fromCharCode(97 + (i % 26))}${i}@${i % 3 === 0 ? 'acme.com' : 'other.org'}`,
          seats: i % 25,
          plan: ['free', 'pro', 'enterprise'][i % 3],
          ...(i % 7 === 0 ? { beta: true } : {}),
        }
        const expected = Object.fromEntries(
          await Promise.all(
            flagSet.map(async (f) => [
              f.key,
              (await local.getFeatureFlag(f.key, id, { personProperties, onlyEvaluateLocally: true })) ?? false,
            ]),
          ),
        ) as Record<string, string | boolean>
        const on = Object.keys(expected)
          .filter((k) => expected[k] !== false)
          .sort()
        const request = { api_key: fresh.projectToken, distinct_id: id, person_properties: personProperties }
        expect((await decide(request)).body.featureFlags.sort(), id).toEqual(on)
        expect((await decide(request, '?v=2')).body.featureFlags, id).toEqual(Object.fromEntries(on.map((k) => [k, expected[k]])))
        const details = (await decide(request, '?v=2', '/flags/')).body.flags as Record<
          string,
          { enabled: boolean; variant: string | null }
        >
        const values = Object.fromEntries(Object.entries(details).map(([k, d]) => [k, d.enabled ? (d.variant ?? true) : false]))
        expect(values, id).toEqual(expected)
      }
    } finally {
      await local.shutdown()
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
      expect(await client.getFeatureFlagPayload('pricing', 'user-1', undefined, { personProperties: { plan: 'pro' } })).toEqual({
        discount: 20,
      })
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
        const remote = (
          await decide({ api_key: account.projectToken, distinct_id: `local-${i}`, person_properties: props }, '?v=2', '/flags/')
        ).body
        expect(locally ?? false).toEqual(remote.flags.pricing.enabled ? (remote.flags.pricing.variant ?? true) : false)
      }
    } finally {
      await local.shutdown()
    }
  })

  it('matches regex conditions in time linear in the value, with lookaround and backreferences bounded in time', async () => {
    const fresh = await service.account()
    const regexFlag = (key: string, value: string) =>
      createFlag(
        {
          key,
          filters: { groups: [{ properties: [{ key: 'name', value, operator: 'regex', type: 'person' }], rollout_percentage: 100 }] },
        },
        fresh,
      )
    await regexFlag('nested-quantifiers', '^(a+)+$')
    await regexFlag('case-insensitive', '(?i)^ADA')
    await regexFlag('not-a-test-user', '^(?!test-)')
    await regexFlag('double-letter', '(\\w)\\1')
    await regexFlag('slow-lookahead', '^(a+)+(?=b)$')
    // Against a backtracking engine this value would hold the server for longer than the test may run.
    const flags = await decide(
      { api_key: fresh.projectToken, distinct_id: 'x', person_properties: { name: `${'a'.repeat(100_000)}!` } },
      '?v=2',
    )
    expect(flags.body.featureFlags).toEqual({ 'not-a-test-user': true, 'double-letter': true })
    const ada = await decide({ api_key: fresh.projectToken, distinct_id: 'y', person_properties: { name: 'ada lovelace' } }, '?v=2')
    expect(ada.body.featureFlags).toEqual({ 'case-insensitive': true, 'not-a-test-user': true })
    const tester = await decide({ api_key: fresh.projectToken, distinct_id: 'z', person_properties: { name: 'test-anna' } }, '?v=2')
    expect(tester.body.featureFlags).toEqual({ 'double-letter': true })
  })

  it('serves the remote config posthog-js loads first, as JSON and as a script, with CORS', async () => {
    const json = await fetch(`${service.baseUrl}/array/${account.projectToken}/config`, { headers: { origin: 'https://app.example.com' } })
    expect(json.status).toBe(200)
    expect(json.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(await json.json()).toMatchObject({
      token: account.projectToken,
      hasFeatureFlags: true,
      sessionRecording: false,
      analytics: { endpoint: '/i/v0/e/' },
    })
    const script = await fetch(`${service.baseUrl}/array/${account.projectToken}/config.js`)
    expect(script.headers.get('content-type')).toMatch(/javascript/)
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: { token: string }; siteApps: unknown[] }> } = {}
    // The script is what posthog-js's loader runs in a page: run it the same way, against a window of our own.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    new Function('window', await script.text())(window)
    expect(window._POSTHOG_REMOTE_CONFIG?.[account.projectToken]?.config.token).toBe(account.projectToken)
    expect((await fetch(`${service.baseUrl}/array/phc_unknown/config`)).status).toBe(404)
    expect((await fetch(`${service.baseUrl}/array/%E0%A4%A/config.js`)).status).toBe(404)
  })
})

/** A GET whose body is kept as sent (fetch would decompress it). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject)
  })
}

describe('what else posthog-js loads from its api_host', () => {
  const posthogJsDist = path.dirname(createRequire(import.meta.url).resolve('posthog-js/dist/array.js'))
  const posthogJsVersion = (JSON.parse(readFileSync(path.join(posthogJsDist, '..', 'package.json'), 'utf8')) as { version: string }).version

  it("serves posthog-js's bundles under /static/, plain or gzipped, to any site", async () => {
    const plain = await fetch(`${service.baseUrl}/static/array.js`, { headers: { 'accept-encoding': 'identity' } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toMatch(/^application\/javascript/)
    expect(plain.headers.get('access-control-allow-origin')).toBe('*')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(Buffer.from(await plain.arrayBuffer()).equals(readFileSync(path.join(posthogJsDist, 'array.js')))).toBe(true)

    // Lazily loaded extensions, unversioned (`?v=`) and under the release's own path.
    const gzipped = await rawGet(`${service.baseUrl}/static/surveys.js?v=${posthogJsVersion}`, { 'accept-encoding': 'gzip, deflate, br' })
    expect(gzipped.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzipped.body).equals(readFileSync(path.join(posthogJsDist, 'surveys.js')))).toBe(true)
    const versioned = await fetch(`${service.baseUrl}/static/${posthogJsVersion}/recorder.js`)
    expect(versioned.status).toBe(200)
    expect(versioned.headers.get('cache-control')).toMatch(/immutable/)

    for (const missing of [
      '/static/1.0.0/array.js',
      '/static/no-such-bundle.js',
      '/static/array.js.map',
      '/static/..%2Fpackage.json',
      '/static/',
    ]) {
      expect((await fetch(`${service.baseUrl}${missing}`)).status, missing).toBe(404)
    }
  })

  it('answers the token-authenticated feature lists with none, and refuses a wrong or missing key', async () => {
    const lists = {
      surveys: 'surveys',
      early_access_features: 'earlyAccessFeatures',
      product_tours: 'product_tours',
      web_experiments: 'experiments',
    }
    for (const [path, key] of Object.entries(lists)) {
      const res = await fetch(`${service.baseUrl}/api/${path}/?token=${account.projectToken}`, {
        headers: { origin: 'https://app.example.com' },
      })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect(await res.json()).toEqual({ [key]: [] })
    }
    const wrong = await fetch(`${service.baseUrl}/api/surveys/?token=phc_unknown`)
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
    const missing = await fetch(`${service.baseUrl}/api/early_access_features/`)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' })
  })
})

describe('flags on stored persons and cohorts', () => {
  let project: TestAccount
  const send = async (batch: Array<Record<string, unknown>>) => {
    expect((await service.post('/batch/', { api_key: project.projectToken, batch })).status).toBe(200)
  }
  const flagsOf = async (body: Record<string, unknown>) =>
    (await decide({ api_key: project.projectToken, ...body }, '?v=2')).body.featureFlags as Record<string, unknown>
  const personExists = (distinctId: string, ready?: (p: Record<string, any>) => boolean) => service.personOf(project, distinctId, ready)
  const createCohort = async (body: Record<string, unknown>) => {
    const res = await service.api(project, `/api/projects/${project.projectId}/cohorts/`, { method: 'POST', body: JSON.stringify(body) })
    expect(res.status).toBe(201)
    const cohort = (await res.json()) as { id: number }
    await waitFor(
      async () => {
        const c = await (await service.api(project, `/api/projects/${project.projectId}/cohorts/${cohort.id}/`)).json()
        return !c.is_calculating && c.last_calculation ? c : undefined
      },
      { what: 'the cohort calculated', timeoutMs: 15_000 },
    )
    return cohort
  }

  beforeAll(async () => {
    project = await service.account()
    await send([
      { event: 'signed up', distinct_id: 'ada', properties: { $set: { plan: 'enterprise', email: 'ada@acme.com' } } },
      { event: 'signed up', distinct_id: 'bea', properties: { $set: { plan: 'free', email: 'bea@other.org' } } },
    ])
    await personExists('ada')
    await personExists('bea')
  })

  it('matches conditions on the stored person properties, which the request overrides', async () => {
    await createFlag(
      {
        key: 'enterprise-only',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'enterprise', type: 'person' }], rollout_percentage: 100 }] },
      },
      project,
    )
    expect((await flagsOf({ distinct_id: 'ada' }))['enterprise-only']).toBe(true)
    expect((await flagsOf({ distinct_id: 'bea' }))['enterprise-only']).toBeUndefined()
    expect((await flagsOf({ distinct_id: 'ada', person_properties: { plan: 'free' } }))['enterprise-only']).toBeUndefined()
    expect((await flagsOf({ distinct_id: 'bea', person_properties: { plan: 'enterprise' } }))['enterprise-only']).toBe(true)
  })

  it('finds the stored person of a distinct id holding U+0000, as capture stored it', async () => {
    await createFlag(
      {
        key: 'stored-plan',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'business', type: 'person' }], rollout_percentage: 100 }] },
      },
      project,
    )
    await send([{ event: 'signed up', distinct_id: 'nul\u0000id', properties: { $set: { plan: 'business' } } }])
    await personExists('nul\uFFFDid', (p) => p.properties.plan === 'business')
    const res = await decide({ api_key: project.projectToken, distinct_id: 'nul\u0000id', $anon_distinct_id: 'anon\u0000' }, '?v=3')
    expect(res.body.errorsWhileComputingFlags).toBe(false)
    expect(res.body.featureFlags['stored-plan']).toBe(true)
  })

  it('matches dynamic cohorts by their conditions, for /decide/ and for posthog-node evaluating locally', async () => {
    const acme = await createCohort({
      name: 'Acme',
      filters: { properties: { type: 'AND', values: [{ key: 'email', value: '@acme.com', operator: 'icontains', type: 'person' }] } },
    })
    await createFlag(
      { key: 'acme-beta', filters: { groups: [{ properties: [{ key: 'id', value: acme.id, type: 'cohort' }], rollout_percentage: 100 }] } },
      project,
    )
    expect((await flagsOf({ distinct_id: 'ada' }))['acme-beta']).toBe(true)
    expect((await flagsOf({ distinct_id: 'bea' }))['acme-beta']).toBeUndefined()

    const auth = { authorization: `Bearer ${project.personalApiKey}` }
    const definitions = await (
      await fetch(`${service.baseUrl}/api/feature_flag/local_evaluation/?token=${project.projectToken}&send_cohorts`, { headers: auth })
    ).json()
    expect(definitions.cohorts[String(acme.id)]).toMatchObject({
      type: 'AND',
      values: [{ key: 'email', operator: 'icontains', type: 'person' }],
    })
    const local = new PostHog(project.projectToken, { host: service.baseUrl, personalApiKey: project.personalApiKey, flushAt: 1 })
    try {
      await local.reloadFeatureFlags()
      for (const email of ['x@acme.com', 'y@other.org']) {
        const locally = await local.getFeatureFlag('acme-beta', email, { personProperties: { email }, onlyEvaluateLocally: true })
        const remote = (await flagsOf({ distinct_id: email, person_properties: { email } }))['acme-beta'] ?? false
        expect(locally ?? false, email).toBe(remote)
      }
    } finally {
      await local.shutdown()
    }
  })

  it('matches static cohorts by membership, and refuses cohorts of behaviour', async () => {
    const listed = await createCohort({ name: 'Listed', is_static: true, distinct_ids: ['bea'] })
    await createFlag(
      {
        key: 'listed-only',
        filters: { groups: [{ properties: [{ key: 'id', value: listed.id, type: 'cohort' }], rollout_percentage: 100 }] },
      },
      project,
    )
    expect((await flagsOf({ distinct_id: 'bea' }))['listed-only']).toBe(true)
    expect((await flagsOf({ distinct_id: 'ada' }))['listed-only']).toBeUndefined()

    const buyers = await createCohort({
      name: 'Buyers',
      filters: {
        properties: {
          type: 'AND',
          values: [{ key: 'purchase', type: 'behavioral', value: 'performed_event', time_value: 30, time_interval: 'day' }],
        },
      },
    })
    const res = await service.api(project, `/api/projects/${project.projectId}/feature_flags/`, {
      method: 'POST',
      body: JSON.stringify({
        key: 'buyers',
        filters: { groups: [{ properties: [{ key: 'id', value: buyers.id, type: 'cohort' }], rollout_percentage: 100 }] },
      }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', code: 'behavioral_cohort_found', attr: 'filters' })
  })

  it('keeps an experience-continuity flag on the bucket of the anonymous id after the user identifies', async () => {
    const key = 'continuity'
    await createFlag({ key, ensure_experience_continuity: true, filters: { groups: [{ rollout_percentage: 50 }] } }, project)
    // An anonymous id and a user id that the rollout puts in different buckets.
    const inRollout = async (id: string) => (await getFeatureFlagHash(key, id)) <= 0.5
    let anon = ''
    let user = ''
    for (let i = 0; !anon || !user; i++) {
      const id = `continuity-${i}`
      if (!anon && (await inRollout(id))) anon = id
      else if (!user && !(await inRollout(id))) user = id
    }
    await send([{ event: '$pageview', distinct_id: anon }])
    await personExists(anon)
    expect((await flagsOf({ distinct_id: anon }))[key]).toBe(true)
    expect((await flagsOf({ distinct_id: user, $anon_distinct_id: anon }))[key]).toBe(true)
    await send([{ event: '$identify', distinct_id: user, properties: { $anon_distinct_id: anon } }])
    await personExists(user, (p) => p.distinct_ids.length === 2)
    expect((await flagsOf({ distinct_id: user }))[key]).toBe(true)
    // Without continuity the same user would not be in the rollout.
    expect(await inRollout(user)).toBe(false)
  })

  it('registers the group types events name, and evaluates group flags on the group key and properties', async () => {
    await send([
      { event: 'used feature', distinct_id: 'ada', properties: { $groups: { company: 'acme' } } },
      { event: '$groupidentify', distinct_id: 'ada', properties: { $group_type: 'team', $group_key: 't1', $group_set: { name: 'T1' } } },
    ])
    const url = `${service.baseUrl}/api/feature_flag/local_evaluation/?token=${project.projectToken}`
    const auth = { authorization: `Bearer ${project.personalApiKey}` }
    const mapping = await waitFor(
      async () => {
        const { group_type_mapping } = await (await fetch(url, { headers: auth })).json()
        return Object.keys(group_type_mapping).length === 2 ? group_type_mapping : undefined
      },
      { what: 'two group types', timeoutMs: 15_000 },
    )
    expect(mapping).toEqual({ '0': 'company', '1': 'team' })
    await createFlag(
      {
        key: 'big-companies',
        filters: {
          aggregation_group_type_index: 0,
          groups: [
            { properties: [{ key: 'size', value: 10, operator: 'gt', type: 'group', group_type_index: 0 }], rollout_percentage: 100 },
          ],
        },
      },
      project,
    )
    const flag = async (body: Record<string, unknown>) => (await flagsOf({ distinct_id: 'ada', ...body }))['big-companies']
    expect(await flag({ groups: { company: 'acme' }, group_properties: { company: { size: 50 } } })).toBe(true)
    expect(await flag({ groups: { company: 'acme' }, group_properties: { company: { size: 5 } } })).toBeUndefined()
    expect(await flag({})).toBeUndefined()
    const details = (await decide({ api_key: project.projectToken, distinct_id: 'ada' }, '?v=2', '/flags/')).body.flags['big-companies']
    expect(details).toMatchObject({ enabled: false, reason: { code: 'no_group_type' } })
  })

  it('registers at most five group types per project, in the order events name them, as PostHog does', async () => {
    const fresh = await service.account()
    const types = Array.from({ length: 2_000 }, (_, i) => `type-${String(i).padStart(4, '0')}`)
    const groups = Object.fromEntries(types.map((type) => [type, 'acme']))
    expect(
      (
        await service.post('/batch/', {
          api_key: fresh.projectToken,
          batch: [{ event: 'grouped', distinct_id: 'g', properties: { $groups: groups } }],
        })
      ).status,
    ).toBe(200)
    expect(
      (
        await service.post('/capture/', {
          api_key: fresh.projectToken,
          event: 'later',
          distinct_id: 'g',
          properties: { $groups: { latecomer: 'x' } },
        })
      ).status,
    ).toBe(200)
    await service.eventsOf(fresh, 2)
    const url = `${service.baseUrl}/api/feature_flag/local_evaluation/?token=${fresh.projectToken}`
    const mapping = await waitFor(
      async () => {
        const body = await (await fetch(url, { headers: { authorization: `Bearer ${fresh.personalApiKey}` } })).json()
        return Object.keys(body.group_type_mapping).length > 0 ? body.group_type_mapping : undefined
      },
      { what: 'the group types registered' },
    )
    expect(mapping).toEqual(Object.fromEntries(types.slice(0, 5).map((type, i) => [String(i), type])))
  })

  it('answers 304 to an SDK polling definitions that have not changed', async () => {
    const url = `${service.baseUrl}/api/feature_flag/local_evaluation/?token=${project.projectToken}`
    const auth = { authorization: `Bearer ${project.personalApiKey}` }
    const first = await fetch(url, { headers: auth })
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[0-9a-f]+"$/)
    const again = await fetch(url, { headers: { ...auth, 'if-none-match': etag! } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    await createFlag({ key: 'brand-new', filters: { groups: [{ rollout_percentage: 100 }] } }, project)
    const changed = await fetch(url, { headers: { ...auth, 'if-none-match': etag! } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
  })
})

describe('answers as PostHog flag service', () => {
  let project: TestAccount
  const ask = (body: Record<string, unknown>, query = '', path = '/flags/') =>
    decide({ api_key: project.projectToken, ...body }, query, path)

  beforeAll(async () => {
    project = await service.account()
    await createFlag({ key: 'on', filters: { groups: [{ rollout_percentage: 100 }] } }, project)
  })

  it('carries requestId and evaluatedAt on every /flags/ and /decide/ answer, the request id taken from X-Request-Id', async () => {
    const before = Date.now()
    for (const [path, query] of [
      ['/decide/', ''],
      ['/decide/', '?v=2'],
      ['/decide/', '?v=3'],
      ['/decide/', '?v=4'],
      ['/flags/', ''],
      ['/flags/', '?v=1'],
      ['/flags/', '?v=2'],
    ] as const) {
      const { body } = await ask({ distinct_id: 'u' }, query, path)
      expect(body.requestId, `${path}${query}`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(body.evaluatedAt).toBeGreaterThanOrEqual(before)
      expect(body.evaluatedAt).toBeLessThanOrEqual(Date.now())
    }
    const get = (await (await fetch(`${service.baseUrl}/flags/?v=2`)).json()) as Record<string, unknown>
    expect(get).toMatchObject({ requestId: expect.any(String), evaluatedAt: expect.any(Number) })
    const id = '6f7c3e0a-2d1b-4c5e-9f8a-0b1c2d3e4f50'
    const res = await service.post('/flags/?v=2', { api_key: project.projectToken, distinct_id: 'u' }, { 'x-request-id': id })
    expect(((await res.json()) as Record<string, unknown>).requestId).toBe(id)
  })

  it('answers a POST to /flags/ without v in the v2 shape with the configuration, and ?v=2 without config=true with flags only', async () => {
    const latest = (await ask({ distinct_id: 'u' })).body
    expect(latest.flags.on).toMatchObject({ key: 'on', enabled: true })
    expect(latest).toMatchObject({ config: { enable_collect_everything: true }, supportedCompression: expect.any(Array) })
    expect(latest).not.toHaveProperty('featureFlags')
    const flagsOnly = (await ask({ distinct_id: 'u' }, '?v=2')).body
    expect(Object.keys(flagsOnly).sort()).toEqual(['errorsWhileComputingFlags', 'evaluatedAt', 'flags', 'requestId'])
    const withConfig = (await ask({ distinct_id: 'u' }, '?v=2&config=true')).body
    expect(withConfig).toMatchObject({ flags: { on: { enabled: true } }, config: { enable_collect_everything: true } })
    const legacy = (await ask({ distinct_id: 'u' }, '?v=1')).body
    expect(legacy).toMatchObject({ featureFlags: { on: true }, featureFlagPayloads: {} })
    expect(legacy).not.toHaveProperty('config')
  })

  it('evaluates for a personal API key with project_id in the body or the query, on /flags/ too', async () => {
    const viaBody = await decide({ api_key: project.personalApiKey, project_id: project.projectId, distinct_id: 'u' }, '?v=2', '/flags/')
    expect(viaBody).toMatchObject({ status: 200, body: { flags: { on: { enabled: true } } } })
    const viaQuery = await decide({ api_key: project.personalApiKey, distinct_id: 'u' }, `?v=2&project_id=${project.projectId}`, '/flags/')
    expect(viaQuery).toMatchObject({ status: 200, body: { flags: { on: { enabled: true } } } })
    expect(await decide({ api_key: project.personalApiKey, distinct_id: 'u' }, '?v=2', '/flags/')).toMatchObject({
      status: 400,
      body: { code: 'invalid_project' },
    })
  })

  it('gives an early-access flag to an enrolled person, stored or sent, whatever the main conditions say', async () => {
    await createFlag(
      {
        key: 'beta-dashboard',
        filters: {
          groups: [{ properties: [{ key: 'plan', value: 'enterprise', type: 'person' }], rollout_percentage: 100 }],
          super_groups: [
            {
              properties: [{ key: '$feature_enrollment/beta-dashboard', value: ['true'], operator: 'exact', type: 'person' }],
              rollout_percentage: 100,
            },
          ],
        },
      },
      project,
    )
    const sent = await ask({ distinct_id: 'early', person_properties: { '$feature_enrollment/beta-dashboard': true } }, '?v=2')
    expect(sent.body.flags['beta-dashboard']).toMatchObject({
      enabled: true,
      reason: { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
    })
    // posthog-js enrols a person with a $feature_enrollment_update event that $sets the property.
    const capture = await service.post('/i/v0/e/', {
      api_key: project.projectToken,
      event: '$feature_enrollment_update',
      distinct_id: 'stored-early',
      properties: { $set: { '$feature_enrollment/beta-dashboard': true } },
    })
    expect(capture.status).toBe(200)
    await service.personOf(project, 'stored-early', (p) => p.properties?.['$feature_enrollment/beta-dashboard'] === true)
    expect((await ask({ distinct_id: 'stored-early' }, '?v=2')).body.flags['beta-dashboard']).toMatchObject({ enabled: true })
    expect((await ask({ distinct_id: 'someone', person_properties: { plan: 'free' } }, '?v=2')).body.flags['beta-dashboard']).toMatchObject(
      {
        enabled: false,
        reason: { code: 'no_condition_match' },
      },
    )
  })

  it('evaluates the operators PostHog has: semver, icontains_multi, between, and flags depending on flags', async () => {
    const person = (key: string, value: unknown, operator: string) => ({ key, value, operator, type: 'person' })
    await createFlag({ key: 'new-app', filters: { groups: [{ properties: [person('app_version', '3.9', 'semver_gt')] }] } }, project)
    await createFlag(
      { key: 'browsers', filters: { groups: [{ properties: [person('$browser', ['chrome', 'edge'], 'icontains_multi')] }] } },
      project,
    )
    await createFlag({ key: 'mid-age', filters: { groups: [{ properties: [person('age', [18, 30], 'between')] }] } }, project)
    const base = await createFlag({ key: 'base', filters: { groups: [{ properties: [person('plan', 'pro', 'exact')] }] } }, project)
    await createFlag(
      {
        key: 'follows-base',
        filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] },
      },
      project,
    )
    const values = async (props: Record<string, unknown>, keys?: string[]) => {
      const body = (await ask({ distinct_id: 'ops', person_properties: props, ...(keys ? { flag_keys_to_evaluate: keys } : {}) }, '?v=2'))
        .body
      return Object.fromEntries(Object.entries(body.flags as Record<string, { enabled: boolean }>).map(([k, v]) => [k, v.enabled]))
    }
    expect(await values({ app_version: '3.10', $browser: 'Chrome Mobile', age: 30, plan: 'pro' })).toMatchObject({
      'new-app': true,
      browsers: true,
      'mid-age': true,
      base: true,
      'follows-base': true,
    })
    expect(await values({ app_version: '3.08', $browser: 'Safari', age: 31, plan: 'free' })).toMatchObject({
      'new-app': false,
      browsers: false,
      'mid-age': false,
      base: false,
      'follows-base': false,
    })
    // The flag it depends on is evaluated even when the request does not name it.
    expect(await values({ plan: 'pro' }, ['follows-base'])).toEqual({ 'follows-base': true })
  })

  it("reads a date without a zone as midnight in the project's timezone, and numbers as epoch seconds", async () => {
    await createFlag(
      {
        key: 'joined-2024',
        filters: { groups: [{ properties: [{ key: 'joined', value: '2024-01-02', operator: 'is_date_after', type: 'person' }] }] },
      },
      project,
    )
    const joined = async (value: unknown) =>
      (await ask({ distinct_id: 'd', person_properties: { joined: value } }, '?v=2')).body.flags['joined-2024'].enabled
    // In UTC, 03:00 on 2 January is after its midnight.
    expect(await joined('2024-01-02T03:00:00Z')).toBe(true)
    const patched = await service.api(project, `/api/projects/${project.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ timezone: 'America/New_York' }),
    })
    expect(patched.status).toBe(200)
    // At once, 03:00 UTC on 2 January is still 1 January in New York.
    expect(await joined('2024-01-02T03:00:00Z')).toBe(false)
    expect(await joined('2024-01-02T06:00:00Z')).toBe(true)
    expect(await joined(1_704_186_000)).toBe(true) // 2024-01-02T09:00:00Z
    expect(await joined(1_704_164_400)).toBe(false) // 2024-01-02T03:00:00Z
  })

  it('matches exact with Unicode case folding and parses numbers as PostHog does', async () => {
    await createFlag({ key: 'munich', filters: { groups: [{ properties: [{ key: 'city', value: 'MÜNCHEN', type: 'person' }] }] } }, project)
    await createFlag(
      { key: 'big', filters: { groups: [{ properties: [{ key: 'seats', value: 10, operator: 'gt', type: 'person' }] }] } },
      project,
    )
    const flags = async (props: Record<string, unknown>) => (await ask({ distinct_id: 'n', person_properties: props }, '?v=2')).body.flags
    expect((await flags({ city: 'münchen', seats: '0x10' })).munich.enabled).toBe(true)
    expect((await flags({ city: 'münchen', seats: '0x10' })).big.enabled).toBe(false)
    expect((await flags({ seats: ' 20' })).big.enabled).toBe(false)
    expect((await flags({ seats: 'inf' })).big.enabled).toBe(true)
  })
})
