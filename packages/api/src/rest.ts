import { createHash } from 'node:crypto'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, problems, type ApiProblem, type CursorPage, type Page } from '@burrow/contracts'
import { decodePathSegment, type CoreDeps } from '@burrow/core'
import { contextFor } from './context'
import { problemFromError, pythonType } from './errors'
import { jsonResponse, type HttpRequest, type HttpResponse } from './http'
import { toCursorEnvelope, toEnvelope } from './pagination'
import { createCaller } from './router'
import type { ApiGuards } from './trpc'
import { openApiDocument } from './openapi'
import { outputFields } from './procedures'
import { restRoutes, routeInput, type RestRoute } from './routes'
import { toCsv, wantsCsv } from './csv'
import { createSessionEndpoints } from './session'

type Procedure = (input: unknown) => Promise<unknown>

interface CompiledRoute extends RestRoute {
  pattern: RegExp
  paramNames: string[]
}

/** `/api/projects/:id/` as a regular expression; the trailing slash is optional. */
function compile(route: RestRoute): CompiledRoute {
  const paramNames: string[] = []
  const source = route.path
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      paramNames.push(segment.slice(1))
      return '([^/]+)'
    })
    .join('/')
  return { ...route, pattern: new RegExp(`^${source}/?$`), paramNames }
}

export function problemResponse(problem: ApiProblem): HttpResponse {
  return jsonResponse(problem.status, problem.body, { ...problem.headers })
}

/** A procedure of the caller found by its dotted path (`projects.list`). */
export function procedureAt(caller: unknown, path: string): Procedure | undefined {
  let node: unknown = caller
  for (const part of path.split('.')) {
    if (node === null || (typeof node !== 'object' && typeof node !== 'function')) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return typeof node === 'function' ? (node as Procedure) : undefined
}

function queryObject(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key)
    query[key] = values.length === 1 ? values[0]! : values
  }
  return query
}

/**
 * The request body as input fields: JSON, or a form (multipart or urlencoded, as DRF accepts),
 * whose fields are text and whose uploaded files become their text content.
 */
async function parseBody(req: HttpRequest): Promise<{ ok: true; value: unknown } | { ok: false; problem: ApiProblem }> {
  if (req.body.length === 0) return { ok: true, value: {} }
  const contentType = req.headers['content-type'] ?? ''
  if (/^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i.test(contentType)) {
    try {
      const form = await new Response(new Uint8Array(req.body), { headers: { 'content-type': contentType } }).formData()
      const value: Record<string, unknown> = {}
      const entries = form as unknown as Iterable<[string, string | Blob]>
      for (const [key, entry] of entries) value[key] = typeof entry === 'string' ? entry : await entry.text()
      return { ok: true, value }
    } catch (err) {
      return { ok: false, problem: problems.parseError(`Multipart form parse error - ${(err as Error).message}`, { cause: err }) }
    }
  }
  const text = req.body.toString('utf8')
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH))
    return { ok: false, problem: problems.parseError(`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels`) }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, problem: problems.parseError(`JSON parse error - ${(err as Error).message}`, { cause: err }) }
  }
}

type Match = { route: CompiledRoute; params: Record<string, string> } | { problem: ApiProblem } | { response: HttpResponse }

/**
 * The route for a request. Of the paths that match, the most literal wins (`rearrange/` over
 * `:id/`), as it would in a URL conf listing it first; a path without the method is a 405.
 */
function matchRoute(routes: CompiledRoute[], method: string, path: string): Match {
  const matching = routes
    .map((route) => ({ route, match: route.pattern.exec(path) }))
    .filter((m): m is { route: CompiledRoute; match: RegExpExecArray } => m.match !== null)
  if (matching.length === 0) return { problem: problems.notFound() }
  const fewestParams = Math.min(...matching.map((m) => m.route.paramNames.length))
  const found = matching.find((m) => m.route.paramNames.length === fewestParams && m.route.method === method)
  if (!found) {
    const forbidsDestroy = method === 'DELETE' && matching.some((m) => m.route.paramNames.length === fewestParams && m.route.forbidDestroy)
    // PostHog's ForbidDestroyModel answers a bare 405.
    if (forbidsDestroy) return { response: { status: 405, headers: {}, body: '' } }
    return { problem: problems.methodNotAllowed(method) }
  }
  const values = found.route.paramNames.map((_, i) => decodePathSegment(found.match[i + 1]!))
  if (values.some((value) => value === undefined)) return { problem: problems.notFound() }
  const params = Object.fromEntries(found.route.paramNames.map((name, i) => [name, values[i]!]))
  return { route: found.route, params }
}

