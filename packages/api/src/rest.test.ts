import { problems, projectCreateSchema, projectUpdateSchema } from '@burrow/contracts'
import type { CoreDeps } from '@burrow/core'
import { beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { publicUrl, type HttpRequest, type HttpResponse } from './http'
import { createRestFacade, createRestHandler } from './rest'
import { procedurePolicy } from './procedurePolicy'
import { idParam } from './routers/inputs'
import { createCallerFactory, publicProcedure, router } from './trpc'

/** What the stub procedures received, by procedure path. */
let calls: Record<string, unknown[]>
let logged: string[]

const record = (path: string, input: unknown) => {
  calls[path] = [...(calls[path] ?? []), input]
}

const event = (id: string, properties: Record<string, unknown>) => ({
  id,
  distinct_id: 'user-1',
  properties,
  event: '$pageview',
  timestamp: '2026-01-02T03:04:05.000Z',
  person: null,
  elements: [],
  elements_chain: '',
})

let events: ReturnType<typeof event>[]
let flagDefinitions: unknown

beforeEach(() => {
  calls = {}
  logged = []
  events = []
  flagDefinitions = { flags: [], group_type_mapping: {}, cohorts: {} }
})

/**
 * Procedures at the app router's paths that record their input and answer canned results, built on
 * the real base procedure so that errors take the path they take in production.
 */
const stubRouter = router({
  projects: router({
    list: publicProcedure.input(z.record(z.string(), z.unknown())).query(({ input }) => {
      record('projects.list', input)
      return { count: 5, limit: 2, offset: 2, results: [{ id: 3 }, { id: 4 }] }
    }),
    create: publicProcedure.input(projectCreateSchema).mutation(({ input }) => {
      record('projects.create', input)
      return { id: 9, ...input }
    }),
    get: publicProcedure.input(idParam).query(({ input }) => {
      record('projects.get', input)
      if (input.id === '404') throw problems.notFound('Project not found.')
      if (input.id === '403') throw problems.permissionDenied('Your organization access level is insufficient.')
      throw new Error('connect ECONNREFUSED 10.1.2.3:5432 (password=hunter2)')
    }),
    update: publicProcedure.input(idParam.extend({ data: projectUpdateSchema })).mutation(({ input }) => {
      record('projects.update', input)
      return { id: Number(input.id), ...input.data }
    }),
    delete: publicProcedure.input(idParam).mutation(({ input }) => {
      record('projects.delete', input)
    }),
  }),
  events: router({
    list: publicProcedure.input(z.record(z.string(), z.unknown())).query(({ input }) => {
      record('events.list', input)
      return { count: events.length, limit: 100, offset: 0, results: events }
    }),
  }),
  persons: router({
    delete: publicProcedure.input(z.record(z.string(), z.unknown())).mutation(({ input }) => {
      record('persons.delete', input)
    }),
  }),
  featureFlags: router({
    localEvaluation: publicProcedure.input(z.record(z.string(), z.unknown())).query(({ input }) => {
      record('featureFlags.localEvaluation', input)
      return flagDefinitions
    }),
    remoteConfig: publicProcedure.input(z.object({ project_id: z.string(), id: z.string() })).query(() => undefined),
  }),
  pluginConfigs: router({
    frontend: publicProcedure.input(z.unknown()).query(() => 'export function inject() {}'),
  }),
  users: router({
    me: publicProcedure.input(z.unknown()).query(() => ({ email: 'a@example.com' })),
  }),
})

const stubCaller = createCallerFactory(stubRouter)
const handle = createRestFacade({
  log: (msg) => logged.push(msg),
  callerFor: () => Promise.resolve(stubCaller({ deps: {} as CoreDeps, policy: procedurePolicy, user: null, keyPresented: false })),
})

function request(
  method: string,
  pathAndQuery: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<HttpResponse> {
  const headers = { host: 'burrow.test', ...options.headers }
  const req: HttpRequest = { method, url: publicUrl(undefined, headers, pathAndQuery), headers, body: Buffer.from(options.body ?? '') }
  return handle(req)
}

const json = (res: HttpResponse) => JSON.parse(String(res.body)) as Record<string, unknown>

describe('input of the procedure a route names', () => {
  it('passes query parameters, a repeated one as a list, and answers the page as an envelope with absolute links', async () => {
    const res = await request('GET', '/api/projects/?limit=2&offset=2&tag=a&tag=b')
    expect(calls['projects.list']).toEqual([{ limit: '2', offset: '2', tag: ['a', 'b'] }])
    expect(res.status).toBe(200)
    expect(json(res)).toEqual({
      count: 5,
      next: 'http://burrow.test/api/projects/?limit=2&offset=4&tag=a&tag=b',
      previous: 'http://burrow.test/api/projects/?limit=2&tag=a&tag=b',
      results: [{ id: 3 }, { id: 4 }],
    })
  })

  it('gives path parameters under their own names, decoded, over a query parameter of the same name', async () => {
    await request('DELETE', '/api/projects/7/persons/a%20b/?delete_events=true&id=other&project_id=other')
    expect(calls['persons.delete']).toEqual([{ delete_events: 'true', id: 'a b', project_id: '7' }])
  })

  it('answers the route with a trailing slash or without one', async () => {
    expect((await request('GET', '/api/projects')).status).toBe(200)
  })

  it("spreads a `fields` body into the input and answers the route's 201", async () => {
    const res = await request('POST', '/api/projects/', { body: JSON.stringify({ name: 'Shop', anonymize_ips: true }) })
    expect(calls['projects.create']).toEqual([{ name: 'Shop', anonymize_ips: true }])
    expect(res.status).toBe(201)
    expect(json(res)).toEqual({ id: 9, name: 'Shop', anonymize_ips: true })
  })

  it('wraps a `data` body in `data`, beside the path parameters, for PATCH and PUT alike', async () => {
    await request('PATCH', '/api/projects/12/', { body: JSON.stringify({ name: 'Renamed' }) })
    await request('PUT', '/api/projects/12/', { body: JSON.stringify({ timezone: 'Europe/Paris' }) })
    expect(calls['projects.update']).toEqual([
      { id: '12', data: { name: 'Renamed' } },
      { id: '12', data: { timezone: 'Europe/Paris' } },
    ])
  })

  it('ignores the query string of a route that does not read it', async () => {
    await request('PATCH', '/api/projects/12/?name=from-query', { body: JSON.stringify({}) })
    expect(calls['projects.update']).toEqual([{ id: '12', data: {} }])
  })

  it('takes a urlencoded form body as text fields, as DRF does', async () => {
    await request('POST', '/api/projects/', { body: 'name=Form+Shop', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(calls['projects.create']).toEqual([{ name: 'Form Shop' }])
  })

  it('answers 204 without a body for a delete', async () => {
    const res = await request('DELETE', '/api/projects/3/')
    expect(res).toMatchObject({ status: 204, body: '' })
  })

  it('answers 404 without a body where the procedure finds nothing for a remote config', async () => {
    const res = await request('GET', '/api/projects/1/feature_flags/my-flag/remote_config/')
    expect(res).toMatchObject({ status: 404, body: '' })
  })

  it("answers a script route's text in its own media type", async () => {
    const res = await request('GET', '/api/projects/1/plugin_configs/4/frontend/')
    expect(res.headers['content-type']).toBe('application/javascript; charset=UTF-8')
    expect(res.body).toBe('export function inject() {}')
  })

  it('marks the current-user endpoint as deprecated in a header', async () => {
    const res = await request('GET', '/api/users/@me/')
    expect(res.headers.deprecation).toBe('@1617580800')
  })
})

describe('bodies the facade refuses before any procedure runs', () => {
  it('answers 400 parse_error, an invalid_request, for a body that is not JSON', async () => {
    const res = await request('POST', '/api/projects/', { body: '{"name": ' })
    expect(res.status).toBe(400)
    expect(json(res)).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null })
    expect(json(res).detail).toMatch(/^JSON parse error - /)
    expect(calls['projects.create']).toBeUndefined()
  })

  it("answers PostHog's 400 invalid_input for a JSON body that is a list rather than an object", async () => {
    const res = await request('POST', '/api/projects/', { body: '[1]' })
    expect(res.status).toBe(400)
    expect(json(res)).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Invalid data. Expected a dictionary, but got list.',
      attr: null,
    })
  })
})

