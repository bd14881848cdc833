import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { randomUUID } from 'node:crypto'
import LZString from 'lz-string'
import { describe, expect, it } from 'vitest'
import { problems } from '@burrow/contracts'
import { waitFor, type TestAccount } from '@burrow/testing'
import { DEFAULT_DISCARD } from '../src/http/uwsServer'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount

useTestService(
  (s, a) => {
    service = s
    account = a
  },
  // A small body limit, so that refused uploads are quick to send.
  { EVENT_LOOP_SAMPLE_MS: 2, MAX_BODY_BYTES: 256 * 1024 },
)

const event = (name: string, distinctId: string, extra: Record<string, unknown> = {}) => ({
  event: name,
  properties: { distinct_id: distinctId },
  ...extra,
})

describe('every body form lands', () => {
  it('stores events sent as JSON, arrays, batches, forms, base64, gzip and lz64 on every capture path', async () => {
    const token = account.projectToken
    const run = randomUUID().slice(0, 8)
    const id = (n: number) => `${run}-${n}`
    const sent: Array<{ path: string; body: string | Buffer; headers?: Record<string, string> }> = [
      { path: '/capture/', body: JSON.stringify({ api_key: token, ...event('json', id(1)) }) },
      { path: '/capture', body: JSON.stringify([{ ...event('array', id(2)), properties: { distinct_id: id(2), token } }]) },
      { path: '/batch/', body: JSON.stringify({ api_key: token, batch: [event('batch', id(3)), event('batch', id(4))] }) },
      {
        path: '/e/',
        body: gzipSync(JSON.stringify({ api_key: token, batch: [event('bare-gzip', id(5))] })),
        headers: { 'content-type': 'text/plain' },
      },
      {
        path: '/i/v0/e/',
        body: gzipSync(JSON.stringify({ api_key: token, batch: [event('content-encoding', id(6))] })),
        headers: { 'content-encoding': 'gzip' },
      },
      {
        path: '/track/?compression=base64',
        body: `data=${encodeURIComponent(Buffer.from(JSON.stringify({ api_key: token, ...event('form-b64', id(7)) })).toString('base64'))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      {
        path: '/e',
        body: `data=${encodeURIComponent(LZString.compressToBase64(JSON.stringify([{ token, ...event('lz64', id(8)) }])))}&compression=lz64`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      { path: '/engage/', body: JSON.stringify({ token, distinct_id: id(9), $set: { plan: 'pro' } }) },
      { path: '/batch?compression=gzip-js', body: gzipSync(JSON.stringify([{ api_key: token, ...event('query-gzip', id(10)) }])) },
    ]
    for (const { path, body, headers } of sent) {
      const res = await service.post(path, body, headers)
      expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 200, body: { status: 1 } })
    }
    const stored = await service.eventsOf(account, 10, `&after=2000-01-01`)
    const mine = stored.filter((e) => String(e.distinct_id).startsWith(run))
    expect(mine.map((e) => `${e.event}:${e.distinct_id}`).sort()).toEqual(
      [
        `json:${id(1)}`,
        `array:${id(2)}`,
        `batch:${id(3)}`,
        `batch:${id(4)}`,
        `bare-gzip:${id(5)}`,
        `content-encoding:${id(6)}`,
        `form-b64:${id(7)}`,
        `lz64:${id(8)}`,
        `$identify:${id(9)}`,
        `query-gzip:${id(10)}`,
      ].sort(),
    )
    const identify = mine.find((e) => e.event === '$identify')
    expect(identify?.properties.$set).toEqual({ plan: 'pro' })
  })
})

describe('batches ClickHouse partitions', () => {
  it('stores a batch whose events span more than a hundred months, and what follows it', async () => {
    const fresh = await service.account()
    const months = Array.from({ length: 150 }, (_, i) =>
      event(`month ${i}`, 'backfill', { timestamp: new Date(Date.UTC(2010, i, 15)).toISOString() }),
    )
    expect((await service.post('/batch/', { api_key: fresh.projectToken, batch: months })).status).toBe(200)
    expect((await service.post('/capture/', event('after the backfill', 'backfill', { api_key: fresh.projectToken }))).status).toBe(200)
    const stored = await service.eventsOf(fresh, 151, '&after=2000-01-01T00:00:00Z')
    expect(stored).toHaveLength(151)
  })
})

describe('text ClickHouse cannot take as it is', () => {
  it('stores lone surrogates as U+FFFD in names, distinct ids and properties, as JSON escapes and from lz64, and stores what follows', async () => {
    const fresh = await service.account()
    // JSON.stringify writes a lone surrogate as an escape ("\ud800"); lz64 carries it as it is.
    const lonely = [
      { event: 'lone\ud800name', distinct_id: 'lone\udc00id', properties: { 'key\udbff': ['v\udfff', 'pair \ud83d\ude00'] } },
      event('clean neighbour', 'neighbour'),
    ]
    expect((await service.post('/batch/', { api_key: fresh.projectToken, batch: lonely })).status).toBe(200)
    const lz64 = LZString.compressToBase64(
      JSON.stringify({ api_key: fresh.projectToken, batch: [event('lz\ud800', 'lz-user')] }).replace('\\ud800', '\ud800'),
    )
    expect(
      (
        await service.post('/batch/?compression=lz64', `data=${encodeURIComponent(lz64)}`, {
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(200)
    expect((await service.post('/capture/', event('after them', 'neighbour', { api_key: fresh.projectToken }))).status).toBe(200)

    const stored = await service.eventsOf(fresh, 4)
    const byName = Object.fromEntries(stored.map((e) => [e.event, e]))
    expect(Object.keys(byName).sort()).toEqual(['after them', 'clean neighbour', 'lone\uFFFDname', 'lz\uFFFD'])
    expect(byName['lone\uFFFDname']).toMatchObject({
      distinct_id: 'lone\uFFFDid',
      properties: { 'key\uFFFD': ['v\uFFFD', 'pair \ud83d\ude00'] },
    })
  })
})

describe('silent drops', () => {
  it('drops events without a name or distinct_id but answers 200 and keeps their neighbours', async () => {
    const fresh = await service.account()
    const res = await service.post('/batch/', {
      api_key: fresh.projectToken,
      batch: [{ properties: { distinct_id: 'no-name' } }, { event: 'no-id' }, { event: 'empty-id', distinct_id: '' }, event('kept', 'k1')],
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 1 })
    // A spool lane's frames are stored in order: once the marker sent after the batch is stored,
    // so is everything of the batch that ever will be.
    expect((await service.post('/capture/', event('marker', 'k1', { api_key: fresh.projectToken }))).status).toBe(200)
    const stored = await service.eventsOf(fresh, 2)
    expect(stored.filter((e) => e.event !== 'marker').map((e) => e.event)).toEqual(['kept'])
    expect(stored).toHaveLength(2)
    const metrics = await (await fetch(`${service.baseUrl}/_metrics`)).text()
    expect(metrics).toMatch(/burrow_events_dropped_total\{reason="missing_event_name"\} [1-9]/)
    expect(metrics).toMatch(/burrow_events_dropped_total\{reason="empty_distinct_id"\} [1-9]/)
  })
})

describe('errors', () => {
  it('answers 401 invalid_api_key for an unknown project key', async () => {
    const res = await service.post('/capture/', { api_key: 'phc_unknown', ...event('e', 'd') })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
  })

  it('answers 401 when no key is given at all', async () => {
    const res = await service.post('/capture/', event('e', 'd'))
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' })
  })

  it('accepts a personal API key with project_id, and answers the spec’s errors when either is wrong', async () => {
    const fresh = await service.account()
    const ok = await service.post('/capture/', { api_key: fresh.personalApiKey, project_id: fresh.projectId, ...event('personal', 'p1') })
    expect(ok.status).toBe(200)
    expect((await service.eventsOf(fresh, 1))[0]).toMatchObject({ event: 'personal', distinct_id: 'p1' })

    const badKey = await service.post('/capture/', { api_key: 'phx_wrong', project_id: fresh.projectId, ...event('e', 'd') })
    expect(badKey.status).toBe(401)
    expect(await badKey.json()).toEqual({
      type: 'authentication_error',
      code: 'invalid_personal_api_key',
      detail: 'Invalid Personal API key.',
      attr: null,
    })
    // A project of another organization is as unknown as a missing one.
    const other = await service.account()
    const badProject = await service.post('/capture/', { api_key: fresh.personalApiKey, project_id: other.projectId, ...event('e', 'd') })
    expect(badProject.status).toBe(400)
    expect(await badProject.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_project',
      detail: 'Invalid Project ID.',
      attr: 'project_id',
    })
  })

  it('answers 400 with a JSON error body for malformed JSON', async () => {
    const res = await service.post('/capture/', '{"event": "x", ')
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_payload' })
  })

  it('answers 413 with a JSON error for a body over MAX_BODY_BYTES', async () => {
    const pad = 'x'.repeat(2 * service.config.MAX_BODY_BYTES)
    const res = await service.post('/batch/', { api_key: account.projectToken, batch: [event('big', 'd', { properties: { pad } })] })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ type: 'client_error', code: 'request_too_large' })
  })
})

describe('bodies over MAX_BODY_BYTES', () => {
  /** A body without a declared length (sent chunked). */
  const streamOf = (bytes: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let left = bytes; left > 0; left -= 64 * 1024) controller.enqueue(new Uint8Array(Math.min(64 * 1024, left)).fill(120))
        controller.close()
      },
    })

  it('answers 413 with the catalogue body to 20 fetch uploads at once and to one that stalls, serving a neighbour meanwhile', async () => {
    const limit = service.config.MAX_BODY_BYTES
    const tooLarge = problems.tooLarge('The request body').body
    const started = performance.now()
    // An upload that stops half-way holds its connection until the time bound, then reads the 413 written at it.
    let stalledFreed = false
    const stalled = new Promise<{ answer: string; error: unknown; afterMs: number }>((resolve) => {
      let answer = ''
      let error: unknown
      const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1', () =>
        socket.write(
          `POST /batch/ HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${4 * limit}\r\n\r\n{"batch": [`,
        ),
      )
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
      socket.on('error', (err) => (error = err))
      socket.on('close', () => {
        stalledFreed = true
        resolve({ answer, error, afterMs: performance.now() - started })
      })
    })
    const refused = Array.from({ length: 20 }, async (_, i) => {
      const body = i % 2 === 0 ? { body: Buffer.alloc(4 * limit, 120) } : { body: streamOf(4 * limit), duplex: 'half' }
      const res = await fetch(`${service.baseUrl}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, ...body })
      return { status: res.status, body: await res.json() }
    })
    const name = `neighbour ${randomUUID()}`
    const neighbour = await service.post('/capture/', { api_key: account.projectToken, ...event(name, 'n') })
    expect(neighbour.status).toBe(200)
    expect(stalledFreed).toBe(false)

    expect(await Promise.all(refused)).toEqual(Array.from({ length: 20 }, () => ({ status: 413, body: tooLarge })))
    expect((await service.eventsOf(account, 1, `&event=${encodeURIComponent(name)}`)).map((e) => e.event)).toEqual([name])
    const { answer, error, afterMs } = await stalled
    expect(error).toBeUndefined()
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(tooLarge)
    expect(afterMs).toBeGreaterThan(DEFAULT_DISCARD.ms / 2)
  })
})

