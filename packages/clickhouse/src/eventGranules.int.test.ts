import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { suiteClickHouseOptions } from '../test/suiteClickHouse'
import { connectClickHouse, type ClickHouse } from './connect'
import { toClickHouseDateTimeUs } from './datetime'
import { EVENT_GRANULE_BYTES, withSmallGranules } from './eventGranules'
import { ensureMaterializedProperties, materializedColumnName } from './materializedProperties'
import { migrateClickHouse } from './migrate'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

const BEFORE = '010_event_daily_counts.sql'
const MIGRATION = '011_events_small_granules'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-event-granules-'))
let ch: ClickHouse
beforeAll(async () => {
  ch = await connectClickHouse(suiteClickHouseOptions(root))
  // The database as the version before this migration left it, with a property column of its own.
  await migrateClickHouse(ch, { until: BEFORE })
  await ensureMaterializedProperties(ch, ['plan'])
})
afterAll(async () => {
  await ch.close()
  rmSync(root, { recursive: true, force: true })
})

const rows = async <T>(query: string, params: Record<string, unknown> = {}) =>
  (await ch.reader.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>()

/** `count` events of about 1 kB each, in the month of `month` (a Date), inserted as the spool inserts a batch. */
async function insertBatch(month: Date, count: number, token = randomUUID()): Promise<string[]> {
  const uuids: string[] = []
  const lines = Array.from({ length: count }, (_, i) => {
    const at = toClickHouseDateTimeUs((month.getTime() + i * 1000) * 1000)
    const uuid = randomUUID()
    uuids.push(uuid)
    return encodeEventRow({
      uuid,
      event: `event ${i % 7}`,
      properties: { plan: ['free', 'pro'][i % 2], i, text: `${uuid} `.repeat(25) },
      timestamp: at,
      team_id: 1 + (i % 3),
      distinct_id: `user-${i % 101}`,
      elements_chain: '',
      created_at: at,
      person_id: NIL_UUID,
    })
  })
  await insertEncodedEvents(ch, Buffer.from(lines.join('')), { deduplicationToken: token })
  return uuids
}

/** Every stored column of every event (the property column included), as one figure, and how many rows there are. */
const fingerprint = async () =>
  (
    await rows<{ rows: string; hash: string }>(
      `SELECT count() AS rows, sum(cityHash64(uuid, event, properties, timestamp, team_id, distinct_id, elements_chain,
         created_at, person_id, inserted_at, ${materializedColumnName('plan')})) AS hash FROM events`,
    )
  )[0]

const dailyCounts = () =>
  rows<{ team_id: string; event: string; day: string; events: string }>(
    'SELECT team_id, event, day, sum(events) AS events FROM event_daily_counts GROUP BY team_id, event, day ORDER BY team_id, event, day',
  )

const rowsTable = () => ch.layout.rowsTable('events')

const engineOf = async (table: string) =>
  (
    await rows<{ engine_full: string }>('SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {t:String}', {
      t: table,
    })
  )[0]?.engine_full

/** Rows per granule of the events' parts, once no mutation of the table is left to do. */
async function rowsPerGranule(): Promise<number> {
  for (let waited = 0; ; waited += 100) {
    const [left] = await rows<{ n: string }>(
      'SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = {t:String} AND NOT is_done',
      { t: rowsTable() },
    )
    if (Number(left?.n) === 0) break
    if (waited > 60_000) throw new Error('the parts were not rewritten within a minute')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const [parts] = await rows<{ rows: string; marks: string }>(
    'SELECT sum(rows) AS rows, sum(marks) AS marks FROM system.parts WHERE database = currentDatabase() AND table = {t:String} AND active',
    { t: rowsTable() },
  )
  return Number(parts?.rows) / Number(parts?.marks)
}

/** The service's connection, with one statement (the `nth` matching `pattern`) failing as if the server were killed there. */
function failingAt(pattern: RegExp, nth = 1): ClickHouse {
  let seen = 0
  const command: ClickHouse['writer']['command'] = async (params) => {
    if (pattern.test(params.query) && ++seen === nth) throw new Error(`killed before: ${params.query}`)
    return ch.writer.command(params)
  }
  return { ...ch, writer: Object.assign(Object.create(ch.writer) as ClickHouse['writer'], { command }) }
}

describe('migration 011: the events table with small granules', () => {
  const months = [new Date('2026-08-03T00:00:00Z'), new Date('2026-09-03T00:00:00Z'), new Date('2026-10-03T00:00:00Z')]
  let before: Awaited<ReturnType<typeof fingerprint>>
  let countsBefore: Awaited<ReturnType<typeof dailyCounts>>
  const tokenBefore = randomUUID()

  it('starts from an earlier version’s table of large granules', async () => {
    for (const month of months) await insertBatch(month, 3000, month === months[0] ? tokenBefore : undefined)
    before = await fingerprint()
    countsBefore = await dailyCounts()
    expect(Number(before?.rows)).toBe(9000)
    expect(await engineOf(rowsTable())).not.toContain(`index_granularity_bytes = ${EVENT_GRANULE_BYTES}`)
    // About 1 kB per event: the 10 MiB bound lets one granule take all 3,000 rows of a month (a part also has a closing mark).
    expect(await rowsPerGranule()).toBeGreaterThan(1000)
  })

  it('finishes on a later start wherever a crash stopped it, keeping every event once', async () => {
    // Each run gets one step further than the one before: created, exchanged, one partition moved, all moved, rewritten.
    for (const crash of [/^EXCHANGE/, /MOVE PARTITION/, /MOVE PARTITION/, /REWRITE PARTS/, /^DROP TABLE/]) {
      const nth = crash.source === 'MOVE PARTITION' ? 2 : 1
      await expect(migrateClickHouse(failingAt(crash, nth))).rejects.toThrow(/killed before/)
      // Wherever it stopped, each event is in one of the two tables, once.
      const old = `${rowsTable()}_large_granules`
      const [inOld] = (await engineOf(old)) === undefined ? [] : await rows<{ n: string }>(`SELECT count() AS n FROM ${old}`)
      expect(Number((await fingerprint())?.rows) + Number(inOld?.n ?? 0)).toBe(9000)
    }
    expect(await migrateClickHouse(ch)).toEqual([MIGRATION])
    expect(await fingerprint()).toEqual(before)
    expect(await dailyCounts()).toEqual(countsBefore)
    expect(await engineOf(rowsTable())).toContain(`index_granularity_bytes = ${EVENT_GRANULE_BYTES}`)
    expect(await engineOf(`${rowsTable()}_large_granules`)).toBeUndefined()
  })

  it('rewrites the stored parts with granules of at most 256 KiB', async () => {
    // ~1 kB per event: a 256 KiB granule holds a few hundred of them.
    expect(await rowsPerGranule()).toBeLessThan(400)
  })

  it('stores, counts and deduplicates new batches as before', async () => {
    const token = randomUUID()
    await insertBatch(new Date('2026-11-02T00:00:00Z'), 500, token)
    await insertBatch(new Date('2026-11-02T00:00:00Z'), 500, token)
    expect(Number((await fingerprint())?.rows)).toBe(9500)
    const november = (await dailyCounts()).filter((c) => c.day.startsWith('2026-11'))
    expect(november.reduce((sum, c) => sum + Number(c.events), 0)).toBe(500)
    const [plans] = await rows<{ pro: string }>(`SELECT countIf(${materializedColumnName('plan')} = 'pro') AS pro FROM events`)
    expect(Number(plans?.pro)).toBe(4750)
  })

  it('forgets the insert tokens of before it, which is why a resumed batch is checked against what is stored (EventSink)', async () => {
    await insertBatch(months[0]!, 10, tokenBefore)
    expect(Number((await fingerprint())?.rows)).toBe(9510)
  })

  it('is not applied twice', async () => {
    expect(await migrateClickHouse(ch)).toEqual([])
  })
})

describe('the new table’s engine clause', () => {
  it('adds the granule bound to the old settings, or replaces the bound there', () => {
    expect(withSmallGranules('MergeTree ORDER BY a SETTINGS index_granularity = 8192', 'events', 'x')).toBe(
      `MergeTree ORDER BY a SETTINGS index_granularity = 8192, index_granularity_bytes = ${EVENT_GRANULE_BYTES}`,
    )
    expect(withSmallGranules('MergeTree ORDER BY a', 'events', 'x')).toBe(
      `MergeTree ORDER BY a SETTINGS index_granularity_bytes = ${EVENT_GRANULE_BYTES}`,
    )
    expect(withSmallGranules('MergeTree ORDER BY a SETTINGS index_granularity_bytes = 1048576, b = 1', 'events', 'x')).toBe(
      `MergeTree ORDER BY a SETTINGS index_granularity_bytes = ${EVENT_GRANULE_BYTES}, b = 1`,
    )
  })

  it('gives a replicated table a replication path of its own', () => {
    expect(
      withSmallGranules(
        "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/posthog.events_local', '{replica}', inserted_at) ORDER BY a",
        'events_local',
        'events_local_large_granules',
      ),
    ).toBe(
      `ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/posthog.events_local_large_granules', '{replica}', inserted_at) ORDER BY a SETTINGS index_granularity_bytes = ${EVENT_GRANULE_BYTES}`,
    )
    expect(() => withSmallGranules("ReplicatedMergeTree('/t/{shard}/other', '{replica}') ORDER BY a", 'events_local', 'x')).toThrow(
      /replication path/,
    )
  })
})
