import { connect, type Socket } from 'node:net'
import { problems } from '@burrow/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpServer, type DiscardBounds, type HttpServer } from './uwsServer'

const LIMIT = 64 * 1024
// More than the kernel holds in flight on a loopback connection, so that a client still has
// bytes to send when the server has read what it will.
const DISCARD = { bytes: 16 * 1024 * 1024, ms: 10_000 }
// Time enough for a loaded machine to answer a neighbour well within it.
const SHORT_DISCARD = { bytes: DISCARD.bytes, ms: 1_000 }
const TOO_LARGE = problems.tooLarge('The request body').body

let server: HttpServer
let url: string
/** Another server, with a short time bound. */
let hasty: HttpServer

const start = (discard: DiscardBounds) =>
  startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: LIMIT,
    discard,
    log: () => {},
    dispatch: (req) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bytes: req.body.length }) }),
  })

beforeAll(async () => {
  server = await start(DISCARD)
  url = `http://127.0.0.1:${server.port}/`
  hasty = await start(SHORT_DISCARD)
})

afterAll(() => {
  for (const s of [server, hasty]) {
    s.close()
    s.closeConnections()
  }
})

/** A body without a declared length (sent chunked), in 16 KiB pieces. */
function streamOf(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes
  return new ReadableStream({
    pull(controller) {
      const size = Math.min(16 * 1024, left)
      left -= size
      controller.enqueue(new Uint8Array(size).fill(97))
      if (left === 0) controller.close()
    },
  })
}

interface Exchange {
  /** What the server wrote before the connection ended. */
  answer: string
  /** How the connection failed (ECONNRESET, EPIPE) if it did not end cleanly. */
  error: string | undefined
  closedAfterMs: number
}

/** A connection on which `talk` writes what it likes; resolves with what came back once it is closed. */
function exchange(talk: (socket: Socket) => void, port = server.port): Promise<Exchange> {
  const started = performance.now()
  return new Promise((resolve) => {
    let answer = ''
    let error: string | undefined
    const socket = connect(port, '127.0.0.1', () => talk(socket))
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message))
    socket.on('close', () => resolve({ answer, error, closedAfterMs: performance.now() - started }))
  })
}

const head = (length: number) => `POST / HTTP/1.1\r\nHost: t\r\nContent-Length: ${length}\r\n\r\n`

function expectTooLarge(answer: string): void {
  expect(answer).toMatch(/^HTTP\/1\.1 413 /)
  expect(answer).toMatch(/\r\nconnection: close\r\n/i)
  expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(TOO_LARGE)
}

describe('a body over the limit', () => {
  it('is answered 413 with the catalogue body to 20 fetch uploads at once, declared or chunked, and a neighbour is served', async () => {
    const refused = Array.from({ length: 20 }, async (_, i) => {
      const body = i % 2 === 0 ? { body: Buffer.alloc(8 * LIMIT, 97) } : { body: streamOf(8 * LIMIT), duplex: 'half' }
      const res = await fetch(url, { method: 'POST', ...body })
      return { status: res.status, body: await res.json() }
    })
    const neighbour = await fetch(url, { method: 'POST', body: 'small' })
    expect(neighbour.status).toBe(200)
    expect(await neighbour.json()).toEqual({ bytes: 5 })
    expect(await Promise.all(refused)).toEqual(Array.from({ length: 20 }, () => ({ status: 413, body: TOO_LARGE })))
  })

  it('is answered once its last byte has come, and the connection closed without a reset', async () => {
    const length = LIMIT + DISCARD.bytes
    const { answer, error, closedAfterMs } = await exchange((socket) =>
      socket.end(Buffer.concat([Buffer.from(head(length)), Buffer.alloc(length, 97)])),
    )
    expectTooLarge(answer)
    expect(error).toBeUndefined()
    expect(closedAfterMs).toBeLessThan(DISCARD.ms)
  })

  it('holds a connection no longer than the time bound, whether the upload stops or trickles on, while others are served', async () => {
    const stalled = exchange((socket) => socket.write(head(4 * LIMIT) + 'a'.repeat(1000)), hasty.port)
    const trickled = exchange((socket) => {
      socket.write(head(4 * LIMIT))
      const timer = setInterval(() => socket.write('a'.repeat(100)), 20)
      socket.on('close', () => clearInterval(timer))
    }, hasty.port)
    let freed = false
    void Promise.all([stalled, trickled]).then(() => (freed = true))

    const neighbour = await fetch(`http://127.0.0.1:${hasty.port}/`, { method: 'POST', body: 'small' })
    expect(await neighbour.json()).toEqual({ bytes: 5 })
    expect(freed).toBe(false)

    // The one that stopped can read the 413 written at the bound.
    const stop = await stalled
    expectTooLarge(stop.answer)
    expect(stop.closedAfterMs).toBeGreaterThan(SHORT_DISCARD.ms / 2)
    // Freed by the bound, not by uWS's idle timeout (10 s without data), which a trickle never reaches.
    const trickle = await trickled
    expect(trickle.closedAfterMs).toBeGreaterThan(SHORT_DISCARD.ms / 2)
    expect(trickle.closedAfterMs).toBeLessThan(SHORT_DISCARD.ms + 5_000)
  })

  it('has its connection closed without an answer once more than the discard bound has come', async () => {
    const chunk = Buffer.concat([Buffer.from(`${(64 * 1024).toString(16)}\r\n`), Buffer.alloc(64 * 1024, 97), Buffer.from('\r\n')])
    const { answer, closedAfterMs } = await exchange((socket) => {
      socket.write('POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n')
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      }
      socket.on('drain', pump)
      pump()
    })
    // The time bound would have written the 413.
    expect(answer).toBe('')
    expect(closedAfterMs).toBeLessThan(DISCARD.ms)
  })

  it('is answered at once when its declared length is past what would be read', async () => {
    const { answer, closedAfterMs } = await exchange((socket) => socket.write(head(LIMIT + DISCARD.bytes + 1)))
    expectTooLarge(answer)
    expect(closedAfterMs).toBeLessThan(DISCARD.ms)
  })

  it('is not refused at the limit itself', async () => {
    const res = await fetch(url, { method: 'POST', body: Buffer.alloc(LIMIT, 97) })
    expect(await res.json()).toEqual({ bytes: LIMIT })
  })
})

