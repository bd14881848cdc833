import { describe, expect, it } from 'vitest'
import { procedureDef } from './procedures'
import { appRouter } from './router'
import { restRoutes, routeInput, type RestRoute } from './routes'

const route = (overrides: Partial<RestRoute>): RestRoute => ({
  method: 'GET',
  path: '/api/projects/:project_id/events/',
  procedure: 'events.list',
  scope: 'query:read',
  summary: 'List events',
  ...overrides,
})

describe('the route table', () => {
  it('names, on every row, a procedure of the app router that declares its output', () => {
    for (const row of restRoutes) expect(procedureDef(row.procedure).output, `${row.method} ${row.path}`).toBeDefined()
  })

  it('does not compile a row naming a procedure the router lacks', () => {
    const misspelt: RestRoute = {
      method: 'GET',
      path: '/api/projects/',
      // @ts-expect-error: there is no procedure projects.lst
      procedure: 'projects.lst',
      scope: 'project:read',
      summary: 'List projects',
    }
    expect((appRouter._def.procedures as Record<string, unknown>)[misspelt.procedure]).toBeUndefined()
  })

  it('declares one scope per procedure, so that tRPC callers are held to what REST callers are', () => {
    const scopes = new Map<string, Set<string>>()
    for (const row of restRoutes) scopes.set(row.procedure, (scopes.get(row.procedure) ?? new Set()).add(row.scope))
    expect([...scopes].filter(([, set]) => set.size > 1)).toEqual([])
  })

  it('serves every procedure of the app router at some route, so that each has a scope', () => {
    const routed = new Set(restRoutes.map((row) => row.procedure))
    expect(Object.keys(appRouter._def.procedures).filter((path) => !routed.has(path as RestRoute['procedure']))).toEqual([])
  })

  it('asks a write scope of every route that changes something', () => {
    // Running or cancelling a query changes nothing stored: PostHog asks `query:read` of it, though it is a POST.
    const writes = restRoutes.filter((row) => row.method !== 'GET' && row.scope !== 'query:read')
    expect(writes.filter((row) => !row.scope.endsWith(':write')).map((row) => `${row.method} ${row.path}`)).toEqual([])
  })

  it('has one row per method and path', () => {
    const keys = restRoutes.map((r) => `${r.method} ${r.path}`)
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([])
  })
})

describe('routeInput', () => {
  const request = { params: { project_id: '7' }, query: { limit: '10', event: ['a', 'b'] }, body: { name: 'x' } }

  it('gives the query string to a route that reads it, repeated parameters as lists', () => {
    expect(routeInput(route({ query: true }), request)).toEqual({ limit: '10', event: ['a', 'b'], project_id: '7' })
  })

  it('leaves out the query string and the body of a route that reads neither', () => {
    expect(routeInput(route({}), request)).toEqual({ project_id: '7' })
  })

  it('spreads a `fields` body into the input and wraps a `data` body in `data`', () => {
    expect(routeInput(route({ method: 'POST', body: 'fields' }), request)).toEqual({ name: 'x', project_id: '7' })
    expect(routeInput(route({ method: 'PATCH', body: 'data' }), request)).toEqual({ data: { name: 'x' }, project_id: '7' })
  })

  it('lets path parameters win over a query parameter or body field of the same name', () => {
    const clash = { params: { project_id: '7' }, query: { project_id: '8' }, body: { project_id: '9' } }
    expect(routeInput(route({ query: true, body: 'fields' }), clash)).toEqual({ project_id: '7' })
  })

  it('takes a body that is not an object as no fields', () => {
    expect(routeInput(route({ method: 'PATCH', body: 'data' }), { params: {}, query: {}, body: [1, 2] })).toEqual({ data: {} })
  })
})