describe('CSV', () => {
  beforeEach(() => {
    events = [event('e1', { $browser: 'Firefox', tags: ['a', 'b'] }), event('e2', { $browser: 'Chrome, Mobile', $screen: 390 })]
  })

  it('renders a list as CSV for format=csv, one column per nested value in order of first appearance', async () => {
    const res = await request('GET', '/api/projects/1/events/?format=csv')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    const [header, first, second] = String(res.body).trimEnd().split('\n')
    expect(header).toBe(
      'id,distinct_id,properties.$browser,properties.tags.0,properties.tags.1,event,timestamp,person,elements,elements_chain,properties.$screen',
    )
    expect(first).toBe('e1,user-1,Firefox,a,b,$pageview,2026-01-02T03:04:05.000Z,,,,')
    expect(second).toBe('e2,user-1,"Chrome, Mobile",,,$pageview,2026-01-02T03:04:05.000Z,,,,390')
  })

  it('renders CSV for a client whose Accept header prefers it', async () => {
    const res = await request('GET', '/api/projects/1/events/', { headers: { accept: 'text/csv, application/json' } })
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
  })

  it("answers an empty list with the header of the resource's fields", async () => {
    events = []
    const res = await request('GET', '/api/projects/1/events/?format=csv')
    expect(res.body).toBe('id,distinct_id,properties,event,timestamp,person,elements,elements_chain\n')
  })

  it('keeps JSON for format=json whatever the Accept header says', async () => {
    const res = await request('GET', '/api/projects/1/events/?format=json', { headers: { accept: 'text/csv' } })
    expect(res.headers['content-type']).toBe('application/json')
  })

  it('keeps JSON on a route that has no CSV rendering', async () => {
    const res = await request('GET', '/api/projects/?format=csv')
    expect(res.headers['content-type']).toBe('application/json')
  })
})

