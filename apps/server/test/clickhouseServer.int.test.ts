// The service on a ClickHouse server (the stand-in process: ClickHouse's HTTP interface over
// the real engine), with the server misbehaving: every acknowledged event is stored once.
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, toClickHouseDateTime, type ClickHouse } from '@burrow/clickhouse'
import { startStandinProcess, waitFor, type StandinProcess, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './service'

let standin: StandinProcess

beforeAll(async () => {
  standin = await startStandinProcess()
})

afterAll(async () => {
  await standin?.stop()
})

/** Rows as stored, every copy counted (no FINAL): a batch stored twice shows here. */
async function storedCopies(ch: ClickHouse, teamId: number): Promise<{ rows: number; uuids: number }> {
  const result = await ch.reader.query({
    query: 'SELECT count() AS rows, uniqExact(uuid) AS uuids FROM events WHERE team_id = {team:Int64}',
    query_params: { team: teamId },
    format: 'JSONEachRow',
  })
  const [row] = await result.json<{ rows: string; uuids: string }>()
  return { rows: Number(row?.rows), uuids: Number(row?.uuids) }
}

function encodedEvents(teamId: number, count: number): Buffer {
  const now = toClickHouseDateTime(Date.now())
  return Buffer.from(
    Array.from({ length: count }, (_, i) =>
      events.encodeEventRow({
        uuid: randomUUID(),
        event: `event ${i}`,
        properties: { i },
        timestamp: now,
        team_id: teamId,
        distinct_id: `user-${i}`,
        elements_chain: '',
        created_at: now,
        person_id: NIL_UUID,
      }),
    ).join(''),
  )
}

describe('inserting events over HTTP', () => {
  let ch: ClickHouse
  let impatient: ClickHouse

  beforeAll(async () => {
    const database = `server_path_${randomUUID().replaceAll('-', '')}`
    ch = await connectClickHouse({ url: standin.url, database, dataDir: '/nonexistent' })
    impatient = await connectClickHouse({ url: standin.url, database, dataDir: '/nonexistent', requestTimeoutMs: 500 })
    await migrateClickHouse(ch)
  })

  afterAll(async () => {
    await ch?.close()
    await impatient?.close()
  })

  it('creates the configured database on a server that does not have it yet', async () => {
    const result = await ch.reader.query({ query: 'SELECT currentDatabase() AS db', format: 'JSONEachRow' })
    const [row] = await result.json<{ db: string }>()
    expect(row!.db).toMatch(/^server_path_/)
  })

  it('stores every row as it was encoded', async () => {
    const teamId = 9_000_001
    await events.insertEncodedEvents(ch, encodedEvents(teamId, 3))
    const stored = await events.queryEvents(ch, { teamId, limit: 10, offset: 0 })
    expect(stored.rows.map((r) => r.event).sort()).toEqual(['event 0', 'event 1', 'event 2'])
  })

  it('stores a batch once when the first attempt committed but its answer timed out, and the retry carries the same token', async () => {
    const teamId = 9_000_002
    const batch = encodedEvents(teamId, 50)
    const deduplicationToken = randomUUID()
    await standin.inject({ kind: 'commit-then-hang', match: 'INSERT INTO events' })
    await expect(events.insertEncodedEvents(impatient, batch, { deduplicationToken })).rejects.toThrow(/timeout/i)
    expect(await storedCopies(ch, teamId)).toEqual({ rows: 50, uuids: 50 })
    await events.insertEncodedEvents(ch, batch, { deduplicationToken })
    expect(await storedCopies(ch, teamId)).toEqual({ rows: 50, uuids: 50 })
  })

  it('stores a batch that differs on retry (rows re-encoded) once, by its token', async () => {
    const teamId = 9_000_003
    const batch = encodedEvents(teamId, 20)
    const deduplicationToken = randomUUID()
    await standin.inject({ kind: 'commit-then-reset', match: 'INSERT INTO events' })
    await expect(events.insertEncodedEvents(ch, batch, { deduplicationToken })).rejects.toThrow()
    // Same events, other bytes: only the token can tell ClickHouse that this is the same batch.
    const reencoded = Buffer.from(batch.toString('utf8').replaceAll('"elements_chain":""', '"elements_chain":"" '))
    await events.insertEncodedEvents(ch, reencoded, { deduplicationToken })
    expect(await storedCopies(ch, teamId)).toEqual({ rows: 20, uuids: 20 })
  })
})

describe('the service on a ClickHouse server that misbehaves', () => {
  let service: TestService

  beforeAll(async () => {
    service = await startTestService({ CLICKHOUSE_URL: standin.url, CLICKHOUSE_DATABASE: `service_${randomUUID().replaceAll('-', '')}` })
  })

  afterAll(async () => {
    await service?.stop()
  })

  const capture = (account: TestAccount, event: string, distinctId: string) =>
    service.post('/batch/', { api_key: account.projectToken, batch: [{ event, distinct_id: distinctId, properties: { n: 1 } }] })

  it('stores each acknowledged event once through 503s and connections dropped before the insert ran', async () => {
    const account = await service.account()
    await standin.inject({ kind: 'unavailable', match: 'INSERT INTO events', times: 2 })
    await standin.inject({ kind: 'reset', match: 'INSERT INTO events', times: 2 })
    for (let i = 0; i < 30; i++) expect((await capture(account, `faulty ${i}`, `user-${i % 5}`)).status).toBe(200)
    expect(await service.eventsOf(account, 30)).toHaveLength(30)
    expect(await storedCopies(service.app.deps.ch, account.projectId)).toEqual({ rows: 30, uuids: 30 })
  })

  it('lists each acknowledged event once when inserts committed but their answers were lost', async () => {
    const account = await service.account()
    await standin.inject({ kind: 'commit-then-reset', match: 'INSERT INTO events', times: 3 })
    for (let i = 0; i < 30; i++) expect((await capture(account, `lost answer ${i}`, `user-${i % 5}`)).status).toBe(200)
    const listed = await service.eventsOf(account, 30)
    expect(listed).toHaveLength(30)
    expect(new Set(listed.map((e) => e.id)).size).toBe(30)
    // Stored once, not collapsed at read: the retried inserts carried their first attempt's token.
    expect(await storedCopies(service.app.deps.ch, account.projectId)).toEqual({ rows: 30, uuids: 30 })
  })

  it('keeps acknowledging while the server refuses connections, and stores everything once it is back', async () => {
    const account = await service.account()
    await standin.refuse()
    try {
      for (let i = 0; i < 10; i++) expect((await capture(account, `while down ${i}`, 'down-user')).status).toBe(200)
    } finally {
      await standin.accept()
    }
    expect(await service.eventsOf(account, 10)).toHaveLength(10)
    expect(await storedCopies(service.app.deps.ch, account.projectId)).toEqual({ rows: 10, uuids: 10 })
  })
})

describe('a batch of thousands of events resumed after a restart, behind a proxy that bounds request lines at 8 KB', () => {
  let strict: StandinProcess
  const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-resume-'))
  // The embedded PostgreSQL (when the suite has none) runs as its own user, which must enter this directory.
  chmodSync(dataDir, 0o755)
  const services: TestService[] = []

  beforeAll(async () => {
    strict = await startStandinProcess({ maxHeaderBytes: 8 * 1024 })
  })

  afterAll(async () => {
    for (const service of services) await service.stop().catch(() => {})
    await strict?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const readiness = async (service: TestService) =>
    (await (await fetch(`${service.baseUrl}/_readyz`)).json()) as {
      status: string
      checks: Record<string, { status: string; error?: string }>
    }

  it('stores all of them, and says while it cannot that storing keeps failing', async () => {
    const env = {
      CLICKHOUSE_URL: strict.url,
      CLICKHOUSE_DATABASE: `resume_${randomUUID().replaceAll('-', '')}`,
      DATA_DIR: dataDir,
      CAPTURE_THREADS: 0,
    }
    const first = await startTestService({ ...env, SHUTDOWN_TIMEOUT_MS: 2_000 })
    services.push(first)
    const account = await first.account()
    // ClickHouse takes no events (everything else goes through): the batch stays the one being inserted.
    await strict.inject({ kind: 'unavailable', match: 'INSERT INTO events', times: 100_000 })
    const batch = Array.from({ length: 10_000 }, (_, i) => ({ event: 'resumed', distinct_id: `user-${i % 50}`, properties: { i } }))
    expect((await first.post('/batch/', { api_key: account.projectToken, batch })).status).toBe(200)
    const failing = await waitFor(
      async () => {
        const report = await readiness(first)
        return report.checks.ingestion?.status === 'failing' ? report : undefined
      },
      { what: 'readiness to say that storing events keeps failing', timeoutMs: 20_000 },
    )
    expect(failing.status).toBe('degraded')
    expect(failing.checks.ingestion!.error).toMatch(/storing events in ClickHouse has failed for \d+ s \(\d+ attempts.*HTTP 503/)
    const metrics = await (await fetch(`${first.baseUrl}/_metrics`)).text()
    expect(Number(/^burrow_flush_failing_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    await first.stop()

    await strict.clearFaults()
    const second = await startTestService(env)
    services.push(second)
    // The resumed batch first asks which of its 10,000 events are stored already: thousands of uuids in one statement.
    const stored = await waitFor(
      async () => {
        const result = await second.app.deps.ch.reader.query({
          query: 'SELECT count() AS n FROM events WHERE team_id = {team:Int64}',
          query_params: { team: account.projectId },
          format: 'JSONEachRow',
        })
        const n = Number((await result.json<{ n: string }>())[0]?.n)
        return n >= 10_000 ? n : undefined
      },
      { what: '10,000 resumed events stored', timeoutMs: 60_000 },
    )
    expect(stored).toBe(10_000)
    expect((await readiness(second)).checks.ingestion?.status).toBe('ok')
  }, 180_000)
})

describe('reads while ClickHouse is down or frozen', () => {
  let service: TestService
  let account: TestAccount

  beforeAll(async () => {
    service = await startTestService({ CLICKHOUSE_URL: standin.url, CLICKHOUSE_DATABASE: `frozen_${randomUUID().replaceAll('-', '')}` })
    account = await service.account()
  })

  afterAll(async () => {
    await service?.stop()
  })

  const listEvents = async () => {
    const started = performance.now()
    const res = await service.api(account, `/api/projects/${account.projectId}/events/`)
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started }
  }

  it("answers 503 with PostHog's error body at once while ClickHouse refuses connections", async () => {
    await standin.refuse()
    try {
      const answer = await listEvents()
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({ type: 'server_error', code: 'service_unavailable', detail: expect.any(String), attr: null })
      expect(answer.ms).toBeLessThan(2_000)
    } finally {
      await standin.accept()
    }
    expect((await listEvents()).status).toBe(200)
  })

  it("answers 503 with PostHog's error body within seconds while ClickHouse is frozen, not after a minute", async () => {
    process.kill(standin.pid, 'SIGSTOP')
    try {
      const answer = await listEvents()
      expect(answer.status).toBe(503)
      expect(answer.body).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null })
      expect(answer.ms).toBeLessThan(8_000)
    } finally {
      process.kill(standin.pid, 'SIGCONT')
    }
    expect((await listEvents()).status).toBe(200)
  })
})

describe('a ClickHouse server that refuses what the configuration asks of it', () => {
  it('fails the start at once, saying what to do, when CLICKHOUSE_CLUSTER needs DDL ON CLUSTER and the server has no Keeper', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'burrow-cluster-'))
    const configFile = path.join(dir, 'cluster.xml')
    // The cluster is there; the Keeper that DDL ON CLUSTER needs is not (ClickHouse answers code 392).
    writeFileSync(
      configFile,
      '<clickhouse><tcp_port>9000</tcp_port><remote_servers><rehearsal><shard><replica><host>127.0.0.1</host><port>9000</port></replica></shard></rehearsal></remote_servers></clickhouse>',
    )
    const clustered = await startStandinProcess({ configFile })
    try {
      // Waiting for it would outlast the test: the start must refuse at once.
      const outcome = await startTestService({
        CLICKHOUSE_URL: clustered.url,
        CLICKHOUSE_DATABASE: `cluster_${randomUUID().replaceAll('-', '')}`,
        CLICKHOUSE_CLUSTER: 'rehearsal',
        DEPENDENCY_WAIT_MS: 600_000,
        CAPTURE_THREADS: 0,
      }).then(
        async (service) => {
          await service.stop()
          return new Error('the service started')
        },
        (err: unknown) => err as Error,
      )
      expect(outcome.message).toMatch(/^clickhouse at .* refused the connection: CLICKHOUSE_CLUSTER=rehearsal needs .*Keeper/)
      expect(String((outcome.cause as Error | undefined)?.message)).toMatch(
        /unset CLICKHOUSE_CLUSTER\. ClickHouse at .* answered code 392: /,
      )
    } finally {
      await clustered.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
