import { z } from 'zod'

/** PostHog's error body (drf-exceptions-hog), used by every error answer of the service. */
export const apiErrorBodySchema = z.object({
  type: z.string(),
  code: z.string(),
  detail: z.string(),
  attr: z.string().nullable(),
})
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>

/** drf-exceptions-hog's error types. */
export type ProblemType =
  'validation_error' | 'invalid_request' | 'authentication_error' | 'client_error' | 'throttled_error' | 'server_error'

/** The statuses of the service's error answers. */
export type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 413 | 429 | 431 | 500 | 503

/**
 * Every error code the service answers, with the status and type that go with it. A throw site
 * names a code and never a status, so two answers with one code cannot disagree, and a code that
 * is not listed here does not compile.
 */
const CATALOGUE = {
  // DRF's field validation codes: the field is in `attr`.
  invalid_input: { status: 400, type: 'validation_error' },
  required: { status: 400, type: 'validation_error' },
  null: { status: 400, type: 'validation_error' },
  blank: { status: 400, type: 'validation_error' },
  invalid_choice: { status: 400, type: 'validation_error' },
  max_length: { status: 400, type: 'validation_error' },
  max_value: { status: 400, type: 'validation_error' },
  min_value: { status: 400, type: 'validation_error' },
  not_a_list: { status: 400, type: 'validation_error' },
  not_a_dict: { status: 400, type: 'validation_error' },
  invalid_value: { status: 400, type: 'validation_error' },
  min_length: { status: 400, type: 'validation_error' },
  unique: { status: 400, type: 'validation_error' },
  does_not_exist: { status: 400, type: 'validation_error' },
  null_characters_not_allowed: { status: 400, type: 'validation_error' },
  cohort_does_not_exist: { status: 400, type: 'validation_error' },
  behavioral_cohort_found: { status: 400, type: 'validation_error' },
  // Capture's and the flag endpoints' validation codes.
  invalid_payload: { status: 400, type: 'validation_error' },
  no_data: { status: 400, type: 'validation_error' },
  invalid_project: { status: 400, type: 'validation_error' },
  malformed_data: { status: 400, type: 'validation_error' },
  missing_distinct_id: { status: 400, type: 'validation_error' },
  // An analytics query that ran past its execution time (PostHog answers ClickHouse's TIMEOUT_EXCEEDED so).
  timeout_exceeded: { status: 400, type: 'validation_error' },
  // Signing in (PostHog's login serializer) and choosing a password (Django's validators).
  invalid_credentials: { status: 400, type: 'validation_error' },
  password_too_short: { status: 400, type: 'validation_error' },
  // A body DRF could not parse at all.
  parse_error: { status: 400, type: 'invalid_request' },

  not_authenticated: { status: 401, type: 'authentication_error' },
  authentication_failed: { status: 401, type: 'authentication_error' },
  missing_api_key: { status: 401, type: 'authentication_error' },
  no_api_key: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_personal_api_key: { status: 401, type: 'authentication_error' },
  permission_denied: { status: 403, type: 'authentication_error' },

  not_found: { status: 404, type: 'invalid_request' },
  method_not_allowed: { status: 405, type: 'invalid_request' },
  request_too_large: { status: 413, type: 'client_error' },
  request_header_fields_too_large: { status: 431, type: 'client_error' },
  throttled: { status: 429, type: 'throttled_error' },
  // Capture's answer to a project over its events-per-second quota (PostHog's capture code).
  rate_limited: { status: 429, type: 'throttled_error' },

  error: { status: 500, type: 'server_error' },
  service_unavailable: { status: 503, type: 'server_error' },
  fetch_team_fail: { status: 503, type: 'server_error' },
} as const satisfies Record<string, { status: ProblemStatus; type: ProblemType }>

export type ProblemCode = keyof typeof CATALOGUE

/** The codes of a 400 `validation_error`, which name the field at fault. */
export type ValidationCode = { [C in ProblemCode]: (typeof CATALOGUE)[C]['type'] extends 'validation_error' ? C : never }[ProblemCode]

/** Whether a code names a 400 `validation_error` of the catalogue (a schema's custom issue may carry one in `params.code`). */
export function isValidationCode(code: unknown): code is ValidationCode {
  return typeof code === 'string' && Object.hasOwn(CATALOGUE, code) && CATALOGUE[code as ProblemCode].type === 'validation_error'
}

/** The body of an ApiProblem: the wire body, with its type and code tied to the catalogue. */
export interface ProblemBody extends ApiErrorBody {
  readonly type: ProblemType
  readonly code: ProblemCode
  readonly detail: string
  /** Left writable: a parser of a nested value learns which field it was only from its caller. */
  attr: string | null
}

/**
 * A failure the caller should see, carrying PostHog's error body. Core verbs, the API and capture
 * throw these; each transport turns them into responses in one place.
 */
export class ApiProblem extends Error {
  readonly status: ProblemStatus
  readonly body: ProblemBody

  /** Response headers that go with the answer (Retry-After of a 429). */
  readonly headers: Readonly<Record<string, string>>

