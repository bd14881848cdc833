import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectClickHouse, type ClickHouse } from './connect'
import { toClickHouseDateTimeUs } from './datetime'
import { ensureMaterializedProperties } from './materializedProperties'
import { migrateClickHouse } from './migrate'
import { deleteTeamData } from './teamData'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

// The cluster layout on the embedded engine, the one shard of a cluster of itself: the tables a
// cluster gets (less replication), with reads and writes through the Distributed ones.

let ch: ClickHouse
const root = mkdtempSync(path.join(tmpdir(), 'burrow-cluster-layout-'))

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: root, cluster: 'rehearsal' })
  await migrateClickHouse(ch)
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const rows = async <T>(query: string, params: Record<string, unknown> = {}) =>
  (await ch.reader.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>()

const event = (team: number, distinctId: string, properties: Record<string, unknown> = {}) =>
  encodeEventRow({
    uuid: randomUUID(),
    event: 'signed up',
    properties,
    timestamp: toClickHouseDateTimeUs(Date.now() * 1000),
    team_id: team,
    distinct_id: distinctId,
    elements_chain: '',
    created_at: toClickHouseDateTimeUs(Date.now() * 1000),
    person_id: NIL_UUID,
  })

const countIn = async (table: string, team: number) =>
  Number((await rows<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE team_id = {team:Int64}`, { team }))[0]?.n)

describe('the cluster layout on the embedded engine', () => {
  it('reads and writes events through a Distributed table over the shard’s own table', async () => {
    const engines = await rows<{ name: string; engine: string }>(
      `SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name IN ('events', 'events_local', 'person')`,
    )
    expect(Object.fromEntries(engines.map((t) => [t.name, t.engine]))).toEqual({
      events: 'Distributed',
      events_local: 'ReplacingMergeTree',
      person: 'ReplacingMergeTree',
    })
    await insertEncodedEvents(ch, Buffer.from(event(1, 'a') + event(1, 'b')), { deduplicationToken: randomUUID() })
    expect(await countIn('events', 1)).toBe(2)
    expect(await countIn('events_local', 1)).toBe(2)
  })

  it('drops a batch inserted again under the same token, on its way through the Distributed table', async () => {
    const batch = Buffer.from(event(2, 'a') + event(2, 'b') + event(2, 'c'))
    const token = randomUUID()
    await insertEncodedEvents(ch, batch, { deduplicationToken: token })
    await insertEncodedEvents(ch, batch, { deduplicationToken: token })
    expect(await countIn('events', 2)).toBe(3)
    // The daily counts the view keeps on the shard are not counted twice either.
    const [daily] = await rows<{ n: string }>('SELECT sum(events) AS n FROM event_daily_counts WHERE team_id = 2')
    expect(Number(daily?.n)).toBe(3)
  })

  it('fills and reads a property column through the Distributed table', async () => {
    await insertEncodedEvents(ch, Buffer.from(event(3, 'a', { plan: 'pro' }) + event(3, 'b', {})), { deduplicationToken: randomUUID() })
    expect(await ensureMaterializedProperties(ch, ['plan'])).toEqual(['plan'])
    const found = await rows<{ distinct_id: string }>('SELECT distinct_id FROM events WHERE team_id = 3 AND mat_plan = {v:String}', {
      v: 'pro',
    })
    expect(found).toEqual([{ distinct_id: 'a' }])
  })

  it('deletes a project’s rows from the shard’s tables', async () => {
    await insertEncodedEvents(ch, Buffer.from(event(4, 'a')), { deduplicationToken: randomUUID() })
    expect(await countIn('events', 4)).toBe(1)
    await deleteTeamData(ch, 4)
    // The deletes are mutations that finish in the background.
    for (let tries = 0; (await countIn('events', 4)) + (await countIn('event_daily_counts', 4)) > 0; tries++) {
      if (tries === 100) throw new Error('the project’s rows were not deleted within 10 s')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })

  it('refuses to start on a database laid out for one server, and the reverse, before changing anything', async () => {
    // One embedded engine at a time in a process.
    await ch.close()
    const single = mkdtempSync(path.join(tmpdir(), 'burrow-one-server-'))
    try {
      const plain = await connectClickHouse({ dataDir: single })
      await migrateClickHouse(plain)
      await plain.close()
      const clustered = await connectClickHouse({ dataDir: single, cluster: 'rehearsal' })
      try {
        await expect(migrateClickHouse(clustered)).rejects.toThrow(/tables of one server, not of a cluster/)
      } finally {
        await clustered.close()
      }
    } finally {
      rmSync(single, { recursive: true, force: true })
    }
    const plainOnCluster = await connectClickHouse({ dataDir: root })
    try {
      await expect(migrateClickHouse(plainOnCluster)).rejects.toThrow(/set CLICKHOUSE_CLUSTER/)
    } finally {
      await plainOnCluster.close()
    }
  })
})
