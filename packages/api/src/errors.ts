import { isDependencyUnavailable, isQueryTimeout } from '@burrow/core'
import { ApiProblem, isValidationCode, problems, type ProblemStatus, type ValidationCode } from '@burrow/contracts'
import { TRPCError } from '@trpc/server'
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc'
import { z, ZodError, type core } from 'zod'

/** zod's own wording of an issue, to tell it from a message a schema chose. */
const ZOD_MESSAGES = (issue: core.$ZodRawIssue): string | undefined => {
  const message = z.locales.en().localeError(issue)
  return typeof message === 'string' ? message : message?.message
}

/** The value at a path of an input, undefined where there is none. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<PropertyKey, unknown>)[key]
  }
  return node
}

/** Python's name of a JSON value's type, as DRF's messages show it. */
export function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType'
  if (Array.isArray(value)) return 'list'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  if (typeof value === 'string') return 'str'
  return 'dict'
}

/** DRF's words for a value of the wrong type, by the type the field expected (the code is DRF's `invalid` unless named). */
function typeError(expected: string, value: unknown): { code: ValidationCode; detail: string } {
  switch (expected) {
    case 'string':
      return { code: 'invalid_input', detail: 'Not a valid string.' }
    case 'int':
      return { code: 'invalid_input', detail: 'A valid integer is required.' }
    case 'number':
    case 'bigint':
      return { code: 'invalid_input', detail: 'A valid number is required.' }
    case 'boolean':
      return { code: 'invalid_input', detail: 'Must be a valid boolean.' }
    case 'array':
    case 'set':
      return { code: 'not_a_list', detail: `Expected a list of items but got type "${pythonType(value)}".` }
    case 'record':
    case 'map':
      return { code: 'not_a_dict', detail: `Expected a dictionary of items but got type "${pythonType(value)}".` }
    case 'object':
      return { code: 'invalid_input', detail: `Invalid data. Expected a dictionary, but got ${pythonType(value)}.` }
    default:
      return { code: 'invalid_input', detail: 'Invalid input.' }
  }
}

const MAX_SHOWN_CHOICE = 200

/**
 * PostHog's validation error (code and DRF's wording) for a zod issue. Zod leaves the offending
 * value out of its issues, so whether a field was missing, null or of another type is read from
 * the input. A message a schema set itself is kept; zod's own wording gives way to DRF's.
 */
function drfError(issue: core.$ZodIssue, input: unknown): { code: ValidationCode; detail: string } {
  const value = issue.input !== undefined ? issue.input : valueAt(input, issue.path)
  const own = issue.message !== ZOD_MESSAGES({ ...issue, input: value } as core.$ZodRawIssue)
  const detail = (drf: string) => (own ? issue.message : drf)
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) return { code: 'required', detail: detail('This field is required.') }
      if (value === null) return { code: 'null', detail: detail('This field may not be null.') }
      const error = typeError(issue.expected, value)
      return { code: error.code, detail: detail(error.detail) }
    }
    case 'invalid_value':
      return { code: 'invalid_choice', detail: detail(`"${String(value).slice(0, MAX_SHOWN_CHOICE)}" is not a valid choice.`) }
    case 'too_big': {
      const limit = String(issue.maximum)
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return { code: 'max_value', detail: detail(`Ensure this value is less than or equal to ${limit}.`) }
      const unit = issue.origin === 'string' ? 'characters' : 'elements'
      return { code: 'max_length', detail: detail(`Ensure this field has no more than ${limit} ${unit}.`) }
    }
    case 'too_small': {
      const limit = String(issue.minimum)
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return { code: 'min_value', detail: detail(`Ensure this value is greater than or equal to ${limit}.`) }
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return { code: 'blank', detail: detail('This field may not be blank.') }
      const unit = issue.origin === 'string' ? 'characters' : 'elements'
      return { code: 'min_length', detail: detail(`Ensure this field has at least ${limit} ${unit}.`) }
    }
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format === 'guid') return { code: 'invalid_input', detail: detail('Must be a valid UUID.') }
      if (issue.format === 'email') return { code: 'invalid_input', detail: detail('Enter a valid email address.') }
      if (issue.format === 'url') return { code: 'invalid_input', detail: detail('Enter a valid URL.') }
      return { code: 'invalid_input', detail: detail('This value does not match the required pattern.') }
    case 'custom': {
      // A schema names the DRF code of its own check in `params.code`.
      const named: unknown = issue.params?.code
      return { code: isValidationCode(named) ? named : 'invalid_input', detail: detail('Invalid input.') }
    }
    default:
      return { code: 'invalid_input', detail: detail('Invalid input.') }
  }
}

/**
 * The issue a union's failure comes down to: of the alternatives, the one that failed on the
 * fewest fields, then the deepest, is what the value was meant to be (a nested cohort group
 * rather than a condition), so the error names the field all the way down.
 */
function innermost(issue: core.$ZodIssue): core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue
  const best = issue.errors
    .filter((issues) => issues.length > 0)
    .sort((a, b) => a.length - b.length || b[0]!.path.length - a[0]!.path.length)[0]
  if (!best) return issue
  return innermost({ ...best[0]!, path: [...issue.path, ...best[0]!.path] })
}

/** PostHog's validation error for the first zod issue (DRF reports only the first) of parsing `input`. */
export function problemFromZodError(error: ZodError, input?: unknown): ApiProblem {
  const first = error.issues[0]
  const issue = first && innermost(first)
  if (!issue) return new ApiProblem('invalid_input', 'Invalid input.', { cause: error })
  // `data` is the REST facade's wrapper around a body: the field a user sent is what follows.
  const path = issue.path[0] === 'data' ? issue.path.slice(1) : issue.path
  const { code, detail } = drfError(issue, input)
  return new ApiProblem(code, detail, { attr: path.length > 0 ? path.join('__') : null, cause: error })
}

/**
 * Any error of a procedure call as the problem the caller sees. Input validation is a 400; a
 * store that is down or too slow is a 503 the caller retries; what is neither a known problem
 * nor bad input nor an unavailable store is a 500 without internals.
 */
export function problemFromError(error: unknown, input?: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error
  if (error instanceof TRPCError) {
    if (error.cause instanceof ApiProblem) return error.cause
    if (error.code === 'BAD_REQUEST' && error.cause instanceof ZodError) return problemFromZodError(error.cause, input)
  }
  if (isQueryTimeout(error)) return problems.queryTimeout({ cause: error })
  return unavailableProblem(error) ?? problems.serverError({ cause: error })
}

/** The 503 for a failure that means a store is unavailable; undefined for any other. */
export function unavailableProblem(error: unknown): ApiProblem | undefined {
  return isDependencyUnavailable(error) ? problems.dependencyUnavailable({ cause: error }) : undefined
}

/** Every status of the catalogue has its tRPC code, so no problem reaches a tRPC client as a 500 by omission. */
const TRPC_CODE_BY_STATUS: Record<ProblemStatus, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  // Only the HTTP server answers it, before any procedure; tRPC has no code of its own for it.
  431: 'BAD_REQUEST',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
}

/** A problem as the tRPC error that carries it, the problem kept as the cause. */
export function trpcErrorFromProblem(problem: ApiProblem): TRPCError {
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[problem.status], message: problem.message, cause: problem })
}
