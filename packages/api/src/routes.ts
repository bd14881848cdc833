/**
 * The REST facade: each row maps one method and path of the private API onto a tRPC
 * procedure, and says how the procedure's input is built from the request.
 */
export interface RestRequestParts {
  params: Record<string, string>
  query: Record<string, string | string[]>
  body: unknown
}

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  path: string
  procedure: string
  input: (req: RestRequestParts) => unknown
  /** Success status; 200 unless given. */
  status?: 200 | 201 | 204
  /** The procedure answers a page, which REST returns as the envelope with links. */
  paginated?: boolean
}

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {})

export const restRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/projects/', procedure: 'projects.list', input: ({ query }) => query, paginated: true },
  { method: 'POST', path: '/api/projects/', procedure: 'projects.create', input: ({ body }) => bodyObject(body), status: 201 },
  { method: 'GET', path: '/api/projects/:id/', procedure: 'projects.get', input: ({ params }) => params },
  { method: 'PATCH', path: '/api/projects/:id/', procedure: 'projects.update', input: ({ params, body }) => ({ ...params, data: bodyObject(body) }) },
  { method: 'PUT', path: '/api/projects/:id/', procedure: 'projects.update', input: ({ params, body }) => ({ ...params, data: bodyObject(body) }) },
  { method: 'DELETE', path: '/api/projects/:id/', procedure: 'projects.delete', input: ({ params }) => params, status: 204 },
  {
    method: 'GET',
    path: '/api/projects/:project_id/events/',
    procedure: 'events.list',
    input: ({ params, query }) => ({ ...query, ...params }),
    paginated: true,
  },
]
