import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
// A small spool bound, so that an outage fills it within a test.
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  { SPOOL_MAX_BYTES: 150_000, BATCH_MAX_AGE_MS: 20 },
)

const batchOf = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ event: 'during outage', distinct_id: `${prefix}-${i}`, properties: { pad: 'x'.repeat(200) } }))

async function setEventsTable(online: boolean) {
  const [from, to] = online ? ['events_offline', 'events'] : ['events', 'events_offline']
  await service.app.deps.ch.writer.command({ query: `RENAME TABLE ${from} TO ${to}` })
}

describe('while ClickHouse cannot store events', () => {
  it('keeps accepting into the spool, answers 503 at its bound, and stores every acknowledged event once ClickHouse is back', async () => {
    await setEventsTable(false)
    let acknowledged = 0
    let refused: Response | undefined
    try {
      for (let i = 0; i < 100 && !refused; i++) {
        const res = await service.post('/batch/', { api_key: account.projectToken, batch: batchOf(`r${i}`, 20) })
        if (res.status === 200) acknowledged += 20
        else refused = res
      }
      expect(acknowledged).toBeGreaterThan(0)
      expect(refused?.status).toBe(503)
      expect(await refused!.json()).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null })
      const metrics = await (await fetch(`${service.baseUrl}/_metrics`)).text()
      expect(metrics).toMatch(/burrow_flush_retries_total [1-9]/)
    } finally {
      await setEventsTable(true)
    }
    const stored = await service.eventsOf(account, acknowledged)
    expect(stored).toHaveLength(acknowledged)
    expect(new Set(stored.map((e) => e.id)).size).toBe(acknowledged)

    // Room again: the spool emptied as its rows were stored.
    await waitFor(
      async () => ((await service.post('/batch/', { api_key: account.projectToken, batch: batchOf('after', 1) })).status === 200 ? true : undefined),
      { what: 'capture accepting again', timeoutMs: 10_000 },
    )
  })
})