describe('ETag on flag definitions', () => {
  const path = '/api/projects/1/feature_flags/local_evaluation/'

  it('answers the definitions with an ETag, and 304 without a body to a request naming it', async () => {
    const first = await request('GET', path)
    expect(first.status).toBe(200)
    const etag = first.headers.etag!
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/)
    const again = await request('GET', path, { headers: { 'if-none-match': etag } })
    expect(again).toEqual({ status: 304, headers: { etag }, body: '' })
  })

  it('answers 304 to a weak tag or to a list of tags that includes the current one', async () => {
    const etag = (await request('GET', '/flags/definitions?token=phc_x')).headers.etag!
    expect((await request('GET', '/flags/definitions?token=phc_x', { headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304)
    expect((await request('GET', '/flags/definitions?token=phc_x', { headers: { 'if-none-match': `"stale", ${etag}` } })).status).toBe(304)
  })

  it('answers 200 with the new definitions and a new tag once they change', async () => {
    const etag = (await request('GET', path)).headers.etag!
    flagDefinitions = { flags: [{ key: 'new' }], group_type_mapping: {}, cohorts: {} }
    const changed = await request('GET', path, { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    expect(json(changed).flags).toEqual([{ key: 'new' }])
  })
})

describe('paths and methods the table does not have', () => {
  it("answers 405 with PostHog's body for a known path with another method", async () => {
    const res = await request('DELETE', '/api/projects/')
    expect(res.status).toBe(405)
    expect(json(res)).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.', attr: null })
  })

  it('answers 405 to a write to the OpenAPI document', async () => {
    const res = await request('POST', '/api/schema/')
    expect(res.status).toBe(405)
    expect(json(res)).toMatchObject({ code: 'method_not_allowed', detail: 'Method "POST" not allowed.' })
  })

  it("answers 404 with PostHog's body for an unknown path", async () => {
    const res = await request('GET', '/api/no_such_resource/')
    expect(res.status).toBe(404)
    expect(json(res)).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
  })

  it('answers 404 for a path parameter that is not valid percent-encoding', async () => {
    const res = await request('GET', '/api/projects/%E0%A4%A/')
    expect(res.status).toBe(404)
    expect(calls['projects.get']).toBeUndefined()
  })
})

describe('errors of a procedure', () => {
  it('answers a field that fails validation as DRF does: validation_error, its code and the field in attr', async () => {
    const cases: [unknown, Record<string, unknown>][] = [
      [{ name: '   ' }, { code: 'blank', attr: 'name' }],
      [{ name: 'x'.repeat(201) }, { code: 'max_length', attr: 'name' }],
      [{ name: null }, { code: 'null', attr: 'name' }],
      [{ name: true }, { code: 'invalid_input', attr: 'name', detail: 'Not a valid string.' }],
      [{ anonymize_ips: 'maybe' }, { code: 'invalid_input', attr: 'anonymize_ips', detail: 'Must be a valid boolean.' }],
      [{ app_urls: 'x' }, { code: 'not_a_list', attr: 'app_urls', detail: 'Expected a list of items but got type "str".' }],
      [{ timezone: 'Mars/Olympus' }, { code: 'invalid_choice', attr: 'timezone', detail: '"Mars/Olympus" is not a valid choice.' }],
      [{ app_urls: ['ok', {}] }, { code: 'invalid_input', attr: 'app_urls__1' }],
    ]
    for (const [body, expected] of cases) {
      const res = await request('POST', '/api/projects/', { body: JSON.stringify(body) })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(json(res), JSON.stringify(body)).toMatchObject({ type: 'validation_error', ...expected })
    }
  })

  it('names the field of an update as the client sent it, without the `data` wrapper', async () => {
    const res = await request('PATCH', '/api/projects/3/', { body: JSON.stringify({ name: '' }) })
    expect(json(res)).toMatchObject({ type: 'validation_error', code: 'blank', attr: 'name' })
  })

  it('answers a problem a procedure throws with its own status and body', async () => {
    const notFound = await request('GET', '/api/projects/404/')
    expect(notFound.status).toBe(404)
    expect(json(notFound)).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null })
    const denied = await request('GET', '/api/projects/403/')
    expect(denied.status).toBe(403)
    expect(json(denied)).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: 'Your organization access level is insufficient.',
      attr: null,
    })
    expect(logged).toEqual([])
  })

  it('answers any other failure as a 500 that reveals nothing, and logs what happened', async () => {
    const res = await request('GET', '/api/projects/500/')
    expect(res.status).toBe(500)
    expect(json(res)).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null })
    expect(String(res.body)).not.toMatch(/ECONNREFUSED|hunter2/)
    expect(logged.join('\n')).toMatch(/GET \/api\/projects\/500\/ failed: .*ECONNREFUSED/)
  })
})

