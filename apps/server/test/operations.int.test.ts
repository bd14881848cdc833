import { createTestAccount, isolatedDatabaseUrl, removeTestDirs, waitFor, type TestAccount } from '@burrow/testing'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { metricValue, startLoggedService, type LoggedService } from './loggedService'

const TOKEN = 'scrape-secret-token'

describe('probes, metrics and logs', () => {
  let service: LoggedService
  let account: TestAccount
  beforeAll(async () => {
    service = await startLoggedService({ METRICS_TOKEN: TOKEN, LOG_LEVEL: 'debug' })
    account = await createTestAccount(service.app.deps.sql)
  })
  afterAll(async () => {
    await service?.app.stop()
    removeTestDirs()
  })
  const scrape = async () => (await fetch(`${service.baseUrl}/_metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()

  it('answers liveness, and readiness with each dependency, the spool and the disk, beside the /_health it always had', async () => {
    for (const path of ['/_livez', '/_health/live']) {
      const res = await fetch(`${service.baseUrl}${path}`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'ok' })
    }
    expect(await (await fetch(`${service.baseUrl}/_health`)).json()).toEqual({ status: 'ok' })
    const ready = await fetch(`${service.baseUrl}/_readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({
      version: expect.any(String),
      commit: expect.any(String),
      status: 'ok',
      checks: {
        postgres: { status: 'ok', critical: false, latency_ms: expect.any(Number) },
        clickhouse: { status: 'ok', critical: false, latency_ms: expect.any(Number) },
        ...(service.config.REDIS_URL ? { redis: { status: 'ok', critical: false, latency_ms: expect.any(Number) } } : {}),
        // Storing into ClickHouse: failing only once several attempts in a row have failed.
        ingestion: { status: 'ok', critical: false },
        spool: { status: 'ok', critical: true, used_bytes: expect.any(Number), max_bytes: service.config.SPOOL_MAX_BYTES },
        disk: {
          status: 'ok',
          critical: true,
          free_bytes: expect.any(Number),
          total_bytes: expect.any(Number),
          reserve_bytes: service.config.DISK_RESERVE_BYTES + service.config.SPOOL_SEGMENT_BYTES,
        },
      },
    })
  })

  it('serves /_metrics only with the bearer token when METRICS_TOKEN is set', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }] as Array<Record<string, string>>) {
      const res = await fetch(`${service.baseUrl}/_metrics`, { headers })
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ type: 'authentication_error', code: 'not_authenticated' })
    }
    expect((await fetch(`${service.baseUrl}/_metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200)
  })

  it('measures the private API by route pattern and /decide/ and /flags/ by name, and says what runs and what is up', async () => {
    const project = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/`, {
      headers: { authorization: `Bearer ${account.personalApiKey}` },
    })
    expect(project.status).toBe(200)
    for (const path of ['/decide/?v=3', '/flags/?v=2']) {
      const res = await fetch(`${service.baseUrl}${path}`, {
        method: 'POST',
        body: JSON.stringify({ api_key: account.projectToken, distinct_id: 'u1' }),
      })
      expect(res.status).toBe(200)
    }
    const text = await scrape()
    expect(metricValue(text, 'burrow_http_request_duration_seconds_count{route="/api/projects/:id/",method="GET"}')).toBe(1)
    expect(text).not.toContain(`route="/api/projects/${account.projectId}/"`)
    expect(metricValue(text, 'burrow_http_request_duration_seconds_count{route="decide",method="POST"}')).toBeGreaterThanOrEqual(1)
    expect(metricValue(text, 'burrow_http_request_duration_seconds_count{route="flags",method="POST"}')).toBeGreaterThanOrEqual(1)
    expect(text).toMatch(/^burrow_build_info\{version="\d+\.\d+\.\d+[^"]*",commit="[^"]+",node_version="v\d+[^"]*"\} 1$/m)
    expect(metricValue(text, 'burrow_dependency_up{dependency="postgres"}')).toBe(1)
    expect(metricValue(text, 'burrow_dependency_up{dependency="clickhouse"}')).toBe(1)
    expect(metricValue(text, 'burrow_dead_letter_queue_rows')).toBeGreaterThanOrEqual(0)
    expect(metricValue(text, 'burrow_spool_oldest_event_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(text).toContain('# TYPE burrow_consumer_failures_total counter')
    expect(metricValue(text, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0)
  })

  it('says from the start what an on-call reads: room on disk and in the spool, refusals by reason at 0, readiness, the runtime under its usual names', async () => {
    const text = await scrape()
    expect(metricValue(text, 'burrow_disk_free_bytes')).toBeGreaterThan(0)
    expect(metricValue(text, 'burrow_disk_total_bytes')).toBeGreaterThanOrEqual(metricValue(text, 'burrow_disk_free_bytes')!)
    expect(metricValue(text, 'burrow_disk_reserve_bytes')).toBe(service.config.DISK_RESERVE_BYTES + service.config.SPOOL_SEGMENT_BYTES)
    expect(metricValue(text, 'burrow_spool_max_bytes')).toBe(service.config.SPOOL_MAX_BYTES)
    expect(metricValue(text, 'burrow_disk_below_reserve')).toBe(0)
    for (const direction of ['below', 'above'])
      expect(metricValue(text, `burrow_disk_reserve_crossings_total{direction="${direction}"}`)).toBe(0)
    for (const reason of ['spool_full', 'disk_full', 'spool_write_failed', 'draining', 'quota'])
      expect(metricValue(text, `burrow_capture_refused_total{reason="${reason}"}`)).toBe(0)
    for (const stage of ['read', 'prepare', 'insert', 'handoff', 'advance'])
      expect(metricValue(text, `burrow_consumer_failures_total{stage="${stage}"}`)).toBe(0)
    expect(metricValue(text, 'burrow_ready')).toBe(1)
    expect(metricValue(text, 'burrow_readiness_check_ok{check="disk"}')).toBe(1)
    expect(metricValue(text, 'burrow_readiness_check_ok{check="postgres"}')).toBe(1)
    // prom-client's runtime metrics under the names the usual Node.js dashboards read.
    expect(metricValue(text, 'process_start_time_seconds')).toBeGreaterThan(1_700_000_000)
    expect(metricValue(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
    expect(text).not.toMatch(/^burrow_(process|nodejs)_/m)
  })

  it('times events from acknowledgement to ClickHouse', async () => {
    const res = await fetch(`${service.baseUrl}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: account.projectToken, event: 'timed', distinct_id: 'u1' }),
    })
    expect(res.status).toBe(200)
    await waitFor(async () => ((metricValue(await scrape(), 'burrow_event_store_delay_seconds_count') ?? 0) >= 1 ? true : undefined), {
      what: 'the event timed once stored',
      timeoutMs: 60_000,
    })
  })

  it('serves every metric the shipped Grafana dashboard and Prometheus alert rules read', async () => {
    const monitoring = path.join(import.meta.dirname, '../../../docker/monitoring')
    const dashboard = JSON.parse(readFileSync(path.join(monitoring, 'grafana-dashboard.json'), 'utf8')) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>
    }
    const rules = parseYaml(readFileSync(path.join(monitoring, 'alerts.yml'), 'utf8')) as {
      groups: Array<{ rules: Array<{ expr: string }> }>
    }
    const expressions = [
      ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
      ...rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr)),
    ]
    // A histogram is read through its series' suffixes; Prometheus' own `up` and functions are not ours.
    const named = new Set(
      expressions.flatMap((expr) =>
        [...expr.matchAll(/\b((?:burrow|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')),
      ),
    )
    expect(named.size).toBeGreaterThan(20)
    const served = new Set([...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!))
    expect([...named].filter((name) => !served.has(name))).toEqual([])
  })

  it('says at start which cache it uses, and that Redis does not answer only when it does not', () => {
    const [cache] = service.log.matching(/^cache: /)
    expect(cache?.msg).toMatch(service.config.REDIS_URL ? /^cache: redis [^ ]+$/ : /^cache: memory$/)
  })

  it('logs each request at debug level with its route, status and duration, and every line with its host and process', async () => {
    await fetch(`${service.baseUrl}/api/projects/${account.projectId}/`, { headers: { authorization: `Bearer ${account.personalApiKey}` } })
    await waitFor(() => service.log.lines.find((line) => line.msg === 'request' && line.route === '/api/projects/:id/'), {
      what: 'the request log line',
    })
    const line = service.log.lines.find((l) => l.msg === 'request' && l.route === '/api/projects/:id/')
    expect(line).toMatchObject({ level: 20, method: 'GET', status: 200, path: `/api/projects/${account.projectId}/` })
    expect(line!.duration_ms).toBeGreaterThan(0)
    // Capture is answered by the capture thread, which tells the main thread's log of it.
    const capture = await fetch(`${service.baseUrl}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: account.projectToken, event: 'logged', distinct_id: 'u1' }),
    })
    expect(capture.status).toBe(200)
    const captured = await waitFor(() => service.log.lines.find((l) => l.msg === 'request' && l.route === 'capture'), {
      what: 'the capture request log line',
    })
    expect(captured).toMatchObject({ level: 20, method: 'POST', path: '/capture/', status: 200 })
    for (const l of service.log.lines) expect(l).toMatchObject({ pid: process.pid, hostname: expect.any(String), service: 'burrow' })
  })
})

describe('metrics on a port of their own, a full spool, and the first account', () => {
  let service: LoggedService
  let database: Awaited<ReturnType<typeof isolatedDatabaseUrl>>
  const stderr: string[] = []
  let metricsUrl: string
  beforeAll(async () => {
    // The first account is created on an empty database only.
    database = await isolatedDatabaseUrl()
    const write = process.stderr.write.bind(process.stderr)
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: any[]) => {
      stderr.push(String(chunk))
      return write(chunk, ...rest)
    })
    service = await startLoggedService({
      ...(database ? { DATABASE_URL: database.url } : {}),
      METRICS_PORT: 0,
      SPOOL_SEGMENT_BYTES: 1 << 20,
      SPOOL_MAX_BYTES: 2 << 20,
      CAPTURE_THREADS: 0,
    })
    vi.restoreAllMocks()
    const port = /^metrics on [^:]+:(\d+)$/.exec(service.log.matching(/^metrics on /)[0]!.msg)?.[1]
    metricsUrl = `http://127.0.0.1:${port}`
  })
  afterAll(async () => {
    await service?.app.stop()
    await database?.drop()
    removeTestDirs()
  })

  it('prints the first account’s personal API key once, on stderr, and keeps it out of the JSON log', () => {
    const created = service.log.matching(/^created the first account/)
    if (!database) return
    expect(created).toHaveLength(1)
    const key = /\n {4}(phx_\w+)\n/.exec(stderr.join(''))?.[1]
    expect(key).toMatch(/^phx_/)
    expect(JSON.stringify(service.log.lines)).not.toContain(key)
    expect(created[0]).not.toHaveProperty('personal_api_key')
  })

  it('serves /_metrics and the probes on METRICS_PORT, and not /_metrics on the service port', async () => {
    expect((await fetch(`${service.baseUrl}/_metrics`)).status).toBe(404)
    const metrics = await fetch(`${metricsUrl}/_metrics`)
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toContain('burrow_build_info')
    expect((await fetch(`${metricsUrl}/_readyz`)).status).toBe(200)
    expect((await fetch(`${metricsUrl}/capture/`, { method: 'POST', body: '{}' })).status).toBe(404)
  })

  it('is not ready while its spool is full, saying so, and ready again once ClickHouse takes the events in', async () => {
    const account = await createTestAccount(service.app.deps.sql)
    const ch = service.app.deps.ch.writer
    await ch.command({ query: 'RENAME TABLE events TO events_offline' })
    try {
      const padding = 'x'.repeat(2_000)
      const batch = Array.from({ length: 50 }, (_, i) => ({ event: 'filler', distinct_id: `u${i}`, properties: { padding } }))
      let refused = false
      for (let i = 0; i < 100 && !refused; i++) {
        const res = await fetch(`${service.baseUrl}/batch/`, {
          method: 'POST',
          body: JSON.stringify({ api_key: account.projectToken, batch }),
        })
        refused = res.status === 503
      }
      expect(refused).toBe(true)
      const full = await fetch(`${service.baseUrl}/_readyz`)
      expect(full.status).toBe(503)
      const body = (await full.json()) as { status: string; checks: Record<string, Record<string, unknown>> }
      expect(body.status).toBe('unavailable')
      expect(body.checks.spool).toMatchObject({ status: 'failing', critical: true, error: expect.stringMatching(/spool .* is full/) })
      expect(Number(body.checks.spool!.used_bytes)).toBeGreaterThan(0.95 * (2 << 20))
      const metrics = await (await fetch(`${metricsUrl}/_metrics`)).text()
      expect(metricValue(metrics, 'burrow_spool_oldest_event_age_seconds')).toBeGreaterThan(0)
      // What an alert reads: the refusals counted by reason, and readiness at 0.
      expect(metricValue(metrics, 'burrow_capture_refused_total{reason="spool_full"}')).toBeGreaterThanOrEqual(1)
      expect(metricValue(metrics, 'burrow_capture_refused_total{reason="disk_full"}')).toBe(0)
      expect(metricValue(metrics, 'burrow_ready')).toBe(0)
      expect(metricValue(metrics, 'burrow_readiness_check_ok{check="spool"}')).toBe(0)
    } finally {
      await ch.command({ query: 'RENAME TABLE events_offline TO events' })
    }
    await waitFor(async () => ((await fetch(`${service.baseUrl}/_readyz`)).status === 200 ? true : undefined), {
      what: 'readiness once the spool drains',
      timeoutMs: 30_000,
    })
  }, 60_000)
})