describe('browsers and operations', () => {
  it('answers CORS preflight on capture paths, mirroring the origin', async () => {
    const res = await fetch(`${service.baseUrl}/e/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-headers': 'content-type' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type')
  })

  it('answers CORS headers to requests with an Origin, and none to server-side ones, as PostHog', async () => {
    const body = { api_key: account.projectToken, ...event('cors', 'd') }
    const browser = await service.post('/e/', body, { origin: 'https://app.example' })
    expect(browser.status).toBe(200)
    expect(browser.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(browser.headers.get('access-control-allow-credentials')).toBe('true')
    expect(browser.headers.get('vary')).toBe('Origin')
    const server = await service.post('/e/', body)
    expect(server.status).toBe(200)
    expect(server.headers.get('access-control-allow-origin')).toBeNull()
    expect(await server.json()).toEqual({ status: 1 })
  })

  it('records $ip unless the project anonymises IPs, and follows the setting when it changes', async () => {
    const fresh = await service.account()
    await service.post('/capture/', { api_key: fresh.projectToken, ...event('with-ip', 'd') })
    expect((await service.eventsOf(fresh, 1))[0]?.properties.$ip).toBe('127.0.0.1')
    const patch = await service.api(fresh, `/api/projects/${fresh.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ anonymize_ips: true }),
    })
    expect(patch.status).toBe(200)
    await service.post('/capture/', { api_key: fresh.projectToken, ...event('without-ip', 'd') })
    const [newest] = await service.eventsOf(fresh, 1, '&event=without-ip')
    expect(newest?.properties).not.toHaveProperty('$ip')
  })

  it('creates event definitions for new event names and marks the project as ingesting', async () => {
    const fresh = await service.account()
    await service.post('/batch/', {
      api_key: fresh.projectToken,
      batch: [event('signed up', 'a'), event('signed up', 'b'), event('paid', 'a')],
    })
    await service.eventsOf(fresh, 3)
    // Definitions are written once their batch is stored, so they may trail the events by a moment.
    const sql = service.app.deps.sql
    const names = await waitFor(
      async () => {
        const rows = await sql<{ name: string }[]>`select name from event_definitions where project_id = ${fresh.projectId} order by name`
        return rows.length >= 2 ? rows.map((r) => r.name) : undefined
      },
      { what: 'event definitions' },
    )
    expect(names).toEqual(['paid', 'signed up'])
    await waitFor(
      async () => {
        const project = await (await service.api(fresh, `/api/projects/${fresh.projectId}/`)).json()
        return project.ingested_event === true ? true : undefined
      },
      { what: 'the project marked as ingesting' },
    )
  })

  it('answers HEAD as GET without the body, so the next request on the connection is read right', async () => {
    const port = Number(new URL(service.baseUrl).port)
    // One keep-alive connection: a body sent after the HEAD answer would be read as the start of the next answer.
    const raw = await new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = connect(port, '127.0.0.1', () => socket.write('HEAD /_health HTTP/1.1\r\nHost: t\r\n\r\n'))
      // A body the server wrote after the HEAD answer would come before the GET's answer, whenever the GET is sent.
      socket.on('data', (chunk) => {
        const first = text === ''
        text += chunk.toString('latin1')
        if (first) socket.write('GET /_health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
      })
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    const answers = raw.split(/(?=HTTP\/1\.1 )/)
    expect(answers).toHaveLength(2)
    const [head, get] = answers as [string, string]
    const getBody = get.slice(get.indexOf('\r\n\r\n') + 4)
    expect(JSON.parse(getBody)).toEqual({ status: 'ok' })
    expect(head).toMatch(/^HTTP\/1\.1 200 /)
    expect(head.endsWith('\r\n\r\n')).toBe(true)
    expect(head).toMatch(new RegExp(`content-length: ${Buffer.byteLength(getBody)}\r\n`, 'i'))
  })

  it('reports health and Prometheus metrics', async () => {
    const health = await fetch(`${service.baseUrl}/_health`)
    expect(health.status).toBe(200)
    const metrics = await (await fetch(`${service.baseUrl}/_metrics`)).text()
    for (const name of [
      'burrow_events_accepted_total',
      'burrow_batch_size_rows',
      'burrow_flush_duration_seconds',
      'burrow_buffer_depth_rows',
      'burrow_http_requests_total',
    ]) {
      expect(metrics).toContain(name)
    }
    // Sampled every 2 ms (EVENT_LOOP_SAMPLE_MS), the shortest gap between samples is well under
    // the default interval of 10 ms.
    const lagMin = Number(/^nodejs_eventloop_lag_min_seconds (\S+)$/m.exec(metrics)?.[1])
    expect(lagMin).toBeGreaterThan(0)
    expect(lagMin).toBeLessThan(0.006)
  })
})
