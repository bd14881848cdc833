import { describe, expect, it } from 'vitest'
import { ApiProblem, problems } from './errors'

const answer = (problem: ApiProblem) => ({ status: problem.status, body: problem.body })

describe('the problems the private API answers', () => {
  it.each([
    [
      'a field that fails validation',
      problems.validation('name', 'This field is required.', 'required'),
      400,
      'validation_error',
      'required',
      'This field is required.',
      'name',
    ],
    [
      'validation without a code',
      problems.validation(null, 'Invalid input.'),
      400,
      'validation_error',
      'invalid_input',
      'Invalid input.',
      null,
    ],
    [
      'a body that does not parse',
      problems.parseError('JSON parse error - x'),
      400,
      'invalid_request',
      'parse_error',
      'JSON parse error - x',
      null,
    ],
    [
      'no key',
      problems.notAuthenticated(),
      401,
      'authentication_error',
      'not_authenticated',
      'Authentication credentials were not provided.',
      null,
    ],
    [
      'an unknown key',
      problems.authenticationFailed(),
      401,
      'authentication_error',
      'authentication_failed',
      'Personal API key found in request Authorization header is invalid.',
      null,
    ],
    [
      'a forbidden action',
      problems.permissionDenied(),
      403,
      'authentication_error',
      'permission_denied',
      'You do not have permission to perform this action.',
      null,
    ],
    ['nothing there', problems.notFound(), 404, 'invalid_request', 'not_found', 'Not found.', null],
    [
      'a method the path lacks',
      problems.methodNotAllowed('PUT'),
      405,
      'invalid_request',
      'method_not_allowed',
      'Method "PUT" not allowed.',
      null,
    ],
    ['a failure', problems.serverError(), 500, 'server_error', 'error', 'A server error occurred.', null],
  ])('answers %s with its status and body', (_, problem, status, type, code, detail, attr) => {
    expect(answer(problem)).toEqual({ status, body: { type, code, detail, attr } })
  })
})

describe('the problems capture and the SDK endpoints answer', () => {
  it.each([
    [
      'a capture body that is not events',
      problems.malformed('bad json'),
      400,
      'validation_error',
      'invalid_payload',
      'Malformed request data: bad json',
      null,
    ],
    [
      'a capture request without data',
      problems.noData(),
      400,
      'validation_error',
      'no_data',
      'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
      null,
    ],
    [
      'a body past the size limit',
      problems.tooLarge('The request body'),
      413,
      'client_error',
      'request_too_large',
      'The request body is too large.',
      null,
    ],
    [
      'capture without a project API key',
      problems.missingApiKey(),
      401,
      'authentication_error',
      'missing_api_key',
      'API key not provided. You can find your project API key in your project settings.',
      null,
    ],
    [
      'flags without a project API key',
      problems.noApiKey(),
      401,
      'authentication_error',
      'no_api_key',
      'No project API key provided. You can find your project API key in your project settings.',
      null,
    ],
    [
      'an unknown project API key',
      problems.invalidApiKey(),
      401,
      'authentication_error',
      'invalid_api_key',
      'Project API key invalid. You can find your project API key in your project settings.',
      null,
    ],
    [
      'an unknown personal API key',
      problems.invalidPersonalApiKey(),
      401,
      'authentication_error',
      'invalid_personal_api_key',
      'Invalid Personal API key.',
      null,
    ],
    [
      'a project the personal API key cannot see',
      problems.invalidProject(),
      400,
      'validation_error',
      'invalid_project',
      'Invalid Project ID.',
      'project_id',
    ],
    [
      'events of one request with different project API keys',
      problems.multipleTokens(),
      400,
      'validation_error',
      'invalid_payload',
      'Malformed request data: the events of one request carry different project API keys.',
      null,
    ],
    [
      'a flags body that is not a JSON object',
      problems.malformedData('expected a JSON object.'),
      400,
      'validation_error',
      'malformed_data',
      'Malformed request data: expected a JSON object.',
      null,
    ],
    [
      'a flags request without a distinct_id',
      problems.missingDistinctId(),
      400,
      'validation_error',
      'missing_distinct_id',
      'Decide requires a distinct_id.',
      'distinct_id',
    ],
    [
      'a full spool',
      problems.bufferFull(),
      503,
      'server_error',
      'service_unavailable',
      'The service is busy storing earlier events. Retry the request later.',
      null,
    ],
    [
      'a disk below its reserve',
      problems.diskFull(),
      503,
      'server_error',
      'service_unavailable',
      "The service's disk is full (its free space is below the reserve it keeps): it takes no new events until space is freed. Retry the request later.",
      null,
    ],
    ['events that could not be stored', problems.unavailable('Try later.'), 503, 'server_error', 'service_unavailable', 'Try later.', null],
    [
      'a project lookup that failed',
      problems.fetchTeamFailed(),
      503,
      'server_error',
      'fetch_team_fail',
      'Unable to fetch team from database.',
      null,
    ],
    [
      'a request while the service starts',
      problems.starting(),
      503,
      'server_error',
      'service_unavailable',
      'The service is starting.',
      null,
    ],
    [
      'a request while the service stops',
      problems.shuttingDown(),
      503,
      'server_error',
      'service_unavailable',
      'The service is shutting down.',
      null,
    ],
  ])('answers %s with its status and body', (_, problem, status, type, code, detail, attr) => {
    expect(answer(problem)).toEqual({ status, body: { type, code, detail, attr } })
  })
})

describe('ApiProblem', () => {
  it('takes its status and type from its code, so a throw site cannot pair them wrongly', () => {
    const problem = new ApiProblem('not_found', 'Cohort not found.')
    expect(answer(problem)).toEqual({
      status: 404,
      body: { type: 'invalid_request', code: 'not_found', detail: 'Cohort not found.', attr: null },
    })
    expect(problem.message).toBe('Cohort not found.')
    expect(problem.name).toBe('ApiProblem')
  })

  it('keeps the error it wraps as its cause, and has none when it wraps nothing', () => {
    const cause = new Error('ECONNRESET')
    expect(problems.unavailable('The events could not be stored. Retry the request later.', { cause }).cause).toBe(cause)
    expect(problems.serverError({ cause }).cause).toBe(cause)
    expect('cause' in problems.notFound()).toBe(false)
  })

  it('serializes to exactly the four fields of the wire body', () => {
    expect(JSON.parse(JSON.stringify(problems.invalidProject().body))).toEqual({
      type: 'validation_error',
      code: 'invalid_project',
      detail: 'Invalid Project ID.',
      attr: 'project_id',
    })
  })
})
