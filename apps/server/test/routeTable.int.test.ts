import { randomUUID } from 'node:crypto'
import { appRouter, restRoutes, type AppRouter } from '@burrow/api'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { TestAccount } from '@burrow/testing'
import { createTRPCClient, httpBatchLink } from '@trpc/client'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

/** A concrete path for a route: its parameters filled in for the given project and organization. */
function pathFor(path: string, ids: { project: string | number; organization: string }): string {
  return path
    .replace(':project_id', String(ids.project))
    .replace(':organization_id', ids.organization)
    .replace('/api/projects/:id/', `/api/projects/${ids.project}/`)
    .replace(':parent_lookup_plugin_config_id', '1')
    .replace(':group_type_index', '0')
    .replace(':user_id', '@me')
    .replace(':invite_id', randomUUID())
    .replace('/flags/definitions/', '/flags/definitions')
    .replace(/:id\b/, path.includes('/events/') ? randomUUID() : '1')
}

const cases = restRoutes.map((route) => [route.method, route.path] as const)
const bodyFor = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : '{}')

describe('the route table', () => {
  it('names an existing procedure with an output schema on every row', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown } }>
    for (const route of restRoutes) {
      const procedure = procedures[route.procedure]
      expect(procedure, `${route.method} ${route.path} -> ${route.procedure}`).toBeDefined()
      expect(procedure!._def.output, `${route.procedure} has an output schema`).toBeDefined()
    }
  })

  it('covers every route of the spec', () => {
    const table = new Set(restRoutes.map((r) => `${r.method} ${r.path}`))
    const spec = [
      'GET /api/projects/:project_id/plugin_configs/',
      'POST /api/projects/:project_id/plugin_configs/',
      'GET /api/projects/:project_id/plugin_configs/:parent_lookup_plugin_config_id/logs/',
      'GET /api/projects/:project_id/plugin_configs/:id/',
      'PATCH /api/projects/:project_id/plugin_configs/:id/',
      'DELETE /api/projects/:project_id/plugin_configs/:id/',
      'GET /api/projects/:project_id/plugin_configs/:id/frontend/',
      'POST /api/projects/:project_id/plugin_configs/:id/job/',
      'PATCH /api/projects/:project_id/plugin_configs/rearrange/',
      'GET /api/projects/:project_id/cohorts/',
      'POST /api/projects/:project_id/cohorts/',
      'GET /api/projects/:project_id/cohorts/:id/',
      'PATCH /api/projects/:project_id/cohorts/:id/',
      'GET /api/projects/:project_id/cohorts/:id/persons/',
      'GET /api/projects/:project_id/event_definitions/',
      'GET /api/projects/:project_id/event_definitions/:id/',
      'PATCH /api/projects/:project_id/event_definitions/:id/',
      'GET /api/projects/:project_id/events/',
      'GET /api/projects/:project_id/events/:id/',
      'GET /api/projects/:project_id/events/values/',
      'GET /api/projects/',
      'POST /api/projects/',
      'GET /api/projects/:id/',
      'PATCH /api/projects/:id/',
      'DELETE /api/projects/:id/',
      'GET /api/users/@me/',
      'GET /api/projects/:project_id/feature_flags/',
      'POST /api/projects/:project_id/feature_flags/',
      'GET /api/projects/:project_id/feature_flags/:id/',
      'PATCH /api/projects/:project_id/feature_flags/:id/',
      'GET /api/projects/:project_id/insights/',
      'POST /api/projects/:project_id/insights/',
      'GET /api/projects/:project_id/insights/:id/',
      'PATCH /api/projects/:project_id/insights/:id/',
      'GET /api/projects/:project_id/dashboards/',
      'POST /api/projects/:project_id/dashboards/',
      'GET /api/projects/:project_id/dashboards/:id/',
      'PATCH /api/projects/:project_id/dashboards/:id/',
    ]
    expect(spec.filter((route) => !table.has(route))).toEqual([])
  })
})

