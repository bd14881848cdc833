import type { ApiErrorBody } from '@burrow/contracts'

/** A request-level failure of capture: the whole request is answered with this status and body. */
export class IngestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.detail)
    this.name = 'IngestError'
  }
}

export const ingestErrors = {
  malformed: (detail: string) =>
    new IngestError(400, { type: 'validation_error', code: 'invalid_payload', detail: `Malformed request data: ${detail}`, attr: null }),
  noData: () =>
    new IngestError(400, {
      type: 'validation_error',
      code: 'no_data',
      detail: 'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
      attr: null,
    }),
  tooLarge: (what: string) =>
    new IngestError(413, { type: 'client_error', code: 'request_too_large', detail: `${what} is too large.`, attr: null }),
  missingApiKey: () =>
    new IngestError(401, {
      type: 'authentication_error',
      code: 'missing_api_key',
      detail: 'API key not provided. You can find your project API key in your project settings.',
      attr: null,
    }),
  invalidApiKey: () =>
    new IngestError(401, {
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: 'Project API key invalid. You can find your project API key in your project settings.',
      attr: null,
    }),
  invalidPersonalApiKey: () =>
    new IngestError(401, {
      type: 'authentication_error',
      code: 'invalid_personal_api_key',
      detail: 'Invalid Personal API key.',
      attr: null,
    }),
  invalidProject: () =>
    new IngestError(400, { type: 'validation_error', code: 'invalid_project', detail: 'Invalid Project ID.', attr: 'project_id' }),
  multipleTokens: () =>
    new IngestError(400, {
      type: 'validation_error',
      code: 'invalid_payload',
      detail: 'Malformed request data: the events of one request carry different project API keys.',
      attr: null,
    }),
  bufferFull: () =>
    new IngestError(503, {
      type: 'server_error',
      code: 'service_unavailable',
      detail: 'The service is busy storing earlier events. Retry the request later.',
      attr: null,
    }),
  unavailable: (detail: string) =>
    new IngestError(503, { type: 'server_error', code: 'service_unavailable', detail, attr: null }),
}
