import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, type ClickHouse } from '@burrow/clickhouse'
import { clickHouseOptionsFor } from '@burrow/testing'
import pino from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { DETACHED_PART_RETENTION_DAYS, watchDetachedParts } from './detachedParts'

let ch: ClickHouse
const root = mkdtempSync(path.join(tmpdir(), 'burrow-detached-'))
beforeAll(async () => {
  ch = await connectClickHouse(clickHouseOptionsFor(root))
  await migrateClickHouse(ch)
})
afterAll(async () => {
  await ch?.close()
  rmSync(root, { recursive: true, force: true })
})

it('logs at error level which table, partition and how many rows a detached part holds, and counts them', async () => {
  const rows = Array.from({ length: 12 }, (_, i) =>
    events.encodeEventRow({
      uuid: `0190f0a2-1c5d-7e4b-9d2a-${String(i).padStart(12, '0')}`,
      event: 'e',
      properties: {},
      timestamp: '2026-05-06 07:08:09.000000',
      team_id: 1,
      distinct_id: 'd',
      elements_chain: '',
      created_at: '2026-05-06 07:08:09.000000',
      person_id: NIL_UUID,
    }),
  )
  await events.insertEncodedEvents(ch, Buffer.from(rows.join('')))
  // The part is in the table that holds the rows (on a cluster, the shard's own).
  const table = ch.layout.rowsTable('events')
  const result = await ch.reader.query({
    query: `SELECT name FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
    query_params: { table },
    format: 'JSONEachRow',
  })
  const [part] = await result.json<{ name: string }>()
  await ch.writer.command({ query: `ALTER TABLE ${table} DETACH PART '${part!.name}'` })

  const lines: string[] = []
  const logger = pino(new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }))
  const registry = new Registry()
  const watch = await watchDetachedParts(ch, logger, registry, { dataDir: mkdtempSync(path.join(root, 'data-')) })
  watch.stop()

  expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
    expect.objectContaining({ level: 50, table, partition: '202605', part: part!.name, rows: 12 }),
  ])
  const metrics = await registry.metrics()
  expect(metrics).toContain(`burrow_clickhouse_detached_parts{table="${table}"} 1`)
  expect(metrics).toContain(`burrow_clickhouse_detached_rows{table="${table}"} 12`)
})

const DAY_MS = 24 * 60 * 60 * 1000

it('reports a part detached as broken once, and removes it once kept past its retention; one detached by a command stays', async () => {
  // A table of this test's own, two partitions: one part ClickHouse will have found broken, one detached by hand.
  await ch.writer.command({
    query: `CREATE TABLE detached_probe (day Date, n UInt32) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY n`,
  })
  await ch.writer.command({ query: `INSERT INTO detached_probe VALUES ('2026-01-05', 1), ('2026-01-06', 2), ('2026-02-05', 3)` })
  const partsOf = async (query: string) => {
    const result = await ch.reader.query({ query, format: 'JSONEachRow' })
    return result.json<{ name: string; partition_id: string; path: string; reason: string | null }>()
  }
  const active = await partsOf(
    `SELECT name, partition_id, path, '' AS reason FROM system.parts WHERE database = currentDatabase() AND table = 'detached_probe' AND active ORDER BY name`,
  )
  expect(active.map((p) => p.partition_id)).toEqual(['202601', '202602'])
  for (const part of active) await ch.writer.command({ query: `ALTER TABLE detached_probe DETACH PART '${part.name}'` })
  const detached = () =>
    partsOf(
      `SELECT name, partition_id, path, reason FROM system.detached_parts WHERE database = currentDatabase() AND table = 'detached_probe' ORDER BY partition_id`,
    )
  // As a merge cut short by a full disk leaves it: ClickHouse found the part broken at start and set it aside under this prefix.
  const [january, february] = await detached()
  renameSync(january!.path, path.join(path.dirname(january!.path), `broken-on-start_${january!.name}`))
  expect((await detached()).map((p) => [p.partition_id, p.reason])).toEqual([
    ['202601', 'broken-on-start'],
    ['202602', ''],
  ])

  const lines: Array<Record<string, unknown>> = []
  const logger = pino(
    new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) }),
  )
  const ours = () => lines.filter((l) => l.table === 'detached_probe')
  const registry = new Registry()
  let now = Date.parse('2026-03-01T00:00:00Z')
  const dataDir = mkdtempSync(path.join(root, 'data-'))
  const watch = await watchDetachedParts(ch, logger, registry, { dataDir, now: () => now })
  try {
    expect(ours().toSorted((a, b) => String(a.partition).localeCompare(String(b.partition)))).toEqual([
      expect.objectContaining({
        level: 50,
        partition: '202601',
        reason: 'broken-on-start',
        rows: 2,
        msg: expect.stringContaining(`removed in ${DETACHED_PART_RETENTION_DAYS} days`),
      }),
      expect.objectContaining({ level: 50, partition: '202602', reason: '', rows: 1 }),
    ])
    expect(await registry.metrics()).toContain('burrow_clickhouse_detached_parts{table="detached_probe"} 2')

    // Looked at again (an hour later, or at the next start on this DATA_DIR): nothing more is said.
    now += DAY_MS
    await watch.check()
    const again = await watchDetachedParts(ch, logger, new Registry(), { dataDir, now: () => now })
    again.stop()
    expect(ours()).toHaveLength(2)

    // Past the retention, the broken part and its files go; the one detached by hand is the operator's and stays.
    now += DETACHED_PART_RETENTION_DAYS * DAY_MS
    await watch.check()
    expect(ours().slice(2)).toEqual([
      expect.objectContaining({
        level: 40,
        partition: '202601',
        msg: expect.stringContaining(`removed the detached part broken-on-start_${january!.name}`),
      }),
    ])
    expect((await detached()).map((p) => p.name)).toEqual([february!.name])
    expect(existsSync(path.join(path.dirname(january!.path), `broken-on-start_${january!.name}`))).toBe(false)
    const metrics = await registry.metrics()
    expect(metrics).toContain('burrow_clickhouse_detached_parts{table="detached_probe"} 1')
    expect(metrics).toContain('burrow_clickhouse_detached_rows{table="detached_probe"} 1')
  } finally {
    watch.stop()
    await ch.writer.command({ query: 'DROP TABLE detached_probe' })
  }
})