  constructor(
    code: ProblemCode,
    detail: string,
    options: { attr?: string | null; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(detail, 'cause' in options ? { cause: options.cause } : undefined)
    this.name = 'ApiProblem'
    const kind = CATALOGUE[code]
    this.status = kind.status
    this.body = { type: kind.type, code, detail, attr: options.attr ?? null }
    this.headers = options.headers ?? {}
  }
}

type Cause = { cause?: unknown }

/** The problems with a fixed wording; other wordings go through the ApiProblem constructor. */
export const problems = {
  validation: (attr: string | null, detail: string, code: ValidationCode = 'invalid_input') => new ApiProblem(code, detail, { attr }),
  parseError: (detail: string, options?: Cause) => new ApiProblem('parse_error', detail, options),
  notAuthenticated: () => new ApiProblem('not_authenticated', 'Authentication credentials were not provided.'),
  authenticationFailed: (detail = 'Personal API key found in request Authorization header is invalid.') =>
    new ApiProblem('authentication_failed', detail),
  permissionDenied: (detail = 'You do not have permission to perform this action.') => new ApiProblem('permission_denied', detail),
  notFound: (detail = 'Not found.') => new ApiProblem('not_found', detail),
  methodNotAllowed: (method: string) => new ApiProblem('method_not_allowed', `Method "${method}" not allowed.`),
  /** DRF's Throttled, with the whole seconds until a request would be allowed. */
  throttled: (waitSeconds: number) =>
    new ApiProblem('throttled', `Request was throttled. Expected available in ${waitSeconds} second${waitSeconds === 1 ? '' : 's'}.`, {
      headers: { 'retry-after': String(waitSeconds) },
    }),
  /** Says nothing of the failure: its details stay in the cause, for the log. */
  serverError: (options?: Cause) => new ApiProblem('error', 'A server error occurred.', options),

  /** A capture body that is not events. */
  malformed: (detail: string, options?: Cause) => new ApiProblem('invalid_payload', `Malformed request data: ${detail}`, options),
  noData: () =>
    new ApiProblem('no_data', 'No data found. Make sure to use a POST request when sending the payload in the body of the request.'),
  tooLarge: (what: string) => new ApiProblem('request_too_large', `${what} is too large.`),
  headersTooLarge: (maxBytes: number) =>
    new ApiProblem('request_header_fields_too_large', `The request's headers are larger than ${maxBytes} bytes in all.`),
  /** Capture without a project API key. */
  missingApiKey: () =>
    new ApiProblem('missing_api_key', 'API key not provided. You can find your project API key in your project settings.'),
  /** /decide/ and /flags/ without a project API key (PostHog words it differently from capture). */
  noApiKey: () => new ApiProblem('no_api_key', 'No project API key provided. You can find your project API key in your project settings.'),
  invalidApiKey: () =>
    new ApiProblem('invalid_api_key', 'Project API key invalid. You can find your project API key in your project settings.'),
  invalidPersonalApiKey: () => new ApiProblem('invalid_personal_api_key', 'Invalid Personal API key.'),
  invalidProject: () => new ApiProblem('invalid_project', 'Invalid Project ID.', { attr: 'project_id' }),
  multipleTokens: () =>
    new ApiProblem('invalid_payload', 'Malformed request data: the events of one request carry different project API keys.'),
  /** A /decide/ or /flags/ body that is not a JSON object. */
  malformedData: (detail: string, options?: Cause) => new ApiProblem('malformed_data', `Malformed request data: ${detail}`, options),
  missingDistinctId: () => new ApiProblem('missing_distinct_id', 'Decide requires a distinct_id.', { attr: 'distinct_id' }),
  bufferFull: () => new ApiProblem('service_unavailable', 'The service is busy storing earlier events. Retry the request later.'),
  /** Capture refused at the disk reserve: what the client sends is fine, the service's disk is not. */
  diskFull: () =>
    new ApiProblem(
      'service_unavailable',
      "The service's disk is full (its free space is below the reserve it keeps): it takes no new events until space is freed. Retry the request later.",
    ),
  unavailable: (detail: string, options?: Cause) => new ApiProblem('service_unavailable', detail, options),
  queryTimeout: (options?: Cause) =>
    new ApiProblem(
      'service_unavailable',
      'The query ran past its time limit and was stopped. Narrow it down (a shorter time range, an event or more filters) and try again.',
      options,
    ),
  /** A store the request needs (PostgreSQL, ClickHouse) is not answering: clients retry. */
  dependencyUnavailable: (options?: Cause) =>
    new ApiProblem('service_unavailable', 'A database the service needs is not answering. Retry the request later.', options),
  /** The project of a key could not be looked up: clients retry. */
  fetchTeamFailed: (options?: Cause) => new ApiProblem('fetch_team_fail', 'Unable to fetch team from database.', options),
  starting: () => new ApiProblem('service_unavailable', 'The service is starting.'),
  shuttingDown: () => new ApiProblem('service_unavailable', 'The service is shutting down.'),
}
