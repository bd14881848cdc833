import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, type ClickHouse } from '@burrow/clickhouse'
import { createSpoolMetrics, encodeFrame, readFrame, SegmentReader, type FrameContent, type Sighting } from '@burrow/spool'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { EventSink, SinkGaveUp } from './eventSink'
import { EventSpool, type EventSpoolOptions } from './eventSpool'
import { createIngestionMetrics } from './metrics'

let ch: ClickHouse
/** A real client of a ClickHouse server that is not there: every insert fails to connect. */
let unreachable: ClickHouse
const root = mkdtempSync(path.join(tmpdir(), 'burrow-spool-'))

beforeAll(async () => {
  // With CLICKHOUSE_CLUSTER (the suite's cluster run), through a Distributed table.
  ch = await connectClickHouse({ dataDir: path.join(root, 'ch'), cluster: process.env.CLICKHOUSE_CLUSTER })
  await migrateClickHouse(ch)
  unreachable = await connectClickHouse({ url: 'http://127.0.0.1:9', dataDir: root })
})
afterAll(async () => {
  await ch?.close()
  await unreachable?.close()
  rmSync(root, { recursive: true, force: true })
})

let dirs = 0
const newDir = () => path.join(root, `spool-${++dirs}`)

function line(teamId: number, uuid: string, timestamp = '2025-01-01 00:00:00.000000'): string {
  return events.encodeEventRow({
    uuid,
    event: 'e',
    properties: {},
    timestamp,
    team_id: teamId,
    distinct_id: 'd',
    elements_chain: '',
    created_at: '2025-01-01 00:00:00.000000',
    person_id: NIL_UUID,
  })
}

const uuidOf = (team: number, i: number) => `0190f0a2-1c5d-7e4b-9d2a-${String(team).padStart(4, '0')}${String(i).padStart(8, '0')}`

function spoolOptions(dir: string, over: Partial<EventSpoolOptions> & { client?: ClickHouse } = {}): EventSpoolOptions {
  const registry = new Registry()
  const metrics = { ...createIngestionMetrics(registry), ...createSpoolMetrics(registry) }
  return {
    dir,
    sink: new EventSink({ ch: over.client ?? ch, metrics, log: () => {}, retryBaseMs: 10, retryMaxMs: 50 }),
    metrics,
    maxRows: 100,
    maxAgeMs: 20,
    maxBytes: 10 << 20,
    segmentBytes: 4096,
    log: () => {},
    ...over,
  }
}

async function storedUuids(team: number): Promise<string[]> {
  const { rows } = await events.queryEvents(ch, { teamId: team, limit: 10_000, offset: 0 })
  return rows.map((r) => r.uuid).sort()
}

/** Where the frames of a segment end. */
async function framesEnd(dir: string, seq: number): Promise<number> {
  const reader = await SegmentReader.open(dir, seq)
  try {
    const content = await reader.read(0, 1 << 20)
    let at = reader.framesStart
    for (let read = readFrame(content.subarray(at)); read.kind === 'frame'; read = readFrame(content.subarray(at))) at += read.bytes
    return at
  } finally {
    await reader.close()
  }
}

async function appendEvents(spool: EventSpool, team: number, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const sightings: Sighting[] = [[team, 'e', 0]]
    await spool.append(encodeFrame([line(team, uuidOf(team, i))], sightings, team, []))
  }
}

it('stores appended rows, removes finished segments, and leaves an empty spool after close', async () => {
  const dir = newDir()
  const stored: Sighting[] = []
  const spool = await EventSpool.open(spoolOptions(dir, { onStored: async (s) => void stored.push(...s) }))
  await appendEvents(spool, 11, 0, 60)
  await spool.close(5_000)
  expect(await storedUuids(11)).toEqual(Array.from({ length: 60 }, (_, i) => uuidOf(11, i)))
  expect(stored.every(([team, event]) => team === 11 && event === 'e')).toBe(true)
  expect(readdirSync(dir)).toEqual([])
})

it('keeps acknowledged rows on disk while ClickHouse is unreachable and stores them on the next start', async () => {
  const dir = newDir()
  const down = await EventSpool.open(spoolOptions(dir, { client: unreachable }))
  await appendEvents(down, 12, 0, 40)
  expect(down.waitingRows()).toBe(40)
  await down.close(100)
  expect(readdirSync(dir).filter((f) => f.endsWith('.seg')).length).toBeGreaterThan(0)
  expect(await storedUuids(12)).toEqual([])

  const logged: string[] = []
  const up = await EventSpool.open(spoolOptions(dir, { log: (msg) => logged.push(msg) }))
  await appendEvents(up, 12, 40, 5)
  await up.close(5_000)
  expect(await storedUuids(12)).toEqual(Array.from({ length: 45 }, (_, i) => uuidOf(12, i)))
  expect(readdirSync(dir)).toEqual([])
  // The zeros after the last frame are where the frames end, not a torn frame.
  expect(logged.filter((msg) => /torn/.test(msg))).toEqual([])
})

