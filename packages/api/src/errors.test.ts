import { problems, type ApiProblem } from '@burrow/contracts'
import { TRPCError } from '@trpc/server'
import { getHTTPStatusCodeFromError } from '@trpc/server/http'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { problemFromError, problemFromZodError, trpcErrorFromProblem } from './errors'

const schema = z.object({
  name: z.string().trim().min(1).max(5),
  kind: z.enum(['a', 'b']).optional(),
  tags: z.array(z.string()).min(1).max(2).optional(),
  filters: z.object({ groups: z.array(z.object({ rollout: z.number() })) }).optional(),
  order: z.number().int().min(0).max(10).optional(),
  active: z.boolean().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  own: z.string().regex(/^x+$/, 'Only x is allowed.').optional(),
})

/** The problem a client gets for an input that fails the schema, as the REST facade parses it. */
function problemFor(input: unknown): ApiProblem {
  const parsed = schema.safeParse(input)
  if (parsed.success) throw new Error('expected the input to fail')
  return problemFromZodError(parsed.error, input)
}

describe('a zod issue as the DRF error PostHog gives', () => {
  it.each([
    ['a missing field', {}, 'required', 'name', 'This field is required.'],
    ['a null field', { name: null }, 'null', 'name', 'This field may not be null.'],
    ['a text of another type', { name: true }, 'invalid_input', 'name', 'Not a valid string.'],
    ['a blank text', { name: '  ' }, 'blank', 'name', 'This field may not be blank.'],
    ['a text too long', { name: 'abcdef' }, 'max_length', 'name', 'Ensure this field has no more than 5 characters.'],
    ['a value not among the choices', { name: 'x', kind: 'c' }, 'invalid_choice', 'kind', '"c" is not a valid choice.'],
    ['a list too short', { name: 'x', tags: [] }, 'min_length', 'tags', 'Ensure this field has at least 1 elements.'],
    ['a list too long', { name: 'x', tags: ['a', 'b', 'c'] }, 'max_length', 'tags', 'Ensure this field has no more than 2 elements.'],
    ['a list that is not one', { name: 'x', tags: 'a' }, 'not_a_list', 'tags', 'Expected a list of items but got type "str".'],
    [
      'a dictionary that is not one',
      { name: 'x', config: [] },
      'not_a_dict',
      'config',
      'Expected a dictionary of items but got type "list".',
    ],
    [
      'a nested object that is not one',
      { name: 'x', filters: 3 },
      'invalid_input',
      'filters',
      'Invalid data. Expected a dictionary, but got int.',
    ],
    ['a number too large', { name: 'x', order: 11 }, 'max_value', 'order', 'Ensure this value is less than or equal to 10.'],
    ['a number too small', { name: 'x', order: -1 }, 'min_value', 'order', 'Ensure this value is greater than or equal to 0.'],
    ['a fraction for an integer', { name: 'x', order: 1.5 }, 'invalid_input', 'order', 'A valid integer is required.'],
    ['a text for a boolean', { name: 'x', active: 'maybe' }, 'invalid_input', 'active', 'Must be a valid boolean.'],
    ['a message the schema chose', { name: 'x', own: 'y' }, 'invalid_input', 'own', 'Only x is allowed.'],
    [
      'a nested field',
      { name: 'x', filters: { groups: [{ rollout: 'all' }] } },
      'invalid_input',
      'filters__groups__0__rollout',
      'A valid number is required.',
    ],
  ])("answers %s as 400 validation_error with DRF's code and words, the field in attr", (_, input, code, attr, detail) => {
    const problem = problemFor(input)
    expect(problem.status).toBe(400)
    expect(problem.body).toEqual({ type: 'validation_error', code, attr, detail })
  })

  it('names the field inside the alternative of a union that the value was meant to be', () => {
    type Node = { type: 'AND' | 'OR'; values: Array<{ key: string } | Node> }
    const node: z.ZodType<Node> = z.object({
      type: z.enum(['AND', 'OR']),
      values: z.array(z.union([z.object({ key: z.string().min(1) }), z.lazy(() => node)])),
    })
    const input = { type: 'AND', values: [{ type: 'OR', values: [{ key: 'a' }, { key: '' }] }] }
    const problem = problemFromZodError(node.safeParse(input).error!, input)
    expect(problem.body).toMatchObject({ code: 'blank', attr: 'values__0__values__1__key' })
  })

  it("names an update's field without the facade's `data` wrapper", () => {
    const update = z.object({ id: z.string(), data: schema.partial() })
    const input = { id: '1', data: { name: '' } }
    const problem = problemFromZodError(update.safeParse(input).error!, input)
    expect(problem.body).toMatchObject({ code: 'blank', attr: 'name' })
  })

  it('answers an issue of the whole input with no attr', () => {
    const problem = problemFromZodError(z.object({}).safeParse('text').error!, 'text')
    expect(problem.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: null })
  })

  it('keeps the zod error as the cause', () => {
    const error = schema.safeParse({}).error!
    expect(problemFromZodError(error, {}).cause).toBe(error)
  })
})

