import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { setEventsTable, useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
// Two capture threads on the port; a small spool bound, so that an outage fills it within a test.
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  { CAPTURE_THREADS: 2, SPOOL_MAX_BYTES: 150_000, SPOOL_SEGMENT_BYTES: 150_000, BATCH_MAX_AGE_MS: 20 },
)

const metricsText = async () => (await fetch(`${service.baseUrl}/_metrics`)).text()
const metricValue = (text: string, series: string) =>
  Number(
    text
      .split('\n')
      .find((line) => line.startsWith(`${series} `))
      ?.split(' ')[1] ?? 0,
  )

describe('with capture served by threads of their own', () => {
  it('stores the events of many connections, spread over the threads and their spool lanes, each once', async () => {
    const before = metricValue(await metricsText(), 'burrow_events_accepted_total')
    // Separate connections, so that the kernel hands them to both threads.
    const uuids = Array.from({ length: 60 }, () => randomUUID())
    const answers = await Promise.all(
      uuids.map((uuid, i) =>
        fetch(`${service.baseUrl}/capture/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ api_key: account.projectToken, event: 'threaded', distinct_id: `t-${i % 7}`, uuid }),
        }),
      ),
    )
    expect(answers.map((res) => res.status)).toEqual(uuids.map(() => 200))
    const stored = await service.eventsOf(account, uuids.length, '&event=threaded')
    expect(stored.map((e) => e.id).sort()).toEqual([...uuids].sort())

    // Both lanes were written to: each thread acknowledged from its own spool.
    const spool = path.join(service.config.DATA_DIR, 'spool')
    expect(readdirSync(spool)).toContain('lane-1')
    // One /_metrics for the process: the threads' counts are in it.
    const text = await metricsText()
    expect(metricValue(text, 'burrow_events_accepted_total') - before).toBe(uuids.length)
    expect(text).toMatch(/^burrow_capture_eventloop_lag_max_seconds \d/m)
    expect(text).toMatch(/^burrow_capture_eventloop_busy_max_seconds \d/m)
    expect(text).toMatch(/^burrow_eventloop_busy_max_seconds \d/m)
    expect(text).toMatch(/^burrow_http_requests_total\{route="capture",status="200"\} \d+/m)
  })

  it('answers what is not capture from the main thread, and refuses unknown project keys', async () => {
    const me = await service.api(account, '/api/users/@me/')
    expect(me.status).toBe(200)
    expect(((await me.json()) as { id: number }).id).toBe(account.userId)
    const refused = await service.post('/capture/', { api_key: 'phc_not_a_project', event: 'x', distinct_id: 'd' })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
    const flags = await service.post('/decide/?v=3', { api_key: account.projectToken, distinct_id: 'd' })
    expect(flags.status).toBe(200)
    expect(await flags.json()).toMatchObject({ featureFlags: {} })
    expect((await fetch(`${service.baseUrl}/_health`)).status).toBe(200)
  })

  it('forgets a deleted project in every thread', async () => {
    const fresh = await service.account()
    expect((await service.post('/capture/', { api_key: fresh.projectToken, event: 'before', distinct_id: 'd' })).status).toBe(200)
    expect((await service.api(fresh, `/api/projects/${fresh.projectId}/`, { method: 'DELETE' })).status).toBe(204)
    // Fresh connections reach either thread; each must have heard of the deletion.
    const statuses = await waitFor(
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 8 }, () =>
            fetch(`${service.baseUrl}/capture/`, {
              method: 'POST',
              headers: { connection: 'close' },
              body: JSON.stringify({ api_key: fresh.projectToken, event: 'late', distinct_id: 'd' }),
            }).then((res) => res.status),
          ),
        )
        return answers.every((status) => status === 401) ? answers : undefined
      },
      { what: 'every thread refusing the deleted project', timeoutMs: 5_000 },
    )
    expect(statuses).toHaveLength(8)
  })

  it('bounds the spool across the threads: 503 at the bound while ClickHouse is away, everything stored once it is back', async () => {
    await setEventsTable(service, false)
    let acknowledged = 0
    let refused: Response | undefined
    try {
      for (let i = 0; i < 100 && !refused; i++) {
        const batch = Array.from({ length: 20 }, (_, j) => ({
          event: 'bounded',
          distinct_id: `b-${i}-${j}`,
          properties: { pad: 'x'.repeat(200) },
        }))
        const res = await fetch(`${service.baseUrl}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ api_key: account.projectToken, batch }),
        })
        if (res.status === 200) acknowledged += 20
        else refused = res
      }
      expect(acknowledged).toBeGreaterThan(0)
      // The bound is the whole spool's, not each thread's.
      expect(acknowledged * 200).toBeLessThan(150_000)
      expect(refused?.status).toBe(503)
      expect(await refused!.json()).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null })
    } finally {
      await setEventsTable(service, true)
    }
    const stored = await service.eventsOf(account, acknowledged, '&event=bounded')
    expect(stored).toHaveLength(acknowledged)
    expect(new Set(stored.map((e) => e.id)).size).toBe(acknowledged)
  })
})