it('stores every frame once when only some fit in memory and the others are read back from disk', async () => {
  const dir = newDir()
  const frameBytes = encodeFrame([line(16, uuidOf(16, 0))], [[16, 'e', 0]], 16, []).bytes.length
  // Room for 5 frames in memory; batches of 20 rows, so that memory frees up and fills again
  // while appends go on: batches mix frames from memory and from disk, in either order.
  const spool = await EventSpool.open(
    spoolOptions(dir, { keptBytes: 5 * frameBytes, maxRows: 20, maxAgeMs: 60_000, segmentBytes: 16 * frameBytes }),
  )
  for (let group = 0; group < 15; group++) {
    // Each group of 10 is one write: its first frames are kept if there is room.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => spool.append(encodeFrame([line(16, uuidOf(16, group * 10 + i))], [[16, 'e', 0]], 16, []))),
    )
  }
  await spool.close(5_000)
  expect(await storedUuids(16)).toEqual(Array.from({ length: 150 }, (_, i) => uuidOf(16, i)).sort())
  expect(readdirSync(dir)).toEqual([])
})

it('stores a batch once when the process died after its insert and before recording the position, whatever the batch size is now', async () => {
  const dir = newDir()
  const options = spoolOptions(dir, { maxRows: 10, maxAgeMs: 60_000 })
  const sink = options.sink
  let inserts = 0
  // The process dies right after ClickHouse took the first batch: the position is never recorded.
  const dying = await EventSpool.open({
    ...options,
    sink: {
      async insert(body, rows, token) {
        await sink.insert(body, rows, token)
        inserts++
        throw new SinkGaveUp(new Error('killed after the insert'))
      },
      stopRetrying: () => sink.stopRetrying(),
    },
  })
  await appendEvents(dying, 17, 0, 30)
  await dying.close(50)
  expect(inserts).toBe(1)
  expect(await storedUuids(17)).toEqual(Array.from({ length: 10 }, (_, i) => uuidOf(17, i)))

  // The next start reads bigger batches: the first batch goes in again exactly as it was, and is dropped.
  const next = await EventSpool.open(spoolOptions(dir, { maxRows: 1_000 }))
  await next.close(5_000)
  expect(await storedUuids(17)).toEqual(Array.from({ length: 30 }, (_, i) => uuidOf(17, i)))
  expect(readdirSync(dir)).toEqual([])
  // The dropped batch did not reach the daily counts either.
  const daily = await ch.reader.query({
    query: 'SELECT sum(events) AS n FROM event_daily_counts WHERE team_id = 17',
    format: 'JSONEachRow',
  })
  expect(Number((await daily.json<{ n: string }>())[0]?.n)).toBe(30)
})

it('stores a batch once when the process died after its insert and the events table forgot its token before the next start', async () => {
  const dir = newDir()
  const options = spoolOptions(dir, { maxRows: 10, maxAgeMs: 60_000 })
  const sink = options.sink
  // As after an upgrade that rebuilt the events table (migration 011): the batch is stored, and
  // no insert token of before the rebuild is remembered (stored here under none at all).
  const dying = await EventSpool.open({
    ...options,
    sink: {
      async insert(body, rows) {
        await sink.insert(body, rows)
        throw new SinkGaveUp(new Error('killed after the insert'))
      },
      stopRetrying: () => sink.stopRetrying(),
    },
  })
  await appendEvents(dying, 19, 0, 25)
  await dying.close(50)
  expect(await storedUuids(19)).toEqual(Array.from({ length: 10 }, (_, i) => uuidOf(19, i)))

  const next = await EventSpool.open(spoolOptions(dir, { maxRows: 1_000 }))
  await next.close(5_000)
  expect(await storedUuids(19)).toEqual(Array.from({ length: 25 }, (_, i) => uuidOf(19, i)))
  expect(readdirSync(dir)).toEqual([])
})

