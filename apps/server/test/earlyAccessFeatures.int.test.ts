import type { TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

type Feature = {
  id: string
  name: string
  description: string
  stage: string
  documentation_url: string
  created_at: string
  feature_flag: { id: number; key: string; name: string; filters: Record<string, any>; team_id: number; active: boolean; deleted: boolean }
}

async function call(path: string, init: RequestInit = {}, owner = account): Promise<{ status: number; body: any }> {
  const res = await service.api(owner, `/api/projects/${owner.projectId}${path}`, init)
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

const create = (body: Record<string, unknown>, owner = account) =>
  call('/early_access_feature/', { method: 'POST', body: JSON.stringify(body) }, owner)

/** What posthog-js's getEarlyAccessFeatures fetches. */
async function publicList(query = ''): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.baseUrl}/api/early_access_features/?token=${account.projectToken}${query}`)
  return { status: res.status, body: await res.json() }
}

const enrolment = (key: string) => [
  { properties: [{ key: `$feature_enrollment/${key}`, type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 },
]

describe('early access features', () => {
  let beta: Feature
  beforeAll(async () => {
    const res = await create({
      name: 'New Dashboard!',
      description: 'Dashboards, rebuilt',
      stage: 'beta',
      documentation_url: 'https://docs.example.com/dashboards',
      payload: { cta: 'Try it' },
    })
    expect(res.status).toBe(201)
    beta = res.body as Feature
  })

  it('creates a feature with a flag of its own, off for everyone but users who enrol', () => {
    expect(beta).toMatchObject({
      name: 'New Dashboard!',
      description: 'Dashboards, rebuilt',
      stage: 'beta',
      documentation_url: 'https://docs.example.com/dashboards',
      feature_flag: { key: 'new-dashboard', name: 'Feature Flag for Feature New Dashboard!', team_id: account.projectId, active: true },
    })
    expect(beta.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(beta.feature_flag.filters.groups).toEqual([{ properties: [], rollout_percentage: 0, variant: null }])
    expect(beta.feature_flag.filters.super_groups).toEqual(enrolment('new-dashboard'))
  })

  it('lists the beta features for posthog-js with the fields its FeaturePreview reads', async () => {
    const { status, body } = await publicList()
    expect(status).toBe(200)
    expect(body).toEqual({
      earlyAccessFeatures: [
        {
          id: beta.id,
          name: 'New Dashboard!',
          description: 'Dashboards, rebuilt',
          stage: 'beta',
          documentationUrl: 'https://docs.example.com/dashboards',
          payload: { cta: 'Try it' },
          flagKey: 'new-dashboard',
        },
      ],
    })
  })

  it('moves the enrolment condition with the stage, and lists other stages when posthog-js asks for them', async () => {
    const concept = await create({ name: 'Dark mode', stage: 'concept' })
    expect(concept.status).toBe(201)
    expect(concept.body.feature_flag.filters.super_groups).toBeUndefined()
    expect((await publicList()).body.earlyAccessFeatures.map((f: { name: string }) => f.name)).toEqual(['New Dashboard!'])
    expect((await publicList('&stage=concept&stage=beta')).body.earlyAccessFeatures.map((f: { name: string }) => f.name)).toEqual([
      'New Dashboard!',
      'Dark mode',
    ])

    const promoted = await call(`/early_access_feature/${concept.body.id}/`, { method: 'PATCH', body: JSON.stringify({ stage: 'beta' }) })
    expect(promoted.status).toBe(200)
    expect(promoted.body.feature_flag.filters.super_groups).toEqual(enrolment('dark-mode'))
    const released = await call(`/early_access_feature/${concept.body.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ stage: 'general-availability', description: 'Out now' }),
    })
    expect(released.body).toMatchObject({ stage: 'general-availability', description: 'Out now' })
    expect(released.body.feature_flag.filters.super_groups).toBeNull()
    const flag = await call(`/feature_flags/${concept.body.feature_flag.id}/`)
    expect(flag.body.filters.super_groups).toBeNull()
  })

  it("serves the feature's flag to SDKs, off for a user who did not enrol", async () => {
    const res = await service.post('/flags/?v=2', { token: account.projectToken, distinct_id: 'bystander' })
    expect(res.status).toBe(200)
    const answer = (await res.json()) as { flags: Record<string, { enabled: boolean }> }
    expect(answer.flags['new-dashboard']).toMatchObject({ enabled: false })
  })

  it('uses an existing flag when given one, and refuses a flag that cannot back a feature', async () => {
    const flag = await call('/feature_flags/', {
      method: 'POST',
      body: JSON.stringify({ key: 'search-v2', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } }),
    })
    const linked = await create({ name: 'Search', stage: 'beta', feature_flag_id: flag.body.id })
    expect(linked.status).toBe(201)
    expect(linked.body.feature_flag).toMatchObject({ id: flag.body.id, key: 'search-v2' })
    expect(linked.body.feature_flag.filters).toMatchObject({ groups: [{ rollout_percentage: 10 }], super_groups: enrolment('search-v2') })

    const again = await create({ name: 'Search again', stage: 'beta', feature_flag_id: flag.body.id })
    expect(again.status).toBe(400)
    expect(again.body.detail).toBe('Linked feature flag search-v2 already has a feature attached to it.')
    const variants = await call('/feature_flags/', {
      method: 'POST',
      body: JSON.stringify({
        key: 'ab-test',
        filters: { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } },
      }),
    })
    const multivariate = await create({ name: 'AB', stage: 'beta', feature_flag_id: variants.body.id })
    expect(multivariate.status).toBe(400)
    expect(multivariate.body.detail).toBe('Multivariate feature flags are not supported for Early Access Features.')
    expect((await create({ name: 'Nothing', stage: 'beta', feature_flag_id: 999_999 })).body.detail).toBe(
      'Feature Flag with this ID does not exist',
    )
  })

  it('refuses a bad stage, a missing name and a taken flag key with validation errors', async () => {
    const stage = await create({ name: 'Stageless', stage: 'gamma' })
    expect(stage.status).toBe(400)
    expect(stage.body).toMatchObject({ type: 'validation_error', attr: 'stage' })
    const name = await create({ stage: 'beta' })
    expect(name.status).toBe(400)
    expect(name.body).toMatchObject({ type: 'validation_error', attr: 'name' })
    const taken = await create({ name: 'new dashboard', stage: 'alpha' })
    expect(taken.status).toBe(400)
    expect(taken.body).toMatchObject({ type: 'validation_error', attr: 'key' })
  })

  it('lists, retrieves and deletes features; the deleted feature leaves its flag without the enrolment condition', async () => {
    const list = await call('/early_access_feature/')
    expect(list.status).toBe(200)
    expect(list.body.results.map((f: Feature) => f.name)).toContain('New Dashboard!')
    expect((await call(`/early_access_feature/${beta.id}/`)).body).toMatchObject({ id: beta.id, name: 'New Dashboard!' })
    expect((await call(`/early_access_feature/${beta.id}/`, { method: 'DELETE' })).status).toBe(204)
    expect((await call(`/early_access_feature/${beta.id}/`)).status).toBe(404)
    const flag = await call(`/feature_flags/${beta.feature_flag.id}/`)
    expect(flag.body).toMatchObject({ key: 'new-dashboard', deleted: false })
    expect(flag.body.filters.super_groups).toBeNull()
    expect((await publicList()).body.earlyAccessFeatures.map((f: { name: string }) => f.name)).not.toContain('New Dashboard!')
  })

  it("answers 404 for another project's feature and refuses a missing or wrong project key on the public list", async () => {
    const other = await service.account()
    const mine = await create({ name: 'Private', stage: 'beta' })
    expect((await call(`/early_access_feature/${mine.body.id}/`, {}, other)).status).toBe(404)
    expect((await call('/early_access_feature/', {}, other)).body.results).toEqual([])
    const missing = await fetch(`${service.baseUrl}/api/early_access_features/`)
    expect(missing.status).toBe(401)
    const wrong = await fetch(`${service.baseUrl}/api/early_access_features/?token=phc_nope`)
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
  })
})