describe('a request whose framing two readers could read apart (request smuggling)', () => {
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n'

  it.each([
    [
      'two Content-Length headers',
      `POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: ${5 + smuggled.length}\r\n\r\nhello${smuggled}`,
    ],
    [
      'Transfer-Encoding: identity, chunked',
      `POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: identity, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n${smuggled}`,
    ],
    [
      'two Transfer-Encoding headers',
      `POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n${smuggled}`,
    ],
  ])('is refused and its connection closed at once, nothing after it served: %s', async (_name, text) => {
    const { answer, closedAfterMs } = await exchange((socket) => socket.write(text))
    // The 400 is written, but closing with the rest unread resets the connection, which may
    // destroy the answer before the client reads it: what matters is that nothing is served.
    expect(answer).not.toMatch(/200 OK/)
    if (answer !== '') {
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1)
    }
    expect(closedAfterMs).toBeLessThan(2_000)
  })

  it('is closed without serving what follows when its Content-Length is not a number', async () => {
    const { answer } = await exchange((socket) => socket.write(`POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5x\r\n\r\nhello${smuggled}`))
    expect(answer).not.toMatch(/200 OK/)
  })

  it('is served as usual with one Content-Length or plain chunked encoding, keeping the connection', async () => {
    const answers = await exchange((socket) => {
      socket.write(`POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello`)
      socket.write(`POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`)
      setTimeout(() => socket.end(), 500)
    })
    expect(answers.answer.match(/HTTP\/1\.1 200 /g)).toHaveLength(2)
  })
})

describe("a request's signal", () => {
  /** A server whose handler waits `readAfterMs` before it asks for the signal, then answers when it aborts. */
  async function withWaitingHandler(readAfterMs: number, body: (port: number, aborted: Promise<boolean>) => Promise<void>) {
    let settle!: (value: boolean) => void
    const aborted = new Promise<boolean>((resolve) => (settle = resolve))
    const waiting = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: LIMIT,
      log: () => {},
      dispatch: (req) =>
        new Promise((resolve) => {
          setTimeout(() => {
            const signal = req.signal!
            const answer = () => {
              settle(signal.aborted)
              resolve({ status: 200, headers: {}, body: '' })
            }
            if (signal.aborted) answer()
            else signal.addEventListener('abort', answer, { once: true })
          }, readAfterMs)
        }),
    })
    try {
      await body(waiting.port, aborted)
    } finally {
      waiting.close()
      waiting.closeConnections()
    }
  }

  /** Sends a whole request, then closes the connection once the server has had `closeAfterMs` with it. */
  async function sendAndLeave(port: number, closeAfterMs: number): Promise<void> {
    const socket = connect(port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('POST /x HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}')
    await new Promise((resolve) => setTimeout(resolve, closeAfterMs))
    socket.destroy()
  }

  it('aborts when the client goes away while the handler waits on it', async () => {
    await withWaitingHandler(0, async (port, aborted) => {
      await sendAndLeave(port, 100)
      expect(await aborted).toBe(true)
    })
  })

  it('is aborted already for a handler that asks for it after the client went away', async () => {
    await withWaitingHandler(300, async (port, aborted) => {
      await sendAndLeave(port, 50)
      expect(await aborted).toBe(true)
    })
  })
})
