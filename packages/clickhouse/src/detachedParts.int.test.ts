import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectClickHouse, type ClickHouse } from './connect'
import { suiteClickHouseOptions } from '../test/suiteClickHouse'
import { detachedParts } from './detachedParts'
import { migrateClickHouse } from './migrate'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

let ch: ClickHouse
const root = mkdtempSync(path.join(tmpdir(), 'burrow-parts-'))

beforeAll(async () => {
  // In the suite's server mode (CLICKHOUSE_URL), a database of its own on that server.
  ch = await connectClickHouse(suiteClickHouseOptions(root))
  await migrateClickHouse(ch)
})
afterAll(async () => {
  await ch?.close()
  rmSync(root, { recursive: true, force: true })
})

const row = (i: number) =>
  encodeEventRow({
    uuid: `0190f0a2-1c5d-7e4b-9d2a-${String(i).padStart(12, '0')}`,
    event: 'e',
    properties: {},
    timestamp: '2026-03-04 05:06:07.000000',
    team_id: 1,
    distinct_id: `d${i}`,
    elements_chain: '',
    created_at: '2026-03-04 05:06:07.000000',
    person_id: NIL_UUID,
  })

async function settingsOf(table: string): Promise<string> {
  const result = await ch.reader.query({
    query: `SELECT engine_full FROM system.tables WHERE name = {t:String}`,
    query_params: { t: table },
    format: 'JSONEachRow',
  })
  return (await result.json<{ engine_full: string }>())[0]?.engine_full ?? ''
}

describe('inserted parts', () => {
  it('are synced before an insert of events or dead letters returns', async () => {
    for (const table of ['events', 'events_dead_letter_queue']) {
      expect(await settingsOf(ch.layout.rowsTable(table))).toMatch(/fsync_after_insert = 1, fsync_part_directory = 1/)
    }
  })
})

describe('detachedParts', () => {
  it('names the table, the partition (month) and the rows of a part ClickHouse set aside', async () => {
    expect(await detachedParts(ch)).toEqual([])
    await insertEncodedEvents(ch, Buffer.from(Array.from({ length: 25 }, (_, i) => row(i)).join('')))
    // The part is in the table that holds the rows (on a cluster, the shard's own).
    const table = ch.layout.rowsTable('events')
    const result = await ch.reader.query({
      query: `SELECT name FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
      query_params: { table },
      format: 'JSONEachRow',
    })
    const [part] = await result.json<{ name: string }>()
    await ch.writer.command({ query: `ALTER TABLE ${table} DETACH PART '${part!.name}'` })

    expect(await detachedParts(ch)).toEqual([
      { table, partition: '202603', name: part!.name, reason: '', bytes: expect.any(Number), rows: 25 },
    ])
  })
})