it('keeps a stored batch until its hand-off takes it, across a stop, and stores it once', async () => {
  const dir = newDir()
  const rowsOf = (frames: FrameContent[]) => frames.flatMap((f) => f.body.toString('utf8').split('\n').filter(Boolean))
  // The hand-off (the webhook outbox in PostgreSQL) refuses every batch, and the process stops.
  let refused = 0
  const down = await EventSpool.open(
    spoolOptions(dir, {
      // Batches of exactly 10: a slow disk must not let the age bound send a smaller first one.
      maxRows: 10,
      maxAgeMs: 60_000,
      afterInsert: async () => {
        refused++
        throw new Error('PostgreSQL refused the deliveries')
      },
    }),
  )
  await appendEvents(down, 18, 0, 25)
  await new Promise((resolve) => setTimeout(resolve, 300))
  await down.close(50)
  // The first batch went to ClickHouse and was handed off again after a back-off: the spool kept it.
  expect(refused).toBeGreaterThanOrEqual(2)
  expect(await storedUuids(18)).toEqual(Array.from({ length: 10 }, (_, i) => uuidOf(18, i)))

  // The next start hands every row off, that first batch included, and ClickHouse holds each row once.
  const handed: string[] = []
  const up = await EventSpool.open(spoolOptions(dir, { afterInsert: async (frames) => void handed.push(...rowsOf(frames)) }))
  await up.close(5_000)
  expect(handed.map((row) => (JSON.parse(row) as { uuid: string }).uuid).sort()).toEqual(
    Array.from({ length: 25 }, (_, i) => uuidOf(18, i)),
  )
  expect(await storedUuids(18)).toEqual(Array.from({ length: 25 }, (_, i) => uuidOf(18, i)))
  expect(readdirSync(dir)).toEqual([])
})

it('ignores a frame torn by a crash in the middle of a write, and what follows it', async () => {
  const dir = newDir()
  const crashed = await EventSpool.open(spoolOptions(dir, { client: unreachable, segmentBytes: 1 << 20 }))
  await appendEvents(crashed, 13, 0, 3)
  await crashed.close(50)
  const [segment] = readdirSync(dir).filter((f) => f.endsWith('.seg'))
  // The crash tore the next write: part of its frame lies where the zeros began.
  const file = path.join(dir, segment!)
  const torn = encodeFrame([line(13, uuidOf(13, 99))], [], 13, [])
  const end = await framesEnd(dir, Number(segment!.slice(0, 12)))
  const fd = openSync(file, 'r+')
  writeSync(fd, torn.bytes, 0, torn.bytes.length - 5, end)
  closeSync(fd)

  const next = await EventSpool.open(spoolOptions(dir))
  await next.close(5_000)
  expect(await storedUuids(13)).toEqual([0, 1, 2].map((i) => uuidOf(13, i)))
})

it('refuses frames beyond its bound', async () => {
  const dir = newDir()
  const spool = await EventSpool.open(spoolOptions(dir, { client: unreachable, maxBytes: 2_000 }))
  const frame = encodeFrame([line(14, uuidOf(14, 0))], [], 14, [])
  let accepted = 0
  while (spool.hasRoom(frame.bytes.length)) {
    await spool.append(frame)
    accepted++
  }
  expect(accepted).toBe(Math.floor(2_000 / frame.bytes.length))
  expect(spool.spoolBytes).toBeLessThanOrEqual(2_000)
  await spool.close(50)
})

it('stores the good rows of a refused batch and dead-letters the bad one with the row as its payload', async () => {
  const dir = newDir()
  const spool = await EventSpool.open(spoolOptions(dir))
  const good1 = uuidOf(15, 1)
  const bad = uuidOf(15, 2)
  const good2 = uuidOf(15, 3)
  const rows = [line(15, good1), line(15, bad, 'not a time'), line(15, good2, '2025-01-01 00:00:01.000000')]
  await spool.append(encodeFrame(rows, [[15, 'e', 0]], 15, []))
  await spool.close(5_000)
  expect(await storedUuids(15)).toEqual([good1, good2])
  const letters = await ch.reader.query({
    query: 'SELECT event_uuid, raw_payload, error_location, tags FROM events_dead_letter_queue WHERE team_id = 15',
    format: 'JSONEachRow',
  })
  const found = await letters.json<{ event_uuid: string; raw_payload: string; error_location: string; tags: string[] }>()
  expect(found).toHaveLength(1)
  expect(found[0]).toMatchObject({ event_uuid: bad, error_location: 'clickhouse_insert', tags: ['clickhouse_rejected_row'] })
  expect(JSON.parse(found[0]!.raw_payload)).toMatchObject({ uuid: bad, timestamp: 'not a time' })
})
