import type { CoreDeps } from '@burrow/core'
import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { createApiContext, personalApiKeyFrom } from './context'
import type { HttpRequest, HttpResponse } from './http'
import { appRouter } from './router'

export const TRPC_ENDPOINT = '/trpc'

/** Serves the procedures over tRPC's HTTP protocol, for TypeScript frontends. */
export function createTrpcHandler(deps: CoreDeps) {
  return async function handleTrpc(req: HttpRequest): Promise<HttpResponse> {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    const request = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: hasBody ? new Uint8Array(req.body) : undefined,
    })
    const response = await fetchRequestHandler({
      endpoint: TRPC_ENDPOINT,
      req: request,
      router: appRouter,
      createContext: () => createApiContext(deps, personalApiKeyFrom(req.headers.authorization, req.url)),
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