/** The procedure's result as the response the route promises. */
function respond(route: RestRoute, result: unknown, req: HttpRequest): HttpResponse {
  const headers = { ...route.headers }
  if (route.status === 204) return { status: 204, headers, body: '' }
  if (route.undefinedIsNotFound && result === undefined) return { status: 404, headers, body: '' }
  const status = route.status ?? 200
  if (route.etag) {
    const body = JSON.stringify(result)
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`
    const unchanged = req.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
    if (unchanged) return { status: 304, headers: { ...headers, etag }, body: '' }
    return { status, headers: { ...headers, etag, 'content-type': 'application/json' }, body }
  }
  if (route.contentType) return { status, headers: { ...headers, 'content-type': route.contentType }, body: String(result) }
  if (route.csv && wantsCsv(req.url, req.headers.accept)) {
    const results = route.paginated ? (result as Page<unknown>).results : Array.isArray(result) ? result : [result]
    const rows = route.csvRow ? results.map(route.csvRow) : results
    return {
      status,
      headers: { ...headers, 'content-type': 'text/csv; charset=utf-8' },
      body: toCsv(rows, outputFields(route.procedure, Boolean(route.paginated)), { sortColumns: route.csvSortedColumns }),
    }
  }
  if (route.paginated === 'cursor') return jsonResponse(status, toCursorEnvelope(result as CursorPage<unknown>, req.url), headers)
  return jsonResponse(status, route.paginated ? toEnvelope(result as Page<unknown>, req.url) : result, headers)
}

export interface RestFacadeDeps {
  log: (msg: string) => void
  /** The procedures a request may call, with its credentials (which its parsed body may carry): a tRPC caller of the app router. */
  callerFor: (req: HttpRequest, body: unknown) => Promise<unknown>
}

/** Answers `/api/...` requests by running the procedure their route names. */
export function createRestHandler(deps: CoreDeps, guards?: ApiGuards) {
  const sessions = createSessionEndpoints(deps, guards)
  const facade = createRestFacade({
    log: deps.log,
    callerFor: async (req, body) => createCaller(await contextFor(deps, req, body, guards), { signal: req.signal }),
  })
  return (req: HttpRequest): Promise<HttpResponse> => sessions(req) ?? facade(req)
}

/** The REST facade over whatever caller it is given, so that it can be driven without a database. */
export function createRestFacade(deps: RestFacadeDeps) {
  const routes = restRoutes.map(compile)
  // One origin at a time: with SITE_URL set there is only one.
  let schema: { origin: string; body: string } | undefined
  return async function handleRest(req: HttpRequest): Promise<HttpResponse> {
    const path = req.url.pathname
    if (/^\/api\/schema\/?$/.test(path)) {
      if (req.method !== 'GET') return problemResponse(problems.methodNotAllowed(req.method))
      const origin = req.url.origin
      if (schema?.origin !== origin) schema = { origin, body: JSON.stringify(openApiDocument({ serverUrl: origin })) }
      return { status: 200, headers: { 'content-type': 'application/vnd.oai.openapi+json' }, body: schema.body }
    }
    const matched = matchRoute(routes, req.method, path)
    if ('problem' in matched) return problemResponse(matched.problem)
    if ('response' in matched) return matched.response
    const { route, params } = matched
    const body = await parseBody(req)
    if (!body.ok) return problemResponse(body.problem)
    // A list body (`list`) is checked by the procedure's schema, after the credentials.
    if (route.body && route.body !== 'list' && (body.value === null || typeof body.value !== 'object' || Array.isArray(body.value))) {
      const got = pythonType(body.value)
      return problemResponse(problems.validation(null, `Invalid data. Expected a dictionary, but got ${got}.`))
    }

    const input = routeInput(route, { params, query: queryObject(req.url), body: body.value })
    try {
      const procedure = procedureAt(await deps.callerFor(req, body.value), route.procedure)
      if (!procedure) throw new Error(`route ${route.method} ${route.path} names no procedure ${route.procedure}`)
      return respond(route, await procedure(input), req)
    } catch (err) {
      const problem = problemFromError(err, input)
      if (problem.status >= 500) deps.log(`${req.method} ${path} failed: ${(err as Error)?.stack ?? String(err)}`)
      return problemResponse(problem)
    }
  }
}
