import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { connectClickHouse, events, migrateClickHouse, NIL_UUID, type ClickHouse } from '@burrow/clickhouse'
import { clickHouseOptionsFor } from '@burrow/testing'
import pino from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { reportDetachedParts } from './detachedParts'

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
  await reportDetachedParts(ch, logger, registry)

  expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
    expect.objectContaining({ level: 50, table, partition: '202605', part: part!.name, rows: 12 }),
  ])
  const metrics = await registry.metrics()
  expect(metrics).toContain(`burrow_clickhouse_detached_parts{table="${table}"} 1`)
  expect(metrics).toContain(`burrow_clickhouse_detached_rows{table="${table}"} 12`)
})