describe('authorization, for every route of the table', () => {
  // An invite link signs its holder up without a key (inviteSignup.int.test.ts), as PostHog's does.
  const keyed = cases.filter(([method, path]) => !(method === 'POST' && path === '/api/signup/:invite_id/'))
  it.each(keyed)('%s %s answers 401 not_authenticated without a key', async (method, path) => {
    const res = await fetch(`${service.baseUrl}${pathFor(path, { project: account.projectId, organization: '@current' })}`, {
      method,
      body: bodyFor(method),
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    })
  })

  it.each(cases)('%s %s answers 401 authentication_failed for an unknown key and for a project key', async (method, path) => {
    for (const key of ['phx_not_a_real_key', account.projectToken]) {
      const res = await fetch(`${service.baseUrl}${pathFor(path, { project: account.projectId, organization: '@current' })}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
        body: bodyFor(method),
      })
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ type: 'authentication_error', code: 'authentication_failed' })
    }
  })

  const scoped = cases.filter(([, path]) => /:project_id|:id\/$|:organization_id/.test(path) && !path.startsWith('/api/users'))
  it.each(scoped)("%s %s answers 404 for another organization's project or organization", async (method, path) => {
    const other = await service.account()
    const res = await service.api(account, pathFor(path, { project: other.projectId, organization: other.organizationId }), {
      method,
      body: bodyFor(method),
    })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ type: 'invalid_request', code: 'not_found', attr: null })
  })

  const withParams = cases.filter(([, path]) => /\/:(id|parent_lookup_plugin_config_id)\//.test(path))
  it.each(withParams)('%s %s answers 404 when a path parameter is not valid percent-encoding', async (method, path) => {
    const malformed = pathFor(path.replace(/:(id|parent_lookup_plugin_config_id)\b/, '%E0%A4%A'), {
      project: account.projectId,
      organization: account.organizationId,
    })
    const res = await service.api(account, malformed, { method, body: bodyFor(method) })
    expect(res.status).toBe(404)
  })

  it('takes the key from ?personal_api_key= as PostHog does', async () => {
    const res = await fetch(`${service.baseUrl}/api/projects/?personal_api_key=${account.personalApiKey}`)
    expect(res.status).toBe(200)
  })

  it('takes the key from a personal_api_key field of the JSON body as PostHog does', async () => {
    const res = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/cohorts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personal_api_key: account.personalApiKey, name: 'Keyed in the body' }),
    })
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({ name: 'Keyed in the body', created_by: { id: account.userId } })
    const wrong = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/cohorts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personal_api_key: 'phx_not_a_key', name: 'x' }),
    })
    expect(wrong.status).toBe(401)
  })
})

describe('scopes and reach of personal API keys, for every route of the table', () => {
  /** A key of the account made over the API, with these scopes and limits. */
  async function keyOf(owner: TestAccount, grant: Record<string, unknown>): Promise<string> {
    const res = await service.api(owner, '/api/personal_api_keys/', { method: 'POST', body: JSON.stringify({ label: 'scoped', ...grant }) })
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(201)
    return ((await res.json()) as { value: string }).value
  }
  const call = (key: string, method: string, path: string) =>
    fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: bodyFor(method),
    })

  it.each(cases)('%s %s answers 403 to a key without its scope, naming the scope', async (method, path) => {
    const route = restRoutes.find((r) => r.method === method && r.path === path)!
    const object = route.scope.split(':')[0]
    // Every scope of every other object, and nothing of this one.
    const others = [...new Set(restRoutes.map((r) => r.scope.split(':')[0]))].filter((o) => o !== object).map((o) => `${o}:write`)
    // A fresh account each time: a user has at most 10 keys.
    const owner = await service.account()
    const key = await keyOf(owner, { scopes: others })
    const res = await call(key, method, pathFor(path, { project: owner.projectId, organization: owner.organizationId }))
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: `API key missing required scope '${route.scope}'`,
      attr: null,
    })
  })

  it('lets a read scope through where a key carries the write scope of the object, and not the other way', async () => {
    const owner = await service.account()
    const writer = await keyOf(owner, { scopes: ['cohort:write'] })
    expect((await call(writer, 'GET', `/api/projects/${owner.projectId}/cohorts/`)).status).toBe(200)
    const reader = await keyOf(owner, { scopes: ['cohort:read'] })
    expect((await call(reader, 'GET', `/api/projects/${owner.projectId}/cohorts/`)).status).toBe(200)
    const refused = await call(reader, 'POST', `/api/projects/${owner.projectId}/cohorts/`)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ detail: "API key missing required scope 'cohort:write'" })
  })

  const projectRoutes = cases.filter(([, path]) => /:project_id|^\/api\/projects\/:id\/|local_evaluation|definitions/.test(path))
  it.each(projectRoutes)('%s %s answers 403 to a key limited to another project of the same user', async (method, path) => {
    const owner = await service.account()
    const second = (await (
      await service.api(owner, '/api/projects/', { method: 'POST', body: JSON.stringify({ name: 'Second' }) })
    ).json()) as { id: number }
    const key = await keyOf(owner, { scopes: ['*'], scoped_teams: [second.id] })
    const target = pathFor(path, { project: owner.projectId, organization: owner.organizationId })
    // The legacy local evaluation paths name their project by its token.
    const res = await call(key, method, path.includes(':') ? target : `${target}?token=${owner.projectToken}`)
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({
      code: 'permission_denied',
      detail: `API key does not have access to the requested project: ID ${owner.projectId}.`,
    })
  })

  const organizationRoutes = cases.filter(([, path]) => path.includes(':organization_id'))
  it.each(organizationRoutes)('%s %s answers 403 to keys limited to projects or to another organization', async (method, path) => {
    const owner = await service.account()
    const teamsOnly = await keyOf(owner, { scopes: ['*'], scoped_teams: [owner.projectId] })
    const res = await call(teamsOnly, method, pathFor(path, { project: owner.projectId, organization: owner.organizationId }))
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ detail: 'API keys with scoped projects are only supported on project-based endpoints.' })

    // The user belongs to a second organization, to which the key is limited.
    const other = await service.account()
    const invite = (await (
      await service.api(other, `/api/organizations/@current/invites/`, {
        method: 'POST',
        body: JSON.stringify({ target_email: await emailOf(owner), level: 1 }),
      })
    ).json()) as { id: string }
    const ownerOrganization = owner.organizationId
    expect((await service.api(owner, `/api/signup/${invite.id}/`, { method: 'POST' })).status).toBe(200)
    const elsewhere = await keyOf(owner, { scopes: ['*'], scoped_organizations: [other.organizationId] })
    const refused = await call(elsewhere, method, pathFor(path, { project: owner.projectId, organization: ownerOrganization }))
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({
      detail: `API key does not have access to the requested organization: ID ${ownerOrganization}.`,
    })
  })

  async function emailOf(owner: TestAccount): Promise<string> {
    return ((await (await service.api(owner, '/api/users/@me/')).json()) as { email: string }).email
  }
})

describe('personal API key routes, called with a key narrower than the key they name', () => {
  interface Answer {
    status: number
    body: any
  }
  /** One call of a key route: `id` fills `:id`, `body` is the JSON sent (tRPC: the input, or its `data` for an update). */
  type Call = (key: string, input?: { id?: string; body?: Record<string, unknown> }) => Promise<Answer>

  const keyRoutes = restRoutes.filter((r) => r.procedure.startsWith('personalApiKeys.'))

  function overRest(route: (typeof restRoutes)[number]): Call {
    return async (key, input = {}) => {
      const res = await fetch(`${service.baseUrl}${route.path.replace(':id', input.id ?? '')}`, {
        method: route.method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
      })
      return { status: res.status, body: res.status === 204 ? null : await res.json() }
    }
  }

  function overTrpc(procedure: string): Call {
    return async (key, input = {}) => {
      const client = createTRPCClient<AppRouter>({
        links: [httpBatchLink({ url: `${service.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })],
      })
      const keys = client.personalApiKeys
      const id = input.id ?? ''
      const body = (input.body ?? {}) as never
      try {
        const calls: Record<string, () => Promise<unknown>> = {
          'personalApiKeys.list': () => keys.list.query(),
          'personalApiKeys.get': () => keys.get.query({ id }),
          'personalApiKeys.create': () => keys.create.mutate(body),
          'personalApiKeys.update': () => keys.update.mutate({ id, data: body }),
          'personalApiKeys.roll': () => keys.roll.mutate({ id }),
          'personalApiKeys.delete': () => keys.delete.mutate({ id }),
        }
        return { status: 200, body: await calls[procedure]!() }
      } catch (err) {
        const data = (err as { data?: { httpStatus: number; problem: unknown } }).data
        if (!data) throw err
        return { status: data.httpStatus, body: data.problem }
      }
    }
  }

  /** An account's full key (`*`, made with the account) and a key of the same user with less. */
  async function keysOf(owner: TestAccount) {
    const full = (await (await service.api(owner, '/api/personal_api_keys/@current/')).json()) as { id: string; label: string }
    const narrow = await createKey(owner, { scopes: ['personal_api_key:write'], scoped_teams: [owner.projectId] })
    return { full: { ...full, value: owner.personalApiKey }, narrow }
  }
  async function createKey(owner: TestAccount, grant: Record<string, unknown>): Promise<{ id: string; value: string }> {
    const res = await service.api(owner, '/api/personal_api_keys/', { method: 'POST', body: JSON.stringify({ label: 'narrow', ...grant }) })
    expect(res.status).toBe(201)
    return (await res.json()) as { id: string; value: string }
  }
  /** 200 while the key works (every key here may read itself), 401 once it is rolled or deleted. */
  const works = async (key: string) =>
    (await fetch(`${service.baseUrl}/api/personal_api_keys/@current/`, { headers: { authorization: `Bearer ${key}` } })).status
  const refusedAsWider = (answer: Answer) => {
    expect(answer.status).toBe(403)
    expect(answer.body).toMatchObject({
      code: 'permission_denied',
      detail: "A key cannot act on a key with a scope it does not have: '*'.",
    })
  }

  /** What each procedure does for the narrow key, for itself and for the full key; the full key keeps its power. */
  const checks: Record<string, (call: Call, owner: TestAccount) => Promise<void>> = {
    'personalApiKeys.list': async (call, owner) => {
      const { full, narrow } = await keysOf(owner)
      const seen = await call(narrow.value)
      expect(seen.status).toBe(200)
      expect(seen.body.map((k: { id: string }) => k.id)).toEqual([narrow.id])
      const all = await call(full.value)
      expect(all.body.map((k: { id: string }) => k.id).sort()).toEqual([full.id, narrow.id].sort())
    },
    'personalApiKeys.get': async (call, owner) => {
      const { full, narrow } = await keysOf(owner)
      refusedAsWider(await call(narrow.value, { id: full.id }))
      expect((await call(narrow.value, { id: narrow.id })).body).toMatchObject({ id: narrow.id, value: null })
      expect((await call(full.value, { id: narrow.id })).status).toBe(200)
    },
    'personalApiKeys.create': async (call, owner) => {
      const { narrow } = await keysOf(owner)
      const wider = await call(narrow.value, { body: { label: 'escalate', scopes: ['personal_api_key:read'] } })
      expect(wider.status).toBe(403)
      expect(wider.body).toMatchObject({ detail: 'A key limited to projects can only make keys limited to some of them.' })
      const within = await call(narrow.value, {
        body: { label: 'within', scopes: ['personal_api_key:read'], scoped_teams: [owner.projectId] },
      })
      expect(within.status).toBeLessThan(300)
      expect((await call(owner.personalApiKey, { body: { label: 'anything', scopes: ['*'] } })).status).toBeLessThan(300)
    },
    'personalApiKeys.update': async (call, owner) => {
      const { full, narrow } = await keysOf(owner)
      // Narrowing the full key to what the narrow key holds would take it away from its user.
      const narrowed = { label: 'taken', scopes: ['personal_api_key:read'], scoped_teams: [owner.projectId] }
      refusedAsWider(await call(narrow.value, { id: full.id, body: narrowed }))
      const after = (await (await service.api(owner, `/api/personal_api_keys/${full.id}/`)).json()) as Record<string, unknown>
      expect(after).toMatchObject({ label: full.label, scopes: ['*'], scoped_teams: [] })
      expect((await call(narrow.value, { id: narrow.id, body: { label: 'renamed itself' } })).body).toMatchObject({
        label: 'renamed itself',
      })
      expect((await call(full.value, { id: narrow.id, body: { label: 'renamed by the full key' } })).status).toBe(200)
    },
    'personalApiKeys.roll': async (call, owner) => {
      const { full, narrow } = await keysOf(owner)
      refusedAsWider(await call(narrow.value, { id: full.id }))
      expect(await works(full.value)).toBe(200)
      const rolled = await call(narrow.value, { id: narrow.id })
      expect(rolled.body).toMatchObject({ id: narrow.id, value: expect.stringMatching(/^phx_/) })
      expect(await works(narrow.value)).toBe(401)
      const byFull = await call(full.value, { id: narrow.id })
      expect(byFull.status).toBe(200)
      expect(await works(byFull.body.value)).toBe(200)
    },
    'personalApiKeys.delete': async (call, owner) => {
      const { full, narrow } = await keysOf(owner)
      refusedAsWider(await call(narrow.value, { id: full.id }))
      expect(await works(full.value)).toBe(200)
      expect((await call(narrow.value, { id: narrow.id })).status).toBeLessThan(300)
      expect(await works(narrow.value)).toBe(401)
      const other = await createKey(owner, { scopes: ['cohort:read'] })
      expect((await call(full.value, { id: other.id })).status).toBeLessThan(300)
      expect(await works(other.value)).toBe(401)
    },
  }

  it('has a check for every personal API key route of the table', () => {
    expect(keyRoutes.map((r) => r.procedure).filter((p) => !checks[p])).toEqual([])
    expect(new Set(keyRoutes.map((r) => r.procedure)).size).toBe(6)
  })
  it.each(keyRoutes.map((r) => [r.method, r.path, r] as const))('%s %s over REST', async (_method, _path, route) => {
    await checks[route.procedure]!(overRest(route), await service.account())
  })
  it.each([...new Set(keyRoutes.map((r) => r.procedure))])('%s over tRPC', async (procedure) => {
    await checks[procedure]!(overTrpc(procedure), await service.account())
  })

  it('refuses a key limited to a project or an organization the unlimited key, whatever its scopes', async () => {
    const owner = await service.account()
    const { full } = await keysOf(owner)
    const byProject = await createKey(owner, { scopes: ['*'], scoped_teams: [owner.projectId] })
    const byOrganization = await createKey(owner, { scopes: ['*'], scoped_organizations: [owner.organizationId] })
    for (const [key, detail] of [
      [byProject.value, 'A key limited to projects can only act on keys limited to some of them.'],
      [byOrganization.value, 'A key limited to organizations can only act on keys limited to some of them.'],
    ] as const) {
      for (const [method, suffix] of [
        ['POST', 'roll/'],
        ['DELETE', ''],
      ] as const) {
        const res = await fetch(`${service.baseUrl}/api/personal_api_keys/${full.id}/${suffix}`, {
          method,
          headers: { authorization: `Bearer ${key}` },
        })
        expect(res.status).toBe(403)
        expect(await res.json()).toMatchObject({ code: 'permission_denied', detail })
      }
    }
    expect(await works(full.value)).toBe(200)
  })
})

