import { problems } from '@burrow/contracts'
import uWS from 'uWebSockets.js'

/** A request whose body has been read in full. Header names are lower-case. */
export interface IncomingRequest {
  method: string
  path: string
  query: string
  headers: Record<string, string>
  body: Buffer
  /** The peer's address as text (before any proxy header is considered). */
  remoteAddress: string
  /** Aborted when the client goes away before its answer: work done only for the answer can stop. */
  signal?: AbortSignal
}

export interface OutgoingResponse {
  status: number
  headers: Record<string, string>
  body: string | Buffer
}

export type Dispatcher = (req: IncomingRequest) => Promise<OutgoingResponse> | OutgoingResponse

/**
 * How much of a refused body is read and thrown away before the 413 is written. The answer
 * waits for the end of the upload because a connection closed with bytes still unread is
 * reset, and the reset destroys the answer before a client that is still uploading (as
 * undici's fetch does) has read it.
 */
export interface DiscardBounds {
  /** Bytes past maxBodyBytes; a client that sends more has its connection closed without an answer. */
  bytes: number
  /** From the refusal; then the 413 is written and the connection closed, whatever is still on its way. */
  ms: number
}

/** Room for a client that overshoots the limit a few times over, and enough time to send it on a slow link. */
export const DEFAULT_DISCARD: DiscardBounds = { bytes: 64 * 1024 * 1024, ms: 5_000 }

/**
 * The request line's headers, names and values, in all: nginx's default (four 8 KiB buffers).
 * uWS itself takes a few hundred KiB before it resets the connection; past this bound a client
 * gets a 431 it can read instead. (uWS also ends a request whose headers or body do not arrive
 * within about 10 s however they trickle in, and an idle connection after as long.)
 */
export const MAX_HEADER_BYTES = 32 * 1024

export interface HttpServerOptions {
  host: string
  port: number
  maxBodyBytes: number
  dispatch: Dispatcher
  /** A failure, with its error apart from the message. */
  log: (msg: string, err?: unknown) => void
  /** DEFAULT_DISCARD unless given. */
  discard?: DiscardBounds
}

export interface HttpServer {
  port: number
  /** Stops listening; open connections finish their current request. */
  close(): void
  /**
   * Closes every connection, idle or not. A thread must do this before it ends: uWS's sockets
   * are not Node's, and a thread ended with one open aborts the process.
   */
  closeConnections(): void
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** Status lines built once: this runs for every answer. */
const STATUS_LINES = new Map(Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), `${code} ${text}`]))

function statusLine(status: number): string {
  return STATUS_LINES.get(status) ?? `${status} Status`
}

const TOO_LARGE: OutgoingResponse = {
  status: 413,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(problems.tooLarge('The request body').body),
}

const HEADERS_TOO_LARGE: OutgoingResponse = {
  status: 431,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(problems.headersTooLarge(MAX_HEADER_BYTES).body),
}

const SERVER_ERROR: OutgoingResponse = {
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(problems.serverError().body),
}

/**
 * Why a request's framing is refused, if it is: what a proxy and this server could read as two
 * different bodies (request smuggling). Several Content-Length values, a length that is not a
 * number, a Transfer-Encoding other than plain `chunked`, or both headers at once.
 */
export function framingProblem(headers: Record<string, string>): string | undefined {
  const length = headers['content-length']
  const encoding = headers['transfer-encoding']
  if (length !== undefined && !/^\d{1,15}$/.test(length)) return 'A request may have one Content-Length, a number.'
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'chunked') return 'Transfer-Encoding may only be chunked, and only once.'
  if (encoding !== undefined && length !== undefined) return 'A request may not have both Content-Length and Transfer-Encoding.'
  return undefined
}

const badFraming = (detail: string): OutgoingResponse => ({
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(problems.parseError(detail).body),
})

interface RequestState {
  aborted: boolean
  /** A HEAD request: answered as the GET would be, without the body (whose length is reported). */
  head: boolean
  /** Refused, and its 413 written or its connection closed: later chunks are ignored. */
  refused: boolean
  /** The time bound of reading a refused body. */
  discardTimer: NodeJS.Timeout | undefined
}

function write(res: uWS.HttpResponse, state: RequestState, response: OutgoingResponse, closeConnection = false): void {
  res.cork(() => {
    res.writeStatus(statusLine(response.status))
    const headers = response.headers
    for (const name in headers) res.writeHeader(name, headers[name]!)
    // A HEAD answer that closes the connection may keep its body: nothing is read after it.
    if (state.head && !closeConnection) {
      // This uWS build drops the connection when endWithoutBody is given any argument.
      res.writeHeader('content-length', String(Buffer.byteLength(response.body)))
      res.endWithoutBody()
    } else res.end(response.body, closeConnection)
  })
}

function answerWith(res: uWS.HttpResponse, state: RequestState, response: OutgoingResponse): void {
  if (!state.aborted) write(res, state, response)
}

function answerFailure(
  res: uWS.HttpResponse,
  state: RequestState,
  log: (msg: string, err?: unknown) => void,
  req: IncomingRequest,
  err: unknown,
): void {
  log(`${req.method} ${req.path} failed`, err)
  if (!state.aborted) write(res, state, SERVER_ERROR)
}

