import { jsonNestsDeeperThan, MAX_JSON_DEPTH, problems } from '@burrow/contracts'
import type { CoreDeps } from '@burrow/core'
import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { contextFor } from './context'
import type { HttpRequest, HttpResponse } from './http'
import { appRouter } from './router'
import type { ApiGuards } from './trpc'
import { ApiProblem } from '@burrow/contracts'

export const TRPC_ENDPOINT = '/trpc'

/** Calls one batched request may make: each runs its own queries, so a batch of thousands would be as many requests. */
export const MAX_TRPC_BATCH = 20

/** A body nested past what any procedure takes, answered before tRPC walks it (as its parse error is). */
const TOO_DEEP: HttpResponse = (() => {
  const problem = problems.parseError(`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels`)
  return {
    status: 400,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(
      JSON.stringify({
        error: { message: problem.message, code: -32700, data: { code: 'PARSE_ERROR', httpStatus: 400, problem: problem.body } },
      }),
    ),
  }
})()

/** Serves the procedures over tRPC's HTTP protocol, for TypeScript frontends. */
export function createTrpcHandler(deps: CoreDeps, guards?: ApiGuards) {
  return async function handleTrpc(req: HttpRequest): Promise<HttpResponse> {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    if (hasBody && jsonNestsDeeperThan(req.body.toString('utf8'), MAX_JSON_DEPTH)) return TOO_DEEP
    const request = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: hasBody ? new Uint8Array(req.body) : undefined,
    })
    const response = await fetchRequestHandler({
      endpoint: TRPC_ENDPOINT,
      req: request,
      router: appRouter,
      maxBatchSize: MAX_TRPC_BATCH,
      createContext: () => contextFor(deps, req, undefined, guards),
      // A 429's Retry-After, which the error's problem carries.
      responseMeta: ({ errors }) => {
        const headers = errors.map((error) => (error.cause instanceof ApiProblem ? error.cause.headers : {}))
        return { headers: Object.assign({}, ...headers) as Record<string, string> }
      },
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') deps.log(`trpc ${path ?? '?'} failed: ${error.stack ?? error.message}`)
      },
    })
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      headers[name] = value
    })
    return {
      status: response.status,
      headers,
      body: Buffer.from(await response.arrayBuffer()),
    }
  }
}
