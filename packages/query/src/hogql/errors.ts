import { ApiProblem } from '@burrow/contracts'

/**
 * A query the service will not run, as PostHog's validation error (400, `invalid_input`): the
 * detail names what was refused, so the user can change the query.
 */
export function refused(detail: string, options: { attr?: string; cause?: unknown } = {}): ApiProblem {
  return new ApiProblem('invalid_input', detail, { attr: options.attr ?? null, ...('cause' in options ? { cause: options.cause } : {}) })
}