describe('the real app router without a database', () => {
  const unused = new Proxy({} as CoreDeps, {
    get: (_, name) => {
      if (name === 'log') return () => {}
      throw new Error(`no ${String(name)} in a unit test`)
    },
  })
  const real = createRestHandler(unused)

  it('answers 401 not_authenticated to a request without a personal API key', async () => {
    const headers = { host: 'burrow.test' }
    const res = await real({ method: 'GET', url: publicUrl(undefined, headers, '/api/projects/'), headers, body: Buffer.alloc(0) })
    expect(res.status).toBe(401)
    expect(json(res)).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    })
  })
})

describe('the OpenAPI document at /api/schema/', () => {
  it("names the request's origin as the server generated clients call", async () => {
    const res = await request('GET', '/api/schema/', { headers: { host: 'analytics.internal:8000', 'x-forwarded-proto': 'https' } })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/vnd.oai.openapi+json')
    expect(json(res).servers).toEqual([{ url: 'https://analytics.internal:8000' }])
  })

  it("names SITE_URL's origin when it is configured, whatever the Host", async () => {
    const headers = { host: '10.0.0.5:8000' }
    const url = publicUrl('https://burrow.example.org/', headers, '/api/schema/')
    const res = await handle({ method: 'GET', url, headers, body: Buffer.alloc(0) })
    expect(json(res).servers).toEqual([{ url: 'https://burrow.example.org' }])
    expect(json(await request('GET', '/api/schema/')).servers).toEqual([{ url: 'http://burrow.test' }])
  })
})
