import { execFile } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Config } from '@burrow/config'
import { createTestAccount, isolatedDatabaseUrl, removeTestDirs, waitFor, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../src/app'
import { createLogger } from '../src/logger'
import { loggedServiceConfig } from './loggedService'

const WEBHOOK = 5
const SECRET = 'hook-secret'

interface Received {
  uuid: string | undefined
  method: string | undefined
  body: string
  signature: string | undefined
  status: number
  headers: IncomingMessage['headers']
}

/** A webhook endpoint on a local port, answering as `answer` says, keeping every request. */
class Sink {
  readonly received: Received[] = []
  answer: (n: number) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 })
  /** How long it takes to answer. */
  delayMs = 0
  /** Requests it holds at the moment, and the most it held at once. */
  inFlight = 0
  maxInFlight = 0
  private server: Server | undefined
  port = 0

  async open(port = 0): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight)
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        const { status, headers } = this.answer(this.received.length)
        let uuid: string | undefined
        try {
          uuid = (JSON.parse(body) as { uuid?: string; id?: string }).uuid ?? (JSON.parse(body) as { id?: string }).id
        } catch {
          uuid = undefined
        }
        const respond = () => {
          this.inFlight--
          this.received.push({
            uuid,
            method: req.method,
            body,
            signature: req.headers['x-burrow-signature'] as string | undefined,
            status,
            headers: req.headers,
          })
          res.writeHead(status, headers).end()
        }
        if (this.delayMs > 0) setTimeout(respond, this.delayMs)
        else respond()
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    this.port = (this.server.address() as AddressInfo).port
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  delivered(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300)
  }
}

let config: Config
let app: RunningApp
let baseUrl: string

async function start(): Promise<void> {
  app = await startApp(config, createLogger(config))
  baseUrl = `http://127.0.0.1:${app.port}`
}

// Every server sends every project's due deliveries: this file's service has a database of its
// own, so that no other test file's service sends its deliveries (or counts against the bound on requests in flight).
let isolated: Awaited<ReturnType<typeof isolatedDatabaseUrl>>

beforeAll(async () => {
  isolated = await isolatedDatabaseUrl()
  config = await loggedServiceConfig({
    ...(isolated ? { DATABASE_URL: isolated.url } : {}),
    LOG_LEVEL: 'warn',
    WEBHOOK_RETRY_BASE_MS: 100,
    WEBHOOK_TIMEOUT_MS: 1000,
    PLUGIN_METRICS_FLUSH_MS: 200,
    // The endpoints of these tests listen on localhost.
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true,
  })
  await start()
})
afterAll(async () => {
  await app.stop()
  await isolated?.drop()
  removeTestDirs()
})

async function call(owner: TestAccount, method: string, p: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${p}`, {
    method,
    headers: { authorization: `Bearer ${owner.personalApiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const configsPath = (owner: TestAccount) => `/api/projects/${owner.projectId}/plugin_configs/`

async function capture(owner: TestAccount, batch: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${baseUrl}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: owner.projectToken, batch }),
  })
  expect(res.status).toBe(200)
}

async function webhookConfig(owner: TestAccount, sink: Sink, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await call(owner, 'POST', configsPath(owner), {
    plugin: WEBHOOK,
    enabled: true,
    config: { url: `http://127.0.0.1:${sink.port}/hook`, secret: SECRET, ...extra },
  })
  expect(res.status).toBe(201)
  return res.body.id as number
}

async function appMetrics(configId: number) {
  return app.deps.sql<{ successes: string; successes_on_retry: string; failures: string }[]>`
    select sum(successes) as successes, sum(successes_on_retry) as successes_on_retry, sum(failures) as failures
    from plugin_app_metrics where plugin_config_id = ${configId} and category = 'webhook'`
}