/** The 413, on a connection then closed: the refused client is not served another request. */
function refuse(res: uWS.HttpResponse, state: RequestState): void {
  clearTimeout(state.discardTimer)
  state.refused = true
  if (!state.aborted) write(res, state, TOO_LARGE, true)
}

/**
 * The answer, then the connection closed at once: uWS would otherwise go on reading the body as
 * it framed it, and serve what follows as the next request.
 */
function refuseFraming(res: uWS.HttpResponse, response: OutgoingResponse): void {
  res.cork(() => {
    res.writeStatus(statusLine(response.status))
    for (const name in response.headers) res.writeHeader(name, response.headers[name]!)
    res.writeHeader('connection', 'close')
    res.writeHeader('content-length', String(Buffer.byteLength(response.body)))
    res.write(response.body)
  })
  res.close()
}

function normaliseAddress(text: string): string {
  return text.startsWith('::ffff:') ? text.slice(7) : text
}

/**
 * Serves HTTP with uWebSockets.js. Bodies are read up to `maxBodyBytes`, then the dispatcher
 * answers. Beyond it the body is read on without being kept, within `discard`'s bounds, and
 * answered 413 once it has all come (see DiscardBounds). A client that goes away mid-request
 * is noticed and nothing is written to it.
 */
export function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const app = uWS.App()
  const limit = options.maxBodyBytes
  const discard = options.discard ?? DEFAULT_DISCARD
  const discardLimit = limit + discard.bytes
  app.any('/*', (res, req) => {
    const state: RequestState = { aborted: false, head: false, refused: false, discardTimer: undefined }
    // Made only for a handler that asks for the signal: most requests (capture's) never do, and
    // a controller and its signal for each would cost a few µs of every one.
    let gone: AbortController | undefined
    res.onAborted(() => {
      state.aborted = true
      gone?.abort()
      clearTimeout(state.discardTimer)
    })
    // The request object is only valid until this function returns: copy what is needed.
    const headers: Record<string, string> = {}
    let headerBytes = 0
    req.forEach((name, value) => {
      headerBytes += name.length + value.length
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
    })
    const method = req.getMethod().toUpperCase()
    state.head = method === 'HEAD'
    const path = req.getUrl()
    const query = req.getQuery() ?? ''
    const remoteAddress = normaliseAddress(Buffer.from(res.getRemoteAddressAsText()).toString())

    if (headerBytes > MAX_HEADER_BYTES) {
      state.refused = true
      write(res, state, HEADERS_TOO_LARGE, true)
      return
    }
    // Answered and closed: what follows on the connection cannot be told apart from this body.
    const framing = framingProblem(headers)
    if (framing !== undefined) {
      state.refused = true
      refuseFraming(res, badFraming(framing))
      return
    }

    // uWS takes exactly the declared length as the body, so a length over the limit is refused
    // before any of it comes. One past the discard bound could never be read to its end: it is
    // answered at once, though a client still uploading may not get to read that.
    const declared = Number(headers['content-length'] ?? '0')
    if (declared > discardLimit) {
      refuse(res, state)
      return
    }

    let chunks: Buffer[] = []
    let received = 0
    let discarding = false
    const startDiscarding = () => {
      discarding = true
      chunks = []
      state.discardTimer = setTimeout(() => refuse(res, state), discard.ms)
    }
    if (declared > limit) startDiscarding()

    res.onData((chunk, isLast) => {
      if (state.aborted || state.refused) return
      received += chunk.byteLength
      if (!discarding && received > limit) startDiscarding()
      if (discarding) {
        if (isLast) refuse(res, state)
        else if (received > discardLimit) {
          clearTimeout(state.discardTimer)
          state.refused = true
          res.close()
        }
        return
      }
      // uWS reuses the chunk's memory after this callback: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk)))
      if (!isLast) return
      const request: IncomingRequest = {
        // HEAD is answered as GET (write() leaves out the body), so every GET route has one.
        method: state.head ? 'GET' : method,
        path,
        query,
        headers,
        body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
        remoteAddress,
        get signal() {
          gone ??= new AbortController()
          if (state.aborted) gone.abort()
          return gone.signal
        },
      }
      let answer: Promise<OutgoingResponse> | OutgoingResponse
      try {
        answer = options.dispatch(request)
      } catch (err) {
        answerFailure(res, state, options.log, request, err)
        return
      }
      if (answer instanceof Promise) {
        answer.then(
          (response) => answerWith(res, state, response),
          (err: unknown) => answerFailure(res, state, options.log, request, err),
        )
      } else {
        answerWith(res, state, answer)
      }
    })
  })

  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (listenSocket) => {
      if (!listenSocket) {
        reject(new Error(`could not listen on ${options.host}:${options.port}`))
        return
      }
      resolve({
        port: uWS.us_socket_local_port(listenSocket),
        close: () => uWS.us_listen_socket_close(listenSocket),
        // Present in this build, though its type declarations predate it.
        closeConnections: () => (app as unknown as { close(): void }).close(),
      })
    })
  })
}
