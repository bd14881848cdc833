import type { TestAccount } from '@burrow/testing'
import { PostHog } from 'posthog-node'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const FLAG_FIELDS = [
  'active',
  'created_at',
  'created_by',
  'deleted',
  'ensure_experience_continuity',
  'filters',
  'id',
  'is_remote_configuration',
  'is_simple_flag',
  'key',
  'name',
  'rollout_percentage',
  'updated_at',
  'version',
]

async function call(owner: TestAccount, method: string, path: string, body?: unknown) {
  const res = await service.api(owner, `/api/projects/${owner.projectId}/feature_flags/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const multivariate = {
  groups: [
    { properties: [{ key: 'email', value: '@acme.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100, variant: 'test' },
  ],
  multivariate: {
    variants: [
      { key: 'control', rollout_percentage: 50 },
      { key: 'test', rollout_percentage: 50 },
    ],
  },
  payloads: { test: '{"discount": 10}' },
}

describe('feature flags', () => {
  it('creates a flag (201) with every field, the creator, version 1, and the simple-flag figures', async () => {
    const created = await call(account, 'POST', '', {
      key: 'new-checkout',
      name: 'New checkout',
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
      version: 9,
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(FLAG_FIELDS)
    expect(created.body).toMatchObject({
      key: 'new-checkout',
      name: 'New checkout',
      active: true,
      deleted: false,
      is_remote_configuration: false,
      version: 1,
      is_simple_flag: true,
      rollout_percentage: 30,
      created_by: { id: account.userId },
    })
    const complex = await call(account, 'POST', '', { key: 'pricing-test', filters: multivariate })
    expect(complex.status).toBe(201)
    expect(complex.body).toMatchObject({ is_simple_flag: false, rollout_percentage: null, filters: multivariate })
    expect((await call(account, 'GET', `${created.body.id}/`)).body).toEqual(created.body)
  })

  it.each([
    ['a key with other characters', { key: 'new checkout!' }, 'key'],
    ['a key taken by a live flag', { key: 'taken' }, 'key'],
    [
      'variants that do not add up to 100',
      {
        key: 'v1',
        filters: {
          groups: [{}],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 60 },
              { key: 'b', rollout_percentage: 30 },
            ],
          },
        },
      },
      'filters',
    ],
    [
      'an override naming no variant',
      { key: 'v2', filters: { groups: [{ variant: 'nope' }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } } },
      'filters',
    ],
    [
      'an unknown operator',
      { key: 'v3', filters: { groups: [{ properties: [{ key: 'plan', value: 'x', operator: 'sounds_like' }] }] } },
      'filters__groups__0__properties__0__operator',
    ],
    ['gt with a word', { key: 'v4', filters: { groups: [{ properties: [{ key: 'seats', value: 'many', operator: 'gt' }] }] } }, 'filters'],
    ['a rollout over 100', { key: 'v5', filters: { groups: [{ rollout_percentage: 120 }] } }, 'filters__groups__0__rollout_percentage'],
    [
      'a cohort that does not exist',
      { key: 'v6', filters: { groups: [{ properties: [{ key: 'id', value: 999999, type: 'cohort' }] }] } },
      'filters',
    ],
    ['a payload for no value of the flag', { key: 'v7', filters: { groups: [{}], payloads: { false: '1' } } }, 'filters'],
    ['a payload that is not JSON', { key: 'v8', filters: { groups: [{}], payloads: { true: '{nope' } } }, 'filters'],
    [
      'a pattern RE2 cannot read (lookahead)',
      { key: 'v9', filters: { groups: [{ properties: [{ key: 'email', value: 'a(?=b)', operator: 'regex', type: 'person' }] }] } },
      'filters',
    ],
  ])('answers 400 validation_error for %s', async (_name, body, attr) => {
    const fresh = await service.account()
    await call(fresh, 'POST', '', { key: 'taken' })
    const res = await call(fresh, 'POST', '', body)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('bumps the version on PATCH, keeps the filters when the patch has no groups, and soft-deletes', async () => {
    const fresh = await service.account()
    const { body: flag } = await call(fresh, 'POST', '', { key: 'beta', filters: multivariate })
    const renamed = await call(fresh, 'PATCH', `${flag.id}/`, { name: 'Beta', filters: { payloads: {} } })
    expect(renamed.body).toMatchObject({ name: 'Beta', version: 2, filters: multivariate })
    const off = await call(fresh, 'PATCH', `${flag.id}/`, { active: false })
    expect(off.body).toMatchObject({ active: false, version: 3 })
    expect((await call(fresh, 'GET', '?active=false')).body.results.map((f: { key: string }) => f.key)).toEqual(['beta'])
    expect((await call(fresh, 'GET', '?active=true')).body.count).toBe(0)

    const deleted = await call(fresh, 'PATCH', `${flag.id}/`, { deleted: true })
    expect(deleted.body.deleted).toBe(true)
    expect((await call(fresh, 'GET', '')).body).toMatchObject({ count: 0, results: [] })
    // The key of a deleted flag can be used again.
    expect((await call(fresh, 'POST', '', { key: 'beta' })).status).toBe(201)
  })

  it('refuses a hard delete with 405 and lists newest first with search', async () => {
    const fresh = await service.account()
    const { body: flag } = await call(fresh, 'POST', '', { key: 'alpha-one' })
    await call(fresh, 'POST', '', { key: 'beta-two', name: 'Second ALPHA' })
    await call(fresh, 'POST', '', { key: 'gamma' })
    const del = await call(fresh, 'DELETE', `${flag.id}/`)
    expect(del.status).toBe(405)
    expect(del.body).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' })
    const found = await call(fresh, 'GET', '?search=alpha')
    expect(found.body.results.map((f: { key: string }) => f.key)).toEqual(['beta-two', 'alpha-one'])
    // Each word of a search must be in the key or the name, as PostHog's term search has it.
    const words = await call(fresh, 'GET', '?search=two%20alpha')
    expect(words.body.results.map((f: { key: string }) => f.key)).toEqual(['beta-two'])
    expect((await call(fresh, 'GET', '?search=gamma%20alpha')).body.count).toBe(0)
  })

  it('refuses a text operator (icontains, regex) with a value that is not text, as invalid_value', async () => {
    for (const [operator, value] of [
      ['icontains', 5],
      ['not_icontains', ['a']],
      ['regex', null],
    ] as const) {
      const res = await call(account, 'POST', '', {
        key: `text-${operator}`,
        filters: { groups: [{ properties: [{ key: 'email', type: 'person', operator, value }], rollout_percentage: 100 }] },
      })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'invalid_value',
        detail: `Invalid value for operator ${operator}: ${JSON.stringify(value)}`,
        attr: 'filters',
      })
    }
    const text = await call(account, 'POST', '', {
      key: 'text-icontains-ok',
      filters: { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@acme' }] }] },
    })
    expect(text.status).toBe(201)
  })

  it("answers 404 for another project's flag", async () => {
    const other = await service.account()
    const { body: theirs } = await call(other, 'POST', '', { key: 'theirs' })
    expect((await call(account, 'GET', `${theirs.id}/`)).status).toBe(404)
    expect((await call(account, 'PATCH', `${theirs.id}/`, { name: 'x' })).status).toBe(404)
  })
})

describe('remote configuration flags', () => {
  it("serves the payload by key to posthog-node's getRemoteConfigPayload, and by id", async () => {
    const owner = await service.account()
    const config = { theme: 'dark', retries: 3 }
    const created = await call(owner, 'POST', '', {
      key: 'app-config',
      is_remote_configuration: true,
      filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: JSON.stringify(config) } },
    })
    expect(created.status).toBe(201)
    expect(created.body.is_remote_configuration).toBe(true)

    const client = new PostHog(owner.projectToken, { host: service.baseUrl, personalApiKey: owner.personalApiKey, flushAt: 1 })
    try {
      expect(await client.getRemoteConfigPayload('app-config')).toEqual(config)
    } finally {
      await client.shutdown()
    }
    // The stored value as it is (a JSON string), as PostHog answers it.
    const byId = await service.api(owner, `/api/projects/@current/feature_flags/${created.body.id}/remote_config`)
    expect(byId.status).toBe(200)
    expect(await byId.json()).toBe(JSON.stringify(config))
  })

  it('answers null without a payload, and 404 without a body for a flag that is not one, or none', async () => {
    const owner = await service.account()
    const { body: emptyConfig } = await call(owner, 'POST', '', { key: 'empty-config', is_remote_configuration: true })
    await call(owner, 'POST', '', { key: 'rollout', filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '1' } } })
    const remoteConfig = (key: string) => service.api(owner, `/api/projects/${owner.projectId}/feature_flags/${key}/remote_config/`)

    const empty = await remoteConfig('empty-config')
    expect(empty.status).toBe(200)
    expect(await empty.json()).toBeNull()
    for (const key of ['rollout', 'no-such-flag', '999999', '99999999999999999999']) {
      const res = await remoteConfig(key)
      expect(res.status, key).toBe(404)
      expect(await res.text()).toBe('')
    }
    // Turned off for the flag, the payload is no longer served.
    expect((await call(owner, 'PATCH', `${emptyConfig.id}/`, { is_remote_configuration: false })).body.is_remote_configuration).toBe(false)
    expect((await remoteConfig('empty-config')).status).toBe(404)
  })
})
