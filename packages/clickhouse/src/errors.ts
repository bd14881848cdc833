import { ClickHouseError } from '@clickhouse/client'

// How a ClickHouse failure reaches us differs between a server and the embedded engine: a
// server's as @clickhouse/client's ClickHouseError (the code parsed from the answer) or as a
// network error (refused, reset, timed out) with no code at all; the embedded engine's as
// chDB's copy of ClickHouseError (same shape, another class) and as chDB's own errors
// (`clickhouseCode`) from its raw insert. Everything here reads all of them.

/** The ClickHouse error code of a failure (or of its causes), from a server or chDB; undefined for a network failure. */
export function clickHouseErrorCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = ownCode(e)
    if (code !== undefined) return code
  }
  return undefined
}

function ownCode(err: unknown): number | undefined {
  if (err instanceof ClickHouseError) return Number(err.code)
  const e = err as { code?: unknown; type?: unknown; clickhouseCode?: unknown } | null
  if (typeof e?.clickhouseCode === 'number') return e.clickhouseCode
  // chDB's connection throws its own copy of the client's ClickHouseError: the same fields, another class.
  if (
    err instanceof Error &&
    typeof e?.code === 'string' &&
    /^\d+$/.test(e.code) &&
    typeof e.type === 'string' &&
    /^[A-Z][A-Z0-9_]+$/.test(e.type)
  ) {
    return Number(e.code)
  }
  return undefined
}

/**
 * ClickHouse did not answer: the connection was refused, dropped or timed out, the server does
 * not answer its ping (frozen), or something in front of it answered 5xx without a ClickHouse
 * exception. Waiting may cure it; a request that needs ClickHouse is answered 503.
 */
export class ClickHouseUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ClickHouseUnavailable'
  }
}

/** A statement ran past its wall-clock limit (the service's own, whatever ClickHouse's settings did) and was killed. */
export class ClickHouseTimedOut extends Error {
  constructor(readonly limitMs: number) {
    super(`The statement ran past its limit of ${Math.round(limitMs / 100) / 10} s and was stopped.`)
    this.name = 'ClickHouseTimedOut'
  }
}

/** An HTTP answer that carries no ClickHouse exception: a proxy in front refused the request (431, 414, 401). */
export class ClickHouseHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    const text = body.trim().split('\n')[0]!.slice(0, 300)
    super(`ClickHouse's address answered HTTP ${status}${text ? `: ${text}` : ' with an empty body'}`)
    this.name = 'ClickHouseHttpError'
  }
}

/**
 * ClickHouse's refusal of what the service asks for (a password, a statement the server cannot
 * run as configured), with what the operator can do about it: retrying cannot cure it.
 */
export class ClickHouseRefused extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ClickHouseRefused'
  }
}

// ClickHouse error codes that are about the inserted data itself: retrying the same rows
// cannot succeed. (src/Common/ErrorCodes.cpp)
const DATA_ERROR_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  32, // ATTEMPT_TO_READ_AFTER_EOF
  33, // CANNOT_READ_ALL_DATA
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  108, // NO_DATA_TO_INSERT
  117, // INCORRECT_DATA
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  376, // CANNOT_PARSE_UUID
  377, // ILLEGAL_SYNTAX_FOR_DATA_TYPE
])

// ClickHouse error codes of a server that is there but cannot serve now: overloaded, shutting
// down, waiting for its Keeper or another replica. Any other code is a refusal waiting does not cure.
const TRANSIENT_CODES = new Set([
  3, // UNEXPECTED_END_OF_FILE (a connection cut in the middle)
  159, // TIMEOUT_EXCEEDED
  160, // TOO_SLOW
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY (a replica that lost its Keeper session)
  252, // TOO_MANY_PARTS
  279, // ALL_CONNECTION_TRIES_FAILED
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED (a server shutting down)
  425, // SYSTEM_ERROR
  439, // CANNOT_SCHEDULE_TASK
  999, // KEEPER_EXCEPTION
])

/** Node's and undici's codes of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
])

/** Whether ClickHouse refused the data itself (as opposed to being unavailable or overloaded). */
export function isDataRejection(err: unknown): boolean {
  const code = clickHouseErrorCode(err)
  return code !== undefined && DATA_ERROR_CODES.has(code)
}

/** Whether ClickHouse stopped a query at its time limit (TIMEOUT_EXCEEDED, TOO_SLOW, or the service's own), wherever in the chain of causes it says so. */
export function isQueryTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ClickHouseTimedOut) return true
    const code = ownCode(e)
    if (code === 159 || code === 160) return true
  }
  return false
}

