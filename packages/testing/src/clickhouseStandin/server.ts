import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { promisify } from 'node:util'
import { createBrotliDecompress, createGunzip, createInflate, gzip } from 'node:zlib'
import { Session, version, type RawInsertFormat } from 'chdb'
import { BadHttpQuery, answerFormat, contextStatements, formFields, parseHttpQuery, type FormField, type HttpQuery } from './httpQuery'
import { exceptionBody, parseEngineException, statusOfException, type EngineException } from './exceptionStatus'
import { FaultQueue } from './faults'

const gzipAsync = promisify(gzip)

export interface StandinOptions {
  /** The engine's data directory (one engine per directory and per process). */
  path: string
  port?: number
  host?: string
  /** The one user the stand-in admits, `default` unless given. */
  user?: string
  password?: string
  /** A ClickHouse server configuration file for the engine (remote_servers, macros). */
  configFile?: string | undefined
  /** Bound on a request body after decompression; larger ones get 413. */
  maxBodyBytes?: number
  /**
   * Bound on the request line and headers together: a longer URL gets 431, as it would from a
   * proxy in front of a server (nginx's 8 KB); Node's default (16 KB) without it.
   */
  maxHeaderBytes?: number | undefined
}

export interface ClickHouseStandin {
  readonly port: number
  readonly url: string
  /** Faults the next matching requests meet. */
  readonly faults: FaultQueue
  /** Stops accepting connections and drops the open ones, as a server going down does. */
  refuse(): Promise<void>
  /** Accepts connections again on the same port. */
  accept(): Promise<void>
  close(): Promise<void>
}

const JSON_FORMATS = /^JSON/i

/**
 * A stand-in for a ClickHouse server: ClickHouse's HTTP interface, as @clickhouse/client uses it,
 * served over chDB, the real engine. Each request runs on a session of its own, so that its
 * database, settings and parameters are its own, as on a server without `session_id`.
 */
