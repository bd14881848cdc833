import { ApiProblem, problems } from '@burrow/core'
import { TRPCError } from '@trpc/server'
import { ZodError, type core } from 'zod'

/** The DRF error code PostHog would give for this zod issue. */
function drfCode(issue: core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required'
  if (issue.code === 'invalid_type' && issue.input === null) return 'null'
  if (issue.code === 'invalid_value') return 'invalid_choice'
  if (issue.code === 'too_big') return 'max_length'
  if (issue.code === 'too_small') return issue.origin === 'string' ? 'blank' : 'min_length'
  return 'invalid_input'
}

/** PostHog's validation error for the first zod issue (DRF reports only the first). */
export function problemFromZodError(error: ZodError): ApiProblem {
  const issue = error.issues[0]
  if (!issue) return problems.validation(null, 'Invalid input.')
  // `data` is the REST facade's wrapper around a body: the field a user sent is what follows.
  const path = issue.path[0] === 'data' ? issue.path.slice(1) : issue.path
  return problems.validation(path.length > 0 ? path.join('__') : null, issue.message, drfCode(issue))
}

/**
 * Any error of a procedure call as the problem the caller sees. Input validation is a 400;
 * what is neither a known problem nor bad input is a 500 without internals.
 */
export function problemFromError(error: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error
  if (error instanceof TRPCError) {
    if (error.cause instanceof ApiProblem) return error.cause
    if (error.code === 'BAD_REQUEST' && error.cause instanceof ZodError) return problemFromZodError(error.cause)
  }
  return problems.serverError()
}
