import { randomUUID } from 'node:crypto'

/**
 * Parameters of ClickHouse's HTTP interface that belong to the HTTP layer: a server takes
 * them out of the request before the query runs, and the engine knows none of them (chDB
 * refuses them as unknown settings).
 */
const HTTP_ONLY = new Set([
  'query',
  'database',
  'query_id',
  'session_id',
  'session_timeout',
  'session_check',
  'default_format',
  'user',
  'password',
  'quota_key',
  'role',
  'stacktrace',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_response_buffer_size',
  'http_headers_progress_interval_ms',
  'send_progress_in_http_headers',
  'http_native_compression_disable_checksumming_on_decompress',
])

/**
 * Settings whose default differs between a ClickHouse server and the embedded engine: a
 * server quotes 64-bit integers in JSON (so that JavaScript loses no digits) and inserts
 * synchronously unless asked; chDB does neither. The stand-in behaves as a server does.
 */
const SERVER_DEFAULTS: [string, string][] = [
  ['output_format_json_quote_64bit_integers', '1'],
  ['async_insert', '0'],
]

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/** What one HTTP request asks of the engine, before the SQL text and the body are joined. */
export interface HttpQuery {
  /** The `query` parameter, if any; the body follows it (the rows of an INSERT, or the whole SQL). */
  queryParam: string | undefined
  database: string | undefined
  queryId: string
  /** The format of an answer whose SQL names none. */
  defaultFormat: string
  /** Settings to apply to this request only, as the URL gave them (text). */
  settings: [string, string][]
  /** Bound `{name:Type}` parameters, as the URL gave them (text in the type's escaped form). */
  params: [string, string][]
  /** Whether the answer may be gzip-compressed (`enable_http_compression=1` and an Accept-Encoding that takes gzip). */
  gzipAnswer: boolean
  credentials: { user: string; password: string }
}

export class BadHttpQuery extends Error {
  constructor(
    readonly code: number,
    readonly exceptionName: string,
    message: string,
  ) {
    super(message)
  }
}

export function parseHttpQuery(url: URL, headers: Record<string, string | string[] | undefined>): HttpQuery {
  const settings: [string, string][] = []
  const params: [string, string][] = []
  for (const [key, value] of url.searchParams) {
    if (key.startsWith('param_')) {
      const name = key.slice('param_'.length)
      if (!IDENTIFIER.test(name)) throw new BadHttpQuery(36, 'BAD_ARGUMENTS', `Invalid query parameter name '${name}'`)
      params.push([name, value])
    } else if (!HTTP_ONLY.has(key)) {
      if (!IDENTIFIER.test(key)) throw new BadHttpQuery(115, 'UNKNOWN_SETTING', `Unknown setting '${key}'`)
      settings.push([key, value])
    }
  }
  const acceptEncoding = String(headers['accept-encoding'] ?? '')
  return {
    queryParam: url.searchParams.get('query') ?? undefined,
    database: url.searchParams.get('database') ?? header(headers, 'x-clickhouse-database'),
    queryId: url.searchParams.get('query_id') || randomUUID(),
    defaultFormat: url.searchParams.get('default_format') ?? header(headers, 'x-clickhouse-format') ?? 'TabSeparated',
    settings,
    params,
    gzipAnswer: url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(acceptEncoding),
    credentials: credentialsOf(url, headers),
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The user and password, from Basic authentication, ClickHouse's own headers, or the URL, as a server takes them. */
function credentialsOf(url: URL, headers: Record<string, string | string[] | undefined>): { user: string; password: string } {
  const authorization = header(headers, 'authorization')
  if (authorization?.startsWith('Basic ')) {
    const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    return colon < 0 ? { user: decoded, password: '' } : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
  }
  return {
    user: header(headers, 'x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    password: header(headers, 'x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  }
}

/** One field of a multipart/form-data body. */
export interface FormField {
  name: string
  /** Set for a file part: ClickHouse takes those as external tables. */
  filename: string | undefined
  value: string
}

/**
 * The fields of a multipart/form-data body, as ClickHouse's HTTP interface takes them from a POST:
 * `query` (the SQL, or its rest after the URL's), `param_<name>` (bound parameters too large
 * for a URL), and files (external tables). Undefined when the body is not such a form.
 */
export function formFields(contentType: string | undefined, body: Buffer): FormField[] | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const delimiter = boundary?.[1] ?? boundary?.[2]
  if (!delimiter) throw new BadHttpQuery(36, 'BAD_ARGUMENTS', 'A multipart/form-data body without a boundary')
  const text = body.toString('utf8')
  const fields: FormField[] = []
  for (const part of text.split(`--${delimiter}`).slice(1)) {
    if (part.startsWith('--')) break
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd < 0) throw new BadHttpQuery(36, 'BAD_ARGUMENTS', 'A multipart/form-data part without headers')
    const headers = part.slice(0, headerEnd)
    const name = /\bname="([^"]*)"/i.exec(headers)?.[1]
    if (name === undefined) throw new BadHttpQuery(36, 'BAD_ARGUMENTS', 'A multipart/form-data part without a name')
    // A part's value ends with the line break before the next delimiter.
    const value = part.slice(headerEnd + 4).replace(/\r\n$/, '')
    fields.push({ name, filename: /\bfilename="([^"]*)"/i.exec(headers)?.[1], value })
  }
  return fields
}

/** A ClickHouse string literal. */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** A name usable without quotes (checked identifiers) or quoted with backticks. */
export function quoteIdentifier(name: string): string {
  return IDENTIFIER.test(name) ? name : `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``
}

/**
 * The statements that give one request its context on a fresh engine session: the database,
 * the settings and the bound parameters, each as the server would apply them for that request
 * alone. GET requests are read-only, as on a server (readonly=2 still lets them change settings).
 */
export function contextStatements(query: HttpQuery, { readOnly }: { readOnly: boolean }): string[] {
  const statements: string[] = []
  if (query.database) statements.push(`USE ${quoteIdentifier(query.database)}`)
  for (const [name, value] of SERVER_DEFAULTS) {
    if (!query.settings.some(([given]) => given === name)) statements.push(`SET ${name} = ${value}`)
  }
  for (const [name, value] of query.settings) statements.push(`SET ${name} = ${quoteString(value)}`)
  if (readOnly) statements.push('SET readonly = 2')
  for (const [name, value] of query.params) statements.push(`SET param_${name} = ${quoteString(value)}`)
  return statements
}

/** The format an answer is written in: the SQL's own FORMAT clause, else the request's default. */
export function answerFormat(sql: string, defaultFormat: string): string {
  if (/^\s*INSERT\b/i.test(sql)) return defaultFormat
  return /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i.exec(sql)?.[1] ?? defaultFormat
}
