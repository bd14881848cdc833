import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { createGzip, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import LZString from 'lz-string'
import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

/** Cases per property: a bounded number in CI; `npm run fuzz` runs many more. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 20)

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})

const PATHS = ['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/']
const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  '',
  'multipart/form-data',
]

async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service.baseUrl}${path}`, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers })
}

async function healthy(): Promise<void> {
  expect((await fetch(`${service.baseUrl}/_health`)).status).toBe(200)
}

/** Text with what breaks naive code: lone surrogates, NUL bytes, and keys that shadow Object.prototype. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\ud800', 'a\udfffb', '__proto__', 'constructor', 'prototype', '', ' ', '\u202e', '"\'\\'),
)
const nastyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyString, tie('value'), { maxKeys: 4 }),
  ),
})).value

/** An event the service must store: string name, usable distinct id, any properties. */
const validEvent = (name: string) =>
  fc.record({
    event: fc.constant(name),
    distinct_id: fc
      .oneof(fc.string({ minLength: 1, maxLength: 60 }), nastyString, fc.integer({ min: 1 }))
      .filter((id) => typeof id !== 'string' || id.trim() !== ''),
    properties: fc.dictionary(nastyString, nastyJson, { maxKeys: 6 }),
    uuid: fc.uuid({ version: 7 }),
    timestamp: fc.oneof(
      fc.constant(undefined),
      fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constant('not a time'),
      fc.integer(),
    ),
  })

/** Anything at all where an event should be. */
const hostileEvent = fc.oneof(
  nastyJson,
  fc.record({
    event: fc.oneof(fc.integer(), fc.constant(null), fc.object(), fc.constant(''), fc.constant('hostile')),
    distinct_id: fc.oneof(
      fc.constant(null),
      fc.object(),
      fc.constant(''),
      fc.constant('x'.repeat(10_000)),
      fc.double(),
      fc.constant('hostile'),
    ),
    uuid: fc.oneof(fc.constant('not-a-uuid'), fc.constant('00000000-0000-0000-0000-000000000000'), fc.string()),
    timestamp: fc.oneof(fc.constant('9999-99-99'), fc.constant(-1e20), fc.constant('3000-01-01T00:00:00Z'), fc.constant({})),
    properties: fc.oneof(nastyJson, fc.constant('not an object')),
  }),
)

type Encoding = 'json' | 'gzip' | 'gzip-hinted' | 'form-base64' | 'lz64' | 'base64'

function encode(payload: unknown, encoding: Encoding): { path: string; body: Buffer | string; headers: Record<string, string> } {
  const json = JSON.stringify(payload)
  switch (encoding) {
    case 'json':
      return { path: '', body: json, headers: { 'content-type': 'application/json' } }
    case 'gzip':
      return { path: '', body: gzipSync(json), headers: { 'content-type': 'text/plain' } }
    case 'gzip-hinted':
      return { path: '?compression=gzip-js', body: gzipSync(json), headers: { 'content-type': 'text/plain' } }
    case 'form-base64':
      return {
        path: '',
        body: `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }
    case 'lz64':
      return {
        path: '?compression=lz64',
        body: `data=${encodeURIComponent(LZString.compressToBase64(json))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }
    case 'base64':
      return { path: '', body: Buffer.from(json).toString('base64'), headers: { 'content-type': 'text/plain' } }
  }
}

describe('fuzzing capture', () => {
  it('never answers 5xx to any bytes, with any content type, on any capture path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom(...CONTENT_TYPES),
        fc.oneof(
          fc.uint8Array({ maxLength: 3000 }),
          fc.string({ unit: 'binary', maxLength: 3000 }).map((s) => Buffer.from(s)),
        ),
        fc.constantFrom('', '?compression=gzip-js', '?compression=lz64', '?compression=base64', '?ver=1.2'),
        async (path, contentType, bytes, query) => {
          const res = await post(`${path}${query}`, Buffer.from(bytes), contentType ? { 'content-type': contentType } : {})
          expect(res.status).toBeLessThan(500)
          await res.arrayBuffer()
        },
      ),
      { numRuns: RUNS * 5 },
    )
    await healthy()
  })

  it('stores every valid event of a batch mixed with hostile ones, in every encoding', async () => {
    let expected = 0
    const name = `fuzz-valid-${randomUUID()}`
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            validEvent(name).map((e) => ({ valid: true as const, e })),
            hostileEvent.map((e) => ({ valid: false as const, e })),
          ),
          { maxLength: 25 },
        ),
        fc.constantFrom<Encoding>('json', 'gzip', 'gzip-hinted', 'form-base64', 'lz64', 'base64'),
        async (items, encoding) => {
          // Valid events get uuids of their own, so that retried cases are new events.
          const batch = items.map((item) => (item.valid ? { ...item.e, uuid: randomUUID() } : item.e))
          const { path, body, headers } = encode({ api_key: account.projectToken, batch }, encoding)
          const res = await post(`/batch/${path}`, body, headers)
          expect(res.status).toBeLessThan(500)
          if (res.status === 200) expected += items.filter((i) => i.valid).length
          else expect(items.some((i) => i.valid)).toBe(false)
          await res.arrayBuffer()
        },
      ),
      { numRuns: RUNS },
    )
    const stored = await waitFor(
      async () => {
        const page = await (
          await service.api(account, `/api/projects/${account.projectId}/events/?event=${encodeURIComponent(name)}&limit=1`)
        ).json()
        return page.count >= expected ? page.count : undefined
      },
      { what: `${expected} valid events`, timeoutMs: 20_000 },
    )
    expect(stored).toBe(expected)
    await healthy()
  })
})

