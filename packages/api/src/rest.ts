import type { Page } from '@burrow/contracts'
import { problems, type ApiProblem, type CoreDeps } from '@burrow/core'
import { createApiContext, personalApiKeyFrom } from './context'
import { problemFromError } from './errors'
import { jsonResponse, type HttpRequest, type HttpResponse } from './http'
import { toEnvelope } from './pagination'
import { createCaller } from './router'
import { restRoutes, type RestRoute } from './routes'

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
  return jsonResponse(problem.status, problem.body)
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

function parseBody(req: HttpRequest): { ok: true; value: unknown } | { ok: false; problem: ApiProblem } {
  if (req.body.length === 0) return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(req.body.toString('utf8')) }
  } catch (err) {
    const problem = problems.validation(null, `JSON parse error - ${(err as Error).message}`, 'parse_error')
    problem.body.type = 'invalid_request'
    return { ok: false, problem }
  }
}

/** Answers `/api/...` requests by running the procedure their route names. */
export function createRestHandler(deps: CoreDeps) {
  const routes = restRoutes.map(compile)
  return async function handleRest(req: HttpRequest): Promise<HttpResponse> {
    const path = req.url.pathname
    let params: Record<string, string> | undefined
    let route: CompiledRoute | undefined
    let pathMatched = false
    for (const candidate of routes) {
      const match = candidate.pattern.exec(path)
      if (!match) continue
      pathMatched = true
      if (candidate.method !== req.method) continue
      route = candidate
      params = Object.fromEntries(candidate.paramNames.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]))
      break
    }
    if (!route || !params) {
      return problemResponse(pathMatched ? problems.methodNotAllowed(req.method) : problems.notFound())
    }
    const body = parseBody(req)
    if (!body.ok) return problemResponse(body.problem)

    try {
      const ctx = await createApiContext(deps, personalApiKeyFrom(req.headers.authorization, req.url))
      const procedure = procedureAt(createCaller(ctx), route.procedure)
      if (!procedure) throw new Error(`route ${route.method} ${route.path} names no procedure ${route.procedure}`)
      const result = await procedure(route.input({ params, query: queryObject(req.url), body: body.value }))
      if (route.status === 204) return { status: 204, headers: {}, body: '' }
      return jsonResponse(route.status ?? 200, route.paginated ? toEnvelope(result as Page<unknown>, req.url) : result)
    } catch (err) {
      const problem = problemFromError(err)
      if (problem.status >= 500) deps.log(`${req.method} ${path} failed: ${(err as Error)?.stack ?? String(err)}`)
      return problemResponse(problem)
    }
  }
}
