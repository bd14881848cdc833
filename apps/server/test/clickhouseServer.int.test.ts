// The service on a ClickHouse server (the stand-in process: ClickHouse's HTTP interface over
// the real engine), with the server misbehaving: every acknowledged event is stored once.
import { randomUUID } from 'node:crypto'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, toClickHouseDateTime, type ClickHouse } from '@burrow/clickhouse'
import { startStandinProcess, type StandinProcess, type TestAccount } from '@burrow/testing'
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
