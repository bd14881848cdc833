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
      'a pattern that does not compile',
      { key: 'v9', filters: { groups: [{ properties: [{ key: 'email', value: 'a(?=b', operator: 'regex', type: 'person' }] }] } },
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

describe('release conditions PostHog accepts', () => {
  const person = (key: string, value: unknown, operator: string) => ({ key, value, operator, type: 'person' })
  const withProperties = (key: string, ...properties: unknown[]) => ({
    key,
    filters: { groups: [{ properties, rollout_percentage: 100 }] },
  })
  const dependency = (id: number, value: unknown = true) => ({ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value })

  it('accepts the semver, multi-contains, between and early-access conditions', async () => {
    for (const [operator, value] of [
      ['semver_eq', '1.2.3'],
      ['semver_neq', 'v1.2'],
      ['semver_gt', '3.08'],
      ['semver_gte', '1.0.0-beta.1'],
      ['semver_lt', '2'],
      ['semver_lte', '2.0.0'],
      ['semver_tilde', '1.2.3'],
      ['semver_caret', '0.2.3'],
      ['semver_wildcard', '1.2.*'],
      ['icontains_multi', ['chrome', 'edge']],
      ['not_icontains_multi', ['bot']],
      ['between', [1, 10]],
      ['not_between', ['1.5', '2']],
    ] as const) {
      const created = await call(account, 'POST', '', withProperties(`op-${operator}`, person('p', value, operator)))
      expect(created.status, operator).toBe(201)
    }
    const early = await call(account, 'POST', '', {
      key: 'early',
      filters: {
        groups: [{ rollout_percentage: 0 }],
        super_groups: [{ properties: [person('$feature_enrollment/early', ['true'], 'exact')], rollout_percentage: 100 }],
      },
    })
    expect(early.status).toBe(201)
    expect(early.body.filters.super_groups).toHaveLength(1)
  })

  it('refuses values those operators cannot read, and relative dates of 10,000 units or more', async () => {
    for (const [operator, value] of [
      ['semver_gt', 'latest'],
      ['semver_wildcard', '1.*.3'],
      ['between', [10, 1]],
      ['between', [1]],
      ['is_date_after', '10000d'],
      ['is_date_before', 'yesterday'],
    ] as const) {
      const refused = await call(account, 'POST', '', withProperties(`bad-${operator}`, person('p', value, operator)))
      expect(refused, `${operator} ${JSON.stringify(value)}`).toMatchObject({
        status: 400,
        body: { type: 'validation_error', attr: 'filters' },
      })
    }
    expect((await call(account, 'POST', '', withProperties('recent', person('p', '9999d', 'is_date_after')))).status).toBe(201)
  })

  it('accepts flag dependencies on active flags by id, and refuses keys, unknown or disabled flags, itself and cycles', async () => {
    const a = await call(account, 'POST', '', { key: 'dep-a', filters: { groups: [{ rollout_percentage: 100 }] } })
    const b = await call(account, 'POST', '', withProperties('dep-b', dependency(a.body.id)))
    expect(b.status).toBe(201)
    const c = await call(account, 'POST', '', withProperties('dep-c', dependency(b.body.id, false)))
    expect(c.status).toBe(201)

    const refusal = (detail: string) => ({ status: 400, body: { type: 'validation_error', attr: 'filters', detail } })
    expect(await call(account, 'POST', '', withProperties('by-key', { ...dependency(0), key: 'dep-a' }))).toMatchObject(
      refusal("Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'dep-a'"),
    )
    expect(await call(account, 'POST', '', withProperties('unknown', dependency(999_999)))).toMatchObject(
      refusal('Flag dependency references non-existent flag with ID 999999'),
    )
    const off = await call(account, 'POST', '', { key: 'dep-off', active: false, filters: { groups: [{ rollout_percentage: 100 }] } })
    expect(await call(account, 'POST', '', withProperties('on-off', dependency(off.body.id)))).toMatchObject(
      refusal(
        `Cannot create dependency on disabled flag 'dep-off' (ID: ${off.body.id}). Flag dependencies must reference active flags only.`,
      ),
    )
    expect(await call(account, 'PATCH', `${a.body.id}/`, { filters: { groups: [{ properties: [dependency(a.body.id)] }] } })).toMatchObject(
      refusal("Feature flag 'dep-a' cannot depend on itself"),
    )
    expect(await call(account, 'PATCH', `${a.body.id}/`, { filters: { groups: [{ properties: [dependency(c.body.id)] }] } })).toMatchObject(
      refusal('Circular dependency detected: dep-a → dep-c → dep-b → dep-a'),
    )
    // Nothing was saved: dep-a is still on for everyone.
    expect((await call(account, 'GET', `${a.body.id}/`)).body.filters).toEqual({ groups: [{ rollout_percentage: 100 }] })
  })
})
