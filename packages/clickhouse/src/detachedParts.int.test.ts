import { describe, expect, it } from 'vitest'
import { useSuiteClickHouse } from '../test/suiteClickHouse'
import { detachedParts } from './detachedParts'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

const suite = useSuiteClickHouse('burrow-parts-')

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
  const result = await suite.ch.reader.query({
    query: `SELECT engine_full FROM system.tables WHERE name = {t:String}`,
    query_params: { t: table },
    format: 'JSONEachRow',
  })
  return (await result.json<{ engine_full: string }>())[0]?.engine_full ?? ''
}

describe('inserted parts', () => {
  it('are synced before an insert of events or dead letters returns', async () => {
    for (const table of ['events', 'events_dead_letter_queue']) {
      expect(await settingsOf(suite.ch.layout.rowsTable(table))).toMatch(/fsync_after_insert = 1, fsync_part_directory = 1/)
    }
  })
})

describe('detachedParts', () => {
  it('names the table, the partition (month) and the rows of a part ClickHouse set aside', async () => {
    expect(await detachedParts(suite.ch)).toEqual([])
    await insertEncodedEvents(suite.ch, Buffer.from(Array.from({ length: 25 }, (_, i) => row(i)).join('')))
    // The part is in the table that holds the rows (on a cluster, the shard's own).
    const table = suite.ch.layout.rowsTable('events')
    const result = await suite.ch.reader.query({
      query: `SELECT name FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
      query_params: { table },
      format: 'JSONEachRow',
    })
    const [part] = await result.json<{ name: string }>()
    await suite.ch.writer.command({ query: `ALTER TABLE ${table} DETACH PART '${part!.name}'` })

    expect(await detachedParts(suite.ch)).toEqual([
      { table, partition: '202603', name: part!.name, reason: '', bytes: expect.any(Number), rows: 25 },
    ])
  })
})
