import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, type ClickHouse } from '@burrow/clickhouse'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { EventBatcher, type PendingRow } from './batcher'
import { createIngestionMetrics } from './metrics'

let ch: ClickHouse
const dir = mkdtempSync(path.join(tmpdir(), 'burrow-batcher-'))

beforeAll(async () => {
  ch = await connectClickHouse({ dataDir: dir })
  await migrateClickHouse(ch.writer)
})
afterAll(async () => {
  await ch?.close()
  rmSync(dir, { recursive: true, force: true })
})

function row(teamId: number, uuid: string, timestamp: string): PendingRow {
  return {
    line: events.encodeEventRow({
      uuid,
      event: 'e',
      properties: '{}',
      timestamp,
      team_id: teamId,
      distinct_id: 'd',
      elements_chain: '',
      created_at: '2025-01-01 00:00:00.000000',
      person_id: NIL_UUID,
    }),
    teamId,
    event: 'e',
    uuid,
    distinctId: 'd',
    timestampMs: 0,
    raw: { event: 'e', marker: uuid },
    ip: '',
  }
}

it('stores the good rows of a rejected batch and dead-letters the bad one with its raw payload', async () => {
  const metrics = createIngestionMetrics(new Registry())
  const stored: number[] = []
  const batcher = new EventBatcher({
    ch,
    metrics,
    maxRows: 100,
    maxAgeMs: 10_000,
    maxBufferedRows: 1000,
    log: () => {},
    onStored: async (rows) => void stored.push(rows.length),
  })
  const good1 = '0190f0a2-1c5d-7e4b-9d2a-000000000001'
  const bad = '0190f0a2-1c5d-7e4b-9d2a-000000000002'
  const good2 = '0190f0a2-1c5d-7e4b-9d2a-000000000003'
  batcher.add([row(77, good1, '2025-01-01 00:00:00.000000'), row(77, bad, 'not a time'), row(77, good2, '2025-01-01 00:00:01.000000')])
  expect(batcher.bufferedRows).toBe(3)
  await batcher.close()
  expect(batcher.bufferedRows).toBe(0)
  expect(stored).toEqual([3])

  const result = await events.queryEvents(ch, { teamId: 77, limit: 10, offset: 0 })
  expect(result.rows.map((r) => r.uuid).sort()).toEqual([good1, good2])
  const letters = await ch.reader.query({
    query: 'SELECT event_uuid, raw_payload, error_location, error FROM events_dead_letter_queue WHERE team_id = 77',
    format: 'JSONEachRow',
  })
  const [letter, ...more] = await letters.json<{ event_uuid: string; raw_payload: string; error_location: string; error: string }>()
  expect(more).toHaveLength(0)
  expect(letter).toMatchObject({ event_uuid: bad, error_location: 'clickhouse_insert' })
  expect(JSON.parse(letter!.raw_payload)).toEqual({ event: 'e', marker: bad })
  expect(letter!.error).toMatch(/parse|DateTime/i)
})

it('refuses rows beyond its bound so capture can answer 503', () => {
  const batcher = new EventBatcher({
    ch,
    metrics: createIngestionMetrics(new Registry()),
    maxRows: 100,
    maxAgeMs: 10_000,
    maxBufferedRows: 2,
    log: () => {},
  })
  expect(batcher.hasRoomFor(2)).toBe(true)
  batcher.add([row(78, '0190f0a2-1c5d-7e4b-9d2a-000000000010', '2025-01-01 00:00:00.000000')])
  expect(batcher.hasRoomFor(2)).toBe(false)
  return batcher.close()
})
