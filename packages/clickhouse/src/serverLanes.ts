import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { ClickHouseError, parseError, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client'
// The client's own encoders of parameters, as it writes them into a URL or a multipart body:
// not part of its public surface, and pinned with it.
import { buildMultipartBody, formatQueryParams, serializeQueryParamsForUrl } from '@clickhouse/client/dist/common/index.js'
import { asClickHouseFailure, ClickHouseHttpError, ClickHouseUnavailable } from './errors'
import { killStatementSql, type Control, type Lane, type Statement, type StatementAnswer } from './lanes'

/**
 * Sends a statement to a server: the SQL in the request's body, its parameters in the URL while
 * they are small and in the body (a multipart form, as ClickHouse's HTTP interface takes them)
 * once they are not, so that a statement over thousands of values never meets a URL limit (a
 * proxy's 8 KB, ClickHouse's own). Settings stay in the URL: they are few and short. The
 * answer's status and body are read here: a failure says what the server, or whatever answered
 * in its place, said, never just "an error".
 */
export async function sendStatement(
  client: ClickHouseClient,
  statement: Omit<Statement, 'format'> & { format?: Statement['format'] },
  target: string,
): Promise<StatementAnswer> {
  const sql = statement.kind === 'query' ? `${statement.sql}\nFORMAT ${statement.format ?? 'JSON'}` : statement.sql
  const inUrl = serializeQueryParamsForUrl(statement.params) !== null
  let body = sql
  let headers: Record<string, string> = {}
  if (!inUrl) {
    const boundary = `----burrow-${randomUUID()}`
    const parts: Record<string, string> = { query: sql }
    for (const [name, value] of Object.entries(statement.params)) parts[`param_${name}`] = formatQueryParams({ value })
    body = buildMultipartBody(parts, boundary)
    headers = { 'Content-Type': `multipart/form-data; boundary=${boundary}` }
  }
  try {
    const result = await client.exec({
      // With a body, the client puts the query in the URL: there is none there, it is all in the body.
      query: '',
      values: Readable.from([Buffer.from(body)]),
      query_params: inUrl ? statement.params : {},
      clickhouse_settings: {
        ...statement.settings,
        log_comment: statement.id,
        // A read's answer is held until the statement has ended, so that a failure is a status, never the tail of a 200.
        ...(statement.kind === 'query' ? { wait_end_of_query: 1 } : {}),
      },
      query_id: statement.id,
      abort_signal: statement.signal,
      http_headers: headers,
      ignore_error_response: true,
    })
    const text = await textOf(result.stream)
    const status = result.http_status_code ?? 200
    if (status < 200 || status >= 300 || result.response_headers['x-clickhouse-exception-code'] !== undefined) {
      throw answerError(status, text)
    }
    return { text, headers: result.response_headers }
  } catch (err) {
    throw asClickHouseFailure(err, target)
  }
}

/**
 * An insert of rows already encoded: the statement in the URL (it is short), the rows as the
 * body, as the client's insert sends them; a failure says what answered, as sendStatement's do.
 */
export async function sendInsert(
  client: ClickHouseClient,
  insert: { query: string; body: Buffer; settings: ClickHouseSettings; target: string },
): Promise<void> {
  try {
    const result = await client.exec({
      query: insert.query,
      // Sent as the bytes they are: the client's insert() takes JSON formats only as objects.
      values: Readable.from([insert.body], { objectMode: false }),
      clickhouse_settings: insert.settings,
      ignore_error_response: true,
    })
    // An insert answers nothing on success; the answer is read to its end so that the connection is reused.
    const text = await textOf(result.stream)
    const status = result.http_status_code ?? 200
    if (status < 200 || status >= 300 || result.response_headers['x-clickhouse-exception-code'] !== undefined) {
      throw answerError(status, text)
    }
  } catch (err) {
    throw asClickHouseFailure(err, insert.target)
  }
}

/** A failed answer as an error: ClickHouse's exception (with its code) when it carries one, else the status and body. */
function answerError(status: number, text: string): Error {
  const parsed = parseError(text)
  return parsed instanceof ClickHouseError ? parsed : new ClickHouseHttpError(status, text)
}

async function textOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/** The server's reader lanes share one client: its keep-alive sockets are the lanes' connections. */
export function serverLane(client: ClickHouseClient, target: string): Lane {
  return {
    run: (statement) => sendStatement(client, statement, target),
    // A server keeps nothing of a statement between requests.
    reset: async () => {},
    close: async () => {},
  }
}

/** How long the server's ping may take before the server counts as not answering. */
const PING_TIMEOUT_MS = 2_000

export function serverControl(client: ClickHouseClient, target: string): Control {
  return {
    async kill(id) {
      await sendStatement(
        client,
        { kind: 'command', sql: killStatementSql(id), params: {}, settings: {}, id: randomUUID(), signal: AbortSignal.timeout(5_000) },
        target,
      )
    },
    async probe(signal) {
      await sendStatement(
        client,
        { kind: 'command', sql: 'SELECT 1', params: {}, settings: {}, id: randomUUID(), signal: signal ?? AbortSignal.timeout(5_000) },
        target,
      )
    },
    async ping() {
      const result = await client.ping({ select: false, abort_signal: AbortSignal.timeout(PING_TIMEOUT_MS) })
      if (!result.success) {
        throw new ClickHouseUnavailable(`ClickHouse at ${target} does not answer its ping`, { cause: result.error })
      }
    },
    close: () => client.close(),
  }
}