describe('any thrown error as the problem the client sees', () => {
  it('passes a problem through unchanged, thrown directly or carried by tRPC', () => {
    const problem = problems.permissionDenied()
    expect(problemFromError(problem)).toBe(problem)
    expect(problemFromError(trpcErrorFromProblem(problem))).toBe(problem)
    expect(problemFromError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: problem }))).toBe(problem)
  })

  it('answers a store that is down or too slow with a 503 clients retry, never a 500, directly or carried by tRPC', () => {
    const unavailable = {
      type: 'server_error',
      code: 'service_unavailable',
      detail: 'A database the service needs is not answering. Retry the request later.',
      attr: null,
    }
    const timedOut = Object.assign(new Error('write CONNECT_TIMEOUT db:5432'), { code: 'CONNECT_TIMEOUT' })
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })
    for (const error of [timedOut, cancelled, new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: timedOut })]) {
      const problem = problemFromError(error)
      expect(problem.status).toBe(503)
      expect(problem.body).toEqual(unavailable)
    }
    // An error about the data itself is no outage: still a 500.
    expect(problemFromError(Object.assign(new Error('duplicate key'), { code: '23505' })).status).toBe(500)
  })

  it('answers bad input tRPC reports as a 400 validation error', () => {
    const cause = schema.safeParse({ name: null }).error!
    const problem = problemFromError(new TRPCError({ code: 'BAD_REQUEST', cause }), { name: null })
    expect(problem.status).toBe(400)
    expect(problem.body).toMatchObject({ type: 'validation_error', code: 'null', attr: 'name' })
  })

  it('answers anything else as a 500 that says nothing of it, keeping it as the cause', () => {
    const failure = new Error('relation "secret_table" does not exist')
    for (const thrown of [failure, new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: failure }), 'a string', undefined]) {
      const problem = problemFromError(thrown)
      expect(problem.status).toBe(500)
      expect(problem.body).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null })
      expect(problem.cause).toBe(thrown)
    }
  })
})

describe('a problem over tRPC', () => {
  it.each([
    problems.validation('name', 'This field is required.', 'required'),
    problems.notAuthenticated(),
    problems.permissionDenied(),
    problems.notFound(),
    problems.methodNotAllowed('PUT'),
    problems.tooLarge('The request body'),
    problems.serverError(),
    problems.bufferFull(),
  ])('answers $body.code with the same HTTP status as REST ($status)', (problem) => {
    const error = trpcErrorFromProblem(problem)
    expect(getHTTPStatusCodeFromError(error)).toBe(problem.status)
    expect(error.cause).toBe(problem)
    expect(error.message).toBe(problem.body.detail)
  })
})

describe('a read that ClickHouse stopped at its time limit', () => {
  it('is a 503 that tells the caller to narrow the query, not a 500', () => {
    // As the embedded engine and the server client raise it: the code on the error, or on its cause.
    const stopped = Object.assign(new Error('Timeout exceeded: elapsed 20.1 seconds'), { clickhouseCode: 159 })
    for (const error of [stopped, new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: stopped })]) {
      const problem = problemFromError(error)
      expect(problem.status).toBe(503)
      expect(problem.body).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null })
      expect(problem.body.detail).toMatch(/time limit/)
      expect(problem.body.detail).not.toMatch(/Timeout exceeded|elapsed/)
    }
    expect(problemFromError(Object.assign(new Error('other'), { clickhouseCode: 60 })).status).toBe(500)
  })
})