describe('pagination, for every list of the table', () => {
  const paginationOf = (path: string) => restRoutes.find((r) => r.method === 'GET' && r.path === path)?.paginated
  const listed = cases.filter(([method, path]) => method === 'GET' && paginationOf(path) && !/:(id|parent_lookup)/.test(path))
  const lists = listed.filter(([, path]) => paginationOf(path) === true)
  const cursorLists = listed.filter(([, path]) => paginationOf(path) === 'cursor')
  // Lists that need a query parameter to name what they list.
  const requiredQuery: Record<string, string> = { '/api/projects/:project_id/groups/': '&group_type_index=0' }
  it.each(cursorLists)('%s %s answers the cursor envelope without a count, and 404 for a cursor it did not make', async (_method, path) => {
    const list = `${pathFor(path, { project: account.projectId, organization: account.organizationId })}?offset=1000000${requiredQuery[path] ?? ''}`
    const res = await service.api(account, list)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ next: null, previous: null, results: [] })
    const bad = await service.api(account, `${list}&cursor=bm90IGEgY3Vyc29y`)
    expect(bad.status).toBe(404)
    expect(await bad.json()).toMatchObject({ code: 'not_found', detail: 'Invalid cursor' })
  })
  it.each(lists)('%s %s answers an empty page for an offset past every item, and 400 for one past 2^32 - 1', async (_method, path) => {
    const page = (offset: string) =>
      service.api(
        account,
        `${pathFor(path, { project: account.projectId, organization: account.organizationId })}?offset=${offset}${requiredQuery[path] ?? ''}`,
      )
    for (const offset of ['1000000', String(2 ** 32 - 1)]) {
      const res = await page(offset)
      expect(res.status, offset).toBe(200)
      expect(await res.json()).toMatchObject({ next: null, results: [] })
    }
    const tooFar = await page('99999999999999999999')
    expect(tooFar.status).toBe(400)
    expect(await tooFar.json()).toMatchObject({ type: 'validation_error', attr: 'offset' })
  })
})

