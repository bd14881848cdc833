// The HTTP status ClickHouse answers a failed query with, by the exception's name
// (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp). @clickhouse/client reads the code from the
// body, but proxies, load balancers and people read the status.
const STATUS_BY_NAME = new Map<string, number>([
  ['REQUIRED_PASSWORD', 401],
  ['UNKNOWN_USER', 403],
  ['WRONG_PASSWORD', 403],
  ['AUTHENTICATION_FAILED', 403],
  ['ACCESS_DENIED', 403],
  ['SET_NON_GRANTED_ROLE', 403],
  ['SYNTAX_ERROR', 400],
  ['TYPE_MISMATCH', 400],
  ['BAD_ARGUMENTS', 400],
  ['ILLEGAL_TYPE_OF_ARGUMENT', 400],
  ['ILLEGAL_COLUMN', 400],
  ['NUMBER_OF_ARGUMENTS_DOESNT_MATCH', 400],
  ['INCORRECT_DATA', 400],
  ['UNKNOWN_TABLE', 404],
  ['UNKNOWN_DATABASE', 404],
  ['UNKNOWN_FUNCTION', 404],
  ['UNKNOWN_IDENTIFIER', 404],
  ['UNKNOWN_SETTING', 404],
  ['UNKNOWN_TYPE', 404],
  ['UNKNOWN_STORAGE', 404],
  ['UNKNOWN_FORMAT', 404],
  ['UNKNOWN_AGGREGATE_FUNCTION', 404],
  ['TIMEOUT_EXCEEDED', 408],
  ['QUERY_IS_TOO_LARGE', 413],
  ['NOT_IMPLEMENTED', 501],
  ['SOCKET_TIMEOUT', 503],
  ['CANNOT_SCHEDULE_TASK', 503],
])

/** The status of a failed query whose exception is named `name` (`UNKNOWN_TABLE`). */
export function statusOfException(name: string): number {
  if (name.startsWith('CANNOT_PARSE_')) return 400
  return STATUS_BY_NAME.get(name) ?? 500
}

/** A ClickHouse exception as the server writes it: `Code: 60. DB::Exception: ... (UNKNOWN_TABLE)`. */
export interface EngineException {
  code: number
  name: string
  message: string
}

/** The code, name and text of an engine error message, or undefined when it carries none. */
export function parseEngineException(message: string): EngineException | undefined {
  const match = /^Code: (\d+)\. DB::Exception: ([\s\S]*?)\s*\(([A-Z0-9_]+)\)\s*$/.exec(message.trim())
  if (!match) return undefined
  return { code: Number(match[1]), message: match[2]!, name: match[3]! }
}

/** The exception's body as a ClickHouse server sends it. */
export function exceptionBody(e: EngineException, version: string): string {
  return `Code: ${e.code}. DB::Exception: ${e.message} (${e.name}) (version ${version})\n`
}
