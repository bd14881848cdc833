import { ApiProblem, problems, type ProblemStatus, type ValidationCode } from '@burrow/contracts'
import { TRPCError } from '@trpc/server'
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc'
import { ZodError, type core } from 'zod'

/** The value at a path of an input, undefined where there is none. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<PropertyKey, unknown>)[key]
  }
  return node
}

/**
 * The DRF error code PostHog would give for this zod issue. Zod leaves the offending value out of
 * its issues, so whether a field was missing, null or of another type is read from the input.
 */
function drfCode(issue: core.$ZodIssue, input: unknown): ValidationCode {
  if (issue.code === 'invalid_type') {
    const value = issue.input !== undefined ? issue.input : valueAt(input, issue.path)
    if (value === undefined) return 'required'
    if (value === null) return 'null'
    return 'invalid_input'
  }
  if (issue.code === 'invalid_value') return 'invalid_choice'
  if (issue.code === 'too_big') return 'max_length'
  if (issue.code === 'too_small') return issue.origin === 'string' ? 'blank' : 'min_length'
  return 'invalid_input'
}

/** PostHog's validation error for the first zod issue (DRF reports only the first) of parsing `input`. */
export function problemFromZodError(error: ZodError, input?: unknown): ApiProblem {
  const issue = error.issues[0]
  if (!issue) return new ApiProblem('invalid_input', 'Invalid input.', { cause: error })
  // `data` is the REST facade's wrapper around a body: the field a user sent is what follows.
  const path = issue.path[0] === 'data' ? issue.path.slice(1) : issue.path
  return new ApiProblem(drfCode(issue, input), issue.message, { attr: path.length > 0 ? path.join('__') : null, cause: error })
}

/**
 * Any error of a procedure call as the problem the caller sees. Input validation is a 400;
 * what is neither a known problem nor bad input is a 500 without internals.
 */
export function problemFromError(error: unknown, input?: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error
  if (error instanceof TRPCError) {
    if (error.cause instanceof ApiProblem) return error.cause
    if (error.code === 'BAD_REQUEST' && error.cause instanceof ZodError) return problemFromZodError(error.cause, input)
  }
  return problems.serverError({ cause: error })
}

/** Every status of the catalogue has its tRPC code, so no problem reaches a tRPC client as a 500 by omission. */
const TRPC_CODE_BY_STATUS: Record<ProblemStatus, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  413: 'PAYLOAD_TOO_LARGE',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
}

/** A problem as the tRPC error that carries it, the problem kept as the cause. */
export function trpcErrorFromProblem(problem: ApiProblem): TRPCError {
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[problem.status], message: problem.message, cause: problem })
}