describe('U+0000 in the input', () => {
  it('is refused with 400 null_characters_not_allowed naming the field, in bodies, updates and queries', async () => {
    const scoped = `/api/projects/${account.projectId}`
    const created = await service.api(account, `${scoped}/cohorts/`, { method: 'POST', body: JSON.stringify({ name: 'a\u0000b' }) })
    expect(created.status).toBe(400)
    expect(await created.json()).toEqual({
      type: 'validation_error',
      code: 'null_characters_not_allowed',
      detail: 'Null characters are not allowed.',
      attr: 'name',
    })

    const flag = await (
      await service.api(account, `${scoped}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'nul-check' }) })
    ).json()
    const patched = await service.api(account, `${scoped}/feature_flags/${flag.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ filters: { groups: [{ properties: [{ key: 'email', value: 'x\u0000', type: 'person' }] }] } }),
    })
    expect(patched.status).toBe(400)
    expect(await patched.json()).toMatchObject({ code: 'null_characters_not_allowed', attr: 'filters__groups__0__properties__0__value' })

    const searched = await service.api(account, `${scoped}/persons/?search=%00`)
    expect(searched.status).toBe(400)
    expect(await searched.json()).toMatchObject({ code: 'null_characters_not_allowed', attr: 'search' })
  })
})

describe('the OpenAPI document at /api/schema/', () => {
  it('is a valid OpenAPI 3.1 document with an operation and a response schema for every route', async () => {
    const res = await fetch(`${service.baseUrl}/api/schema/`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as { paths: Record<string, Record<string, any>> }
    expect(await new Validator().validate(doc as never)).toEqual({ valid: true })
    for (const route of restRoutes) {
      const operation = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]
      expect(operation, `${route.method} ${route.path}`).toBeDefined()
      const success = operation.responses[String(route.status ?? 200)]
      expect(success, `${route.method} ${route.path} success response`).toBeDefined()
      if (route.status !== 204) expect(Object.values(success.content as object)[0].schema).toBeDefined()
    }
    const list = doc.paths['/api/projects/{project_id}/cohorts/']!.get
    expect(list.responses['200'].content['application/json'].schema.required).toEqual(['count', 'next', 'previous', 'results'])
    const update = doc.paths['/api/projects/{project_id}/event_definitions/{id}/']!.patch
    expect(Object.keys(update.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'description',
      'owner',
      'post_to_chat',
      'tags',
      'verified',
    ])
  })
})