describe('hostile requests', () => {
  const memoryBefore = process.memoryUsage().rss

  it('refuses gzip and lz64 bombs (over 1000:1) with 413, without expanding them', async () => {
    // Compressed a mebibyte at a time: the test itself never holds the 300 MiB, so the memory
    // measured below is the service's.
    const mebibyte = Buffer.alloc(1024 * 1024)
    const zeros = await buffer(Readable.from(Array.from({ length: 300 }, () => mebibyte)).pipe(createGzip()))
    expect((300 * 1024 * 1024) / zeros.length).toBeGreaterThan(1000)
    const gzipBomb = await post('/batch/', zeros, { 'content-type': 'application/json' })
    expect(gzipBomb.status).toBe(413)
    const lz = LZString.compressToBase64('a'.repeat(3_000_000))
    expect(3_000_000 / lz.length).toBeGreaterThan(500)
    const lzBomb = await post('/batch/?compression=lz64', `data=${encodeURIComponent(lz)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(lzBomb.status).toBeLessThan(500)
    await healthy()
    // The service grows by 250-320 MiB here (its decompression stops at MAX_DECOMPRESSED_BYTES,
    // 100 MiB); expanding the 300 MiB bomb as well would pass this bound.
    expect(process.memoryUsage().rss - memoryBefore).toBeLessThan(450 * 1024 * 1024)
  })

  it('answers JSON nested 10,000 deep, megabyte strings and NUL bytes without a 5xx, storing what is valid', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    expect(
      (await post('/capture/', `{"api_key":"${account.projectToken}","event":"deep","distinct_id":"d","properties":{"x":${deep}}}`)).status,
    ).toBeLessThan(500)
    const nested = (
      await post(
        '/capture/',
        `{"api_key":"${account.projectToken}","event":"deep","distinct_id":"d","properties":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
      )
    ).status
    expect(nested).toBeLessThan(500)

    const big = 'x'.repeat(1024 * 1024)
    const bigUuid = randomUUID()
    expect(
      (
        await service.post('/capture/', {
          api_key: account.projectToken,
          event: 'big',
          distinct_id: 'd\u0000nul',
          uuid: bigUuid,
          properties: { big },
        })
      ).status,
    ).toBe(200)
    const stored = await waitFor(
      async () => {
        const res = await service.api(account, `/api/projects/${account.projectId}/events/${bigUuid}/`)
        return res.status === 200 ? ((await res.json()) as { distinct_id: string; properties: { big: string } }) : undefined
      },
      { what: 'the megabyte event', timeoutMs: 15_000 },
    )
    expect(stored.properties.big).toHaveLength(big.length)
    // NUL cannot be stored in every database downstream: PostHog turns it into U+FFFD, and so do we.
    expect(stored.distinct_id).toBe('d\uFFFDnul')

    const invalidUtf8 = Buffer.concat([
      Buffer.from(`{"api_key":"${account.projectToken}","event":"bad utf8","distinct_id":"`),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ])
    expect((await post('/capture/', invalidUtf8, { 'content-type': 'application/json' })).status).toBeLessThan(500)
    await healthy()
  })

  it('takes batches of 0 and of 10,000 events', async () => {
    const fresh = await service.account()
    expect((await service.post('/batch/', { api_key: fresh.projectToken, batch: [] })).status).toBe(200)
    const batch = Array.from({ length: 10_000 }, (_, i) => ({ event: 'bulk', distinct_id: `u${i}` }))
    expect((await service.post('/batch/', { api_key: fresh.projectToken, batch })).status).toBe(200)
    const count = await waitFor(
      async () => {
        const page = await (await service.api(fresh, `/api/projects/${fresh.projectId}/events/?limit=1`)).json()
        return page.count === 10_000 ? page.count : undefined
      },
      { what: '10,000 events', timeoutMs: 20_000 },
    )
    expect(count).toBe(10_000)
  })

  it('survives bodies aborted in the middle of the upload', async () => {
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1', () => {
          socket.write(
            `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"api_key":"${account.projectToken}","batch":[`,
          )
          setTimeout(() => {
            socket.destroy()
            resolve()
          }, 5)
        })
        socket.on('error', () => resolve())
      })
    }
    await healthy()
    expect((await service.post('/capture/', { api_key: account.projectToken, event: 'after aborts', distinct_id: 'd' })).status).toBe(200)
  })
})
