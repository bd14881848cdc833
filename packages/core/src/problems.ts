import type { ApiErrorBody } from '@burrow/contracts'

/**
 * A failure the caller should see, carrying PostHog's error body. Core verbs throw these; the
 * transports (REST, tRPC, capture) turn them into responses in one place each.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    options?: { cause?: unknown },
  ) {
    super(body.detail, options)
    this.name = 'ApiProblem'
  }
}

export const problems = {
  validation: (attr: string | null, detail: string, code = 'invalid_input') =>
    new ApiProblem(400, { type: 'validation_error', code, detail, attr }),
  notAuthenticated: () =>
    new ApiProblem(401, {
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    }),
  authenticationFailed: (detail = 'Personal API key found in request Authorization header is invalid.') =>
    new ApiProblem(401, { type: 'authentication_error', code: 'authentication_failed', detail, attr: null }),
  permissionDenied: (detail = 'You do not have permission to perform this action.') =>
    new ApiProblem(403, { type: 'authentication_error', code: 'permission_denied', detail, attr: null }),
  notFound: (detail = 'Not found.') => new ApiProblem(404, { type: 'invalid_request', code: 'not_found', detail, attr: null }),
  methodNotAllowed: (method: string) =>
    new ApiProblem(405, {
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: `Method "${method}" not allowed.`,
      attr: null,
    }),
  serverError: () =>
    new ApiProblem(500, { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null }),
}