/** Whether a failure means ClickHouse is not answering (rather than refusing what it was asked), wherever in the chain of causes. */
export function isClickHouseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ClickHouseUnavailable) return true
  }
  return false
}

/**
 * Whether ClickHouse answered and refused: an exception whose code waiting does not cure (a
 * password, an unknown database, a statement the server cannot run), or an HTTP 4xx from
 * something in front of it. A connection that failed, a 5xx and an overloaded server are not.
 */
export function isClickHouseRefusal(err: unknown): boolean {
  if (isClickHouseUnavailable(err)) return false
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ClickHouseRefused) return true
    if (e instanceof ClickHouseHttpError) return e.status >= 400 && e.status < 500
    const code = ownCode(e)
    if (code !== undefined) return !TRANSIENT_CODES.has(code)
  }
  return false
}

/** Whether an error is a connection that could not be made or was lost (no answer from ClickHouse at all). */
function isNetworkFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
  const message = err instanceof Error ? err.message : ''
  // @clickhouse/client's words for a request timeout and for a socket closed under it.
  return /^Timeout error\.|socket hang up|ECONNREFUSED|ECONNRESET|other side closed/i.test(message)
}

/**
 * A failure of a call to ClickHouse as the service reports it: a connection that failed or a
 * 5xx without an exception becomes ClickHouseUnavailable (which says where it was going); a
 * ClickHouse exception and anything else stay as they are.
 */
export function asClickHouseFailure(err: unknown, target: string): unknown {
  if (err instanceof ClickHouseUnavailable || ownCode(err) !== undefined) return err
  // The message says where and, briefly, what (a probe shows its first line); the cause says it in full.
  if (err instanceof ClickHouseHttpError) {
    return err.status >= 500
      ? new ClickHouseUnavailable(`ClickHouse at ${target} is not available (HTTP ${err.status})`, { cause: err })
      : err
  }
  if (isNetworkFailure(err)) {
    const reason = err instanceof Error && err.message ? err.message.split('\n')[0]!.slice(0, 200) : String(err)
    return new ClickHouseUnavailable(`ClickHouse at ${target} is not answering: ${reason}`, { cause: err })
  }
  return err
}

/**
 * A refusal met while connecting, as an error that says what to do: the codes that come from how
 * the server or the service is configured name the settings to change.
 */
export function refusalWithAdvice(err: unknown, what: { target: string; cluster?: string | undefined }): ClickHouseRefused {
  const code = clickHouseErrorCode(err)
  const reason = err instanceof Error && err.message ? err.message.trim().split('\n')[0]!.slice(0, 300) : String(err)
  // The advice first: a start that fails shows the first line's first 200 characters.
  return new ClickHouseRefused(
    `${adviceFor(code, what.cluster)} ClickHouse at ${what.target} answered${code === undefined ? '' : ` code ${code}`}: ${reason}`,
    { cause: err },
  )
}

function adviceFor(code: number | undefined, cluster: string | undefined): string {
  switch (code) {
    case 192: // UNKNOWN_USER
    case 193: // WRONG_PASSWORD
    case 194: // REQUIRED_PASSWORD
    case 516: // AUTHENTICATION_FAILED
      return 'Check CLICKHOUSE_USER and CLICKHOUSE_PASSWORD.'
    case 195: // IP_ADDRESS_NOT_ALLOWED
    case 497: // ACCESS_DENIED
      return 'Grant the CLICKHOUSE_USER user what it needs on CLICKHOUSE_DATABASE (create tables, insert, select), from this host.'
    case 81: // UNKNOWN_DATABASE
      return 'Create CLICKHOUSE_DATABASE on the server, or let the CLICKHOUSE_USER user create it.'
    case 225: // NO_ZOOKEEPER
    case 392: // QUERY_IS_PROHIBITED (replicated DDL disabled)
    case 701: // CLUSTER_DOESNT_EXIST
    case 170: // BAD_GET (an older server's word for an unknown cluster)
      return cluster === undefined
        ? 'The server cannot run this statement as it is configured.'
        : `CLICKHOUSE_CLUSTER=${cluster} needs that cluster in the server's remote_servers and a Keeper for DDL ON CLUSTER: configure both, or unset CLICKHOUSE_CLUSTER.`
    default:
      return 'Waiting would not change the answer: fix what it names, then start again.'
  }
}