export async function startClickHouseStandin(options: StandinOptions): Promise<ClickHouseStandin> {
  const user = options.user ?? 'default'
  const password = options.password ?? ''
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024 * 1024
  const engineVersion = version().libchdb.replaceAll('"', '')
  // The first session on a directory fixes the engine's configuration for the process; it stays
  // open so that the engine (and that configuration) outlives every request's own session.
  const engine = new Session(options.path, {
    connectionArgs: options.configFile ? [`--config-file=${options.configFile}`] : [],
  })
  const faults = new FaultQueue()
  const sockets = new Set<Socket>()

  const fail = (res: ServerResponse, e: EngineException, queryId: string) => {
    res.writeHead(statusOfException(e.name), {
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Exception-Code': String(e.code),
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Server-Display-Name': 'burrow-clickhouse-standin',
    })
    res.end(exceptionBody(e, engineVersion))
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://standin')
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n')
      return
    }
    if (url.pathname !== '/') {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' })
        .end(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`)
      return
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.writeHead(405, { Allow: 'GET, POST' }).end()
      return
    }
    let query: HttpQuery
    try {
      query = parseHttpQuery(url, req.headers)
    } catch (err) {
      if (!(err instanceof BadHttpQuery)) throw err
      fail(res, { code: err.code, name: err.exceptionName, message: err.message }, url.searchParams.get('query_id') ?? '')
      return
    }
    if (query.credentials.user !== user || query.credentials.password !== password) {
      const message = `${query.credentials.user}: Authentication failed: password is incorrect, or there is no user with such name.`
      fail(res, { code: 516, name: 'AUTHENTICATION_FAILED', message }, query.queryId)
      return
    }
    const body = await readBody(req, maxBodyBytes)
    if (body === 'too large') {
      fail(res, { code: 229, name: 'QUERY_IS_TOO_LARGE', message: `The request body exceeds ${maxBodyBytes} bytes` }, query.queryId)
      return
    }
    if (body === 'unreadable') {
      fail(res, { code: 271, name: 'CANNOT_DECOMPRESS', message: 'Cannot decompress the request body' }, query.queryId)
      return
    }
    let form: FormField[] | undefined
    try {
      form = formFields(header(req.headers['content-type']), body)
    } catch (err) {
      if (!(err instanceof BadHttpQuery)) throw err
      fail(res, { code: err.code, name: err.exceptionName, message: err.message }, query.queryId)
      return
    }
    if (form?.some((field) => field.filename !== undefined)) {
      fail(res, { code: 48, name: 'NOT_IMPLEMENTED', message: 'The stand-in takes no external tables' }, query.queryId)
      return
    }
    // A form's `query` fields follow the URL's, and its `param_` fields are parameters, as on a server.
    for (const field of form ?? []) {
      if (!field.name.startsWith('param_')) continue
      const name = field.name.slice('param_'.length)
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        fail(res, { code: 36, name: 'BAD_ARGUMENTS', message: `Invalid query parameter name '${name}'` }, query.queryId)
        return
      }
      query.params.push([name, field.value])
    }
    const bodyText = form
      ? form
          .filter((field) => field.name === 'query')
          .map((field) => field.value)
          .join('')
      : body.toString('utf8')
    const sql = [query.queryParam, bodyText].filter((part) => part !== undefined && part.length > 0).join('\n')
    if (sql.trim().length === 0) {
      fail(res, { code: 62, name: 'SYNTAX_ERROR', message: 'Empty query' }, query.queryId)
      return
    }

    const fault = faults.take(sql)
    if (fault === 'unavailable') {
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable\n')
      return
    }
    if (fault === 'reset') {
      req.socket.destroy()
      return
    }

    const format = answerFormat(sql, query.defaultFormat)
    const insert = query.queryParam !== undefined && body.length > 0 && !form ? parseInsert(query.queryParam) : undefined
    const session = new Session(options.path)
    let outcome: { answer: Uint8Array; summary: Record<string, string> }
    try {
      // The request's context is set on its own session first: it lasts as long as the session.
      const context = contextStatements(query, { readOnly: req.method === 'GET' })
      if (context.length > 0) await session.queryAsync(context.join(';\n'))
      if (insert) {
        // As @clickhouse/client sends it: the rows go to the engine's parser as they came.
        const written = await session.insert({ ...insert, values: body })
        outcome = {
          answer: new Uint8Array(),
          summary: summaryOf({ written: [written.rowsWritten, written.bytesWritten], elapsed: written.elapsed }),
        }
      } else {
        const result = await session.queryAsync(sql, { format })
        const counts: [number, number] = [result.rowsRead, result.bytesRead]
        outcome = { answer: result.bytes(), summary: summaryOf({ read: counts, elapsed: result.elapsed }) }
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      fail(res, parseEngineException(message) ?? { code: 1001, name: 'STD_EXCEPTION', message }, query.queryId)
      return
    } finally {
      session.close()
    }

    if (fault === 'commit-then-reset') {
      req.socket.destroy()
      return
    }
    // Committed, and the answer never comes: the socket stays open until the client gives up.
    if (fault === 'commit-then-hang') return

    let answer = Buffer.from(outcome.answer)
    const headers: Record<string, string> = {
      'Content-Type': JSON_FORMATS.test(format) ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
      'X-ClickHouse-Query-Id': query.queryId,
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Timezone': 'UTC',
      'X-ClickHouse-Summary': JSON.stringify(outcome.summary),
      'X-ClickHouse-Server-Display-Name': 'burrow-clickhouse-standin',
    }
    if (query.gzipAnswer) {
      answer = await gzipAsync(answer)
      headers['Content-Encoding'] = 'gzip'
    }
    res.writeHead(200, headers).end(answer)
  }

  const server: Server = createServer({ ...(options.maxHeaderBytes ? { maxHeaderSize: options.maxHeaderBytes } : {}) }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A failure of the stand-in itself, not of a query: answered as ClickHouse answers an internal error.
      if (res.headersSent) {
        req.socket.destroy()
        return
      }
      fail(res, { code: 1001, name: 'STD_EXCEPTION', message: err instanceof Error ? err.message : String(err) }, '')
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  let port = options.port ?? 0
  const host = options.host ?? '127.0.0.1'
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        const address = server.address()
        if (address && typeof address === 'object') port = address.port
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  try {
    await listen()
  } catch (err) {
    engine.close()
    throw err
  }
  return {
    get port() {
      return port
    },
    get url() {
      return `http://${host}:${port}`
    },
    faults,
    refuse: stop,
    accept: listen,
    async close() {
      if (server.listening) await stop()
      engine.close()
    },
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The request's body, decompressed as its Content-Encoding says, within `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too large' | 'unreadable'> {
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase()
  const decoder =
    encoding === 'gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined
  const source = decoder ? req.pipe(decoder) : req
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > limit) {
        req.resume()
        return 'too large'
      }
      chunks.push(chunk)
    }
  } catch {
    return 'unreadable'
  }
  return Buffer.concat(chunks)
}

/**
 * `INSERT INTO t [(a, b)] FORMAT F` with the rows in the body, in a text format the engine's raw
 * insert takes; undefined for any other statement, which then runs as SQL.
 */
function parseInsert(sql: string): { table: string; columns?: string[]; format: RawInsertFormat } | undefined {
  const match = /^\s*INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\(([^)]*)\))?\s*FORMAT\s+([A-Za-z]+)\s*$/i.exec(sql)
  if (!match) return undefined
  const format = RAW_FORMATS.find((f) => f === match[3])
  if (!format) return undefined
  const columns = match[2]?.split(',').map((c) => c.trim().replace(/^`(.*)`$/, '$1'))
  return { table: match[1]!, format, ...(columns ? { columns } : {}) }
}

const RAW_FORMATS: readonly RawInsertFormat[] = [
  'JSONEachRow',
  'JSONCompactEachRow',
  'CSV',
  'CSVWithNames',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
]

/** X-ClickHouse-Summary: counts as strings, as a server sends them. */
function summaryOf(counts: { read?: [number, number]; written?: [number, number]; elapsed: number }): Record<string, string> {
  const [readRows, readBytes] = counts.read ?? [0, 0]
  const [writtenRows, writtenBytes] = counts.written ?? [0, 0]
  return {
    read_rows: String(readRows),
    read_bytes: String(readBytes),
    written_rows: String(writtenRows),
    written_bytes: String(writtenBytes),
    total_rows_to_read: String(readRows),
    result_rows: String(readRows),
    result_bytes: String(readBytes),
    elapsed_ns: String(Math.round(counts.elapsed * 1e9)),
  }
}