describe('Webhook Export', () => {
  it('delivers every stored event once, through failures, an endpoint down and a service restart; signed', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    // Fails twice (a 503, then a 429 asking for a short wait), then the endpoint goes away.
    sink.answer = (n) => (n === 0 ? { status: 503 } : n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 })
    const id = await webhookConfig(fresh, sink)
    const uuids = Array.from({ length: 6 }, () => randomUUID())
    await capture(
      fresh,
      uuids.map((uuid, i) => ({ event: 'purchase', uuid, distinct_id: `buyer-${i}`, properties: { amount: i } })),
    )
    await waitFor(() => (sink.received.length >= 2 ? true : undefined), { what: 'two failed attempts', timeoutMs: 15_000 })
    const port = sink.port
    await sink.close()

    await app.stop()
    await start()
    await sink.open(port)
    await waitFor(() => (new Set(sink.delivered().map((r) => r.uuid)).size >= uuids.length ? true : undefined), {
      what: 'every event delivered',
      timeoutMs: 30_000,
      intervalMs: 100,
    })
    // A moment more, for a second delivery of any event to show.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const delivered = sink.delivered()
    expect(delivered.map((r) => r.uuid).sort()).toEqual([...uuids].sort())
    for (const r of delivered) {
      expect(r.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`)
      const event = JSON.parse(r.body)
      expect(event).toMatchObject({ event: 'purchase', team_id: fresh.projectId })
      expect(event.properties.amount).toBeTypeOf('number')
    }

    const [metrics] = await waitFor(
      async () => {
        const rows = await appMetrics(id)
        return Number(rows[0]?.successes ?? 0) + Number(rows[0]?.successes_on_retry ?? 0) >= uuids.length ? rows : undefined
      },
      { what: 'the app metrics' },
    )
    expect(Number(metrics!.successes) + Number(metrics!.successes_on_retry)).toBe(uuids.length)
    expect(Number(metrics!.successes_on_retry)).toBeGreaterThanOrEqual(2)
    expect(Number(metrics!.failures)).toBe(0)
    expect((await call(fresh, 'GET', `${configsPath(fresh)}${id}/`)).body.delivery_rate_24h).toBe(1)
    const warnings = await call(fresh, 'GET', `${configsPath(fresh)}${id}/logs/?type_filter=WARN&search=answered%20503`)
    expect(warnings.body.count).toBe(1)
    await sink.close()
  })

  it('sends many events to one endpoint exactly once each, never more than WEBHOOK_CONCURRENCY requests at a time', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    sink.delayMs = 5
    const id = await webhookConfig(fresh, sink)
    const uuids = Array.from({ length: 600 }, () => randomUUID())
    for (let i = 0; i < uuids.length; i += 100) {
      await capture(
        fresh,
        uuids.slice(i, i + 100).map((uuid, j) => ({ event: 'bulk', uuid, distinct_id: `bulk-${(i + j) % 7}` })),
      )
    }
    await waitFor(() => (sink.delivered().length >= uuids.length ? true : undefined), {
      what: 'every event delivered',
      timeoutMs: 30_000,
      intervalMs: 100,
    })
    // A moment more, for a second delivery of any event to show.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(sink.received.map((r) => r.uuid).sort()).toEqual([...uuids].sort())
    // WEBHOOK_CONCURRENCY is 4 (the default): kept busy, never exceeded.
    expect(sink.maxInFlight).toBe(4)
    const rows = await app.deps.sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from plugin_webhook_outbox where plugin_config_id = ${id} group by status`
    expect(rows).toEqual([{ status: 'delivered', n: uuids.length }])
    const [metrics] = await waitFor(
      async () => {
        const rows = await appMetrics(id)
        return Number(rows[0]?.successes ?? 0) >= uuids.length ? rows : undefined
      },
      { what: 'the app metrics' },
    )
    expect(Number(metrics!.successes)).toBe(uuids.length)
    await sink.close()
  })

  it('sends only the listed events, with the payload template filled, by the method configured', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    await webhookConfig(fresh, sink, {
      events: 'signup, purchase',
      payload: { id: '{{event.uuid}}', text: 'User {{event.distinct_id}} did {{event.event}}', props: '{{event.properties}}' },
      headers: { 'x-team': 'growth' },
      // Any of PostHog's methods; a GET carries the body as the others do.
      method: 'GET',
    })
    const signup = randomUUID()
    await capture(fresh, [
      { event: 'signup', uuid: signup, distinct_id: 'u1', properties: { plan: 'pro' } },
      { event: 'pageview', uuid: randomUUID(), distinct_id: 'u1' },
    ])
    await waitFor(() => (sink.delivered().length >= 1 ? true : undefined), { what: 'a delivery' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sink.received).toHaveLength(1)
    const body = JSON.parse(sink.received[0]!.body)
    expect(body).toMatchObject({ id: signup, text: 'User u1 did signup', props: { plan: 'pro' } })
    expect(sink.received[0]!.headers['x-team']).toBe('growth')
    expect(sink.received[0]!.method).toBe('GET')
    await sink.close()
  })

  it('keeps what the endpoint refuses (4xx, not retried) for a replay from the CLI', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    sink.answer = () => ({ status: 400 })
    const id = await webhookConfig(fresh, sink)
    const uuid = randomUUID()
    await capture(fresh, [{ event: 'refused', uuid, distinct_id: 'r' }])
    const errors = await waitFor(
      async () => {
        const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${id}/logs/?type_filter=ERROR&search=${uuid}`)
        return body.results?.length >= 1 ? body : undefined
      },
      { what: 'the refusal logged' },
    )
    expect(errors.results[0].message).toContain('answered 400')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sink.received).toHaveLength(1)
    const rate = await waitFor(
      async () => {
        const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${id}/`)
        return body.delivery_rate_24h < 1 ? body.delivery_rate_24h : undefined
      },
      { what: 'the failure in the delivery rate' },
    )
    expect(rate).toBe(0)

    sink.answer = () => ({ status: 200 })
    const cli = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/admin/cli.ts', 'plugins', 'replay', '--config', String(id)],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: { ...process.env, DATA_DIR: config.DATA_DIR, ...(config.DATABASE_URL ? { DATABASE_URL: config.DATABASE_URL } : {}) },
      },
    )
    expect(cli.stdout).toContain(`1 undelivered event(s) of plugin config ${id} queued again`)
    await waitFor(() => (sink.delivered().length === 1 ? true : undefined), { what: 'the replayed delivery', timeoutMs: 15_000 })
    expect(sink.delivered()[0]!.uuid).toBe(uuid)
    await sink.close()
  })

  it('disables a config whose deliveries keep failing too long, with a SYSTEM log entry saying why', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    sink.answer = () => ({ status: 500 })
    const id = await webhookConfig(fresh, sink)
    const uuid = randomUUID()
    await capture(fresh, [{ event: 'doomed', uuid, distinct_id: 'x' }])
    await waitFor(() => (sink.received.length >= 1 ? true : undefined), { what: 'a first attempt' })
    // As if the delivery had been failing for days.
    await app.deps.sql`update plugin_webhook_outbox set created_at = now() - interval '4 days' where plugin_config_id = ${id}`
    const disabled = await waitFor(
      async () => {
        const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${id}/`)
        return body.enabled === false ? body : undefined
      },
      { what: 'the config disabled', timeoutMs: 15_000 },
    )
    expect(disabled.error.message).toContain('answered 500')
    // The entry is written just after the config is disabled.
    const entry = await waitFor(
      async () => {
        const logs = await call(fresh, 'GET', `${configsPath(fresh)}${id}/logs/?type_filter=ERROR&search=Plugin%20disabled`)
        return logs.body.results[0]
      },
      { what: 'the SYSTEM log entry' },
    )
    expect(entry).toMatchObject({ source: 'SYSTEM', type: 'ERROR' })
    expect(entry.message).toContain(`plugins replay --config ${id}`)
    await sink.close()
  })

  it('sends every stored event of the range in the historical export, those delivered before included, once per run, and logs how many', async () => {
    const fresh = await createTestAccount(app.deps.sql)
    const sink = new Sink()
    await sink.open()
    // The config exists as the events arrive: it delivers them as they are stored.
    const id = await webhookConfig(fresh, sink)
    const uuids = [randomUUID(), randomUUID()]
    await capture(fresh, [
      { event: 'old', uuid: uuids[0], distinct_id: 'h', timestamp: '2024-03-01T10:00:00Z' },
      { event: 'old', uuid: uuids[1], distinct_id: 'h', timestamp: '2024-03-02T10:00:00Z' },
      { event: 'outside', uuid: randomUUID(), distinct_id: 'h', timestamp: '2024-05-01T10:00:00Z' },
    ])
    await waitFor(() => (sink.delivered().length >= 3 ? true : undefined), { what: 'the events delivered as stored', timeoutMs: 20_000 })
    const deliveriesOf = (uuid: string) => sink.delivered().filter((r) => r.uuid === uuid).length

    // The destination lost them: the export sends the range's events again.
    const job = await call(fresh, 'POST', `${configsPath(fresh)}${id}/job/`, {
      job: { type: 'Export historical events', payload: { dateFrom: '2024-03-01', dateTo: '2024-04-01' } },
    })
    expect(job.status).toBe(200)
    await waitFor(() => (uuids.every((uuid) => deliveriesOf(uuid) >= 2) ? true : undefined), {
      what: 'the exported events',
      timeoutMs: 20_000,
    })
    const finished = async (runs: number) =>
      waitFor(
        async () => {
          const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${id}/logs/?search=Export%20historical%20events`)
          const messages: string[] = body.results.map((e: { message: string }) => e.message)
          return messages.filter((m) => m.includes('finished')).length >= runs ? messages : undefined
        },
        { what: `the job finished ${runs} time(s) in the log` },
      )
    const messages = await finished(1)
    expect(messages).toContain('Job "Export historical events" started.')
    expect(messages.some((m) => m.startsWith('Export historical events: 2 events read, 2 sent for delivery'))).toBe(true)
    expect(messages.some((m) => m.includes('finished: 2 events from 2024-03-01T00:00:00.000Z to 2024-04-01T00:00:00.000Z sent'))).toBe(true)
    const [row] = await app.deps.sql<{ id: string; status: string }[]>`select id, status from plugin_jobs where plugin_config_id = ${id}`
    expect(row!.status).toBe('done')

    // The same run taken again, as when its server dies before recording the end: nothing is sent twice for it.
    await app.deps.sql`update plugin_jobs set status = 'running', leased_until = now() - interval '1 second' where id = ${row!.id}`
    await finished(2)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(uuids.map(deliveriesOf)).toEqual([2, 2])
    expect(sink.delivered()).toHaveLength(5)
    await sink.close()
  })

  it('does not send to a private address unless the operator allows it, and keeps the delivery for a replay', async () => {
    await app.stop()
    config = { ...config, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false }
    await start()
    try {
      const sink = new Sink()
      await sink.open()
      // By address and by a name that resolves to it (a project has one config of a plugin).
      const [byAddress, byName] = [await createTestAccount(app.deps.sql), await createTestAccount(app.deps.sql)]
      const configs = [
        [byAddress, await webhookConfig(byAddress, sink)],
        [byName, await webhookConfig(byName, sink, { url: `http://localhost:${sink.port}/hook` })],
      ] as const
      const uuid = randomUUID()
      for (const [owner] of configs) await capture(owner, [{ event: 'inward', uuid, distinct_id: 'i' }])
      for (const [fresh, id] of configs) {
        const errors = await waitFor(
          async () => {
            const { body } = await call(fresh, 'GET', `${configsPath(fresh)}${id}/logs/?type_filter=ERROR&search=${uuid}`)
            return body.results?.length >= 1 ? body : undefined
          },
          { what: 'the refusal logged' },
        )
        expect(errors.results[0].message).toMatch(/private or reserved address; set WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true/)
      }
      const kept = await app.deps.sql<{ status: string }[]>`
        select status from plugin_webhook_outbox where event_uuid = ${uuid} order by plugin_config_id`
      expect(kept.map((r) => r.status)).toEqual(['failed', 'failed'])
      expect(sink.received).toHaveLength(0)
      await sink.close()
    } finally {
      await app.stop()
      config = { ...config, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true }
      await start()
    }
  })
})
