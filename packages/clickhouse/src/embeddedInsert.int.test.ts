import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectClickHouse, type ClickHouse } from './connect'
import { toClickHouseDateTimeUs } from './datetime'
import { isDataRejection } from './errors'
import { migrateClickHouse } from './migrate'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

// The embedded engine itself, whatever TEST_CLICKHOUSE names: this is how it takes rows.
const root = mkdtempSync(path.join(tmpdir(), 'burrow-embedded-insert-'))
const bodies = path.join(root, 'clickhouse', 'insert-bodies')
let ch: ClickHouse
beforeAll(async () => {
  // What a process killed in the middle of an insert leaves behind; in a restarted container it
  // may have had the process id this one has.
  mkdirSync(bodies, { recursive: true })
  writeFileSync(path.join(bodies, '1-7'), '{"uuid":')
  writeFileSync(path.join(bodies, `${process.pid}-3`), '{"uuid":')
  ch = await connectClickHouse({ dataDir: root })
  await migrateClickHouse(ch)
})
afterAll(async () => {
  await ch.close()
  rmSync(root, { recursive: true, force: true })
})

const at = toClickHouseDateTimeUs(Date.UTC(2026, 10, 27, 9) * 1000)
const line = (uuid: string, properties: Record<string, unknown>) =>
  encodeEventRow({
    uuid,
    event: 'e',
    properties,
    timestamp: at,
    team_id: 1,
    distinct_id: 'd',
    elements_chain: '',
    created_at: at,
    person_id: NIL_UUID,
  })

const stored = async (uuids: string[]) =>
  (
    await ch.reader.query({
      query: 'SELECT toString(uuid) AS id, properties FROM events WHERE uuid IN {uuids:Array(UUID)} ORDER BY properties',
      query_params: { uuids },
      format: 'JSONEachRow',
    })
  ).json<{ id: string; properties: string }>()

describe('inserting into the embedded engine', () => {
  it('removes the bodies an earlier process left, and leaves none of its own', async () => {
    expect(readdirSync(bodies)).toEqual([])
    await insertEncodedEvents(ch, Buffer.from(line(randomUUID(), { a: 1 })))
    expect(readdirSync(bodies)).toEqual([])
  })

  it('stores the text of the properties byte for byte', async () => {
    const properties = {
      quote: `it's "quoted"`,
      backslash: 'C:\\path\\',
      tab: 'a\tb',
      newline: 'a\nb',
      unicode: 'Zürich 東京 🦫',
      empty: '',
    }
    const uuid = randomUUID()
    await insertEncodedEvents(ch, Buffer.from(line(uuid, properties)))
    const [row] = await stored([uuid])
    expect(JSON.parse(row!.properties)).toEqual(properties)
  })

  it('stores a batch inserted again under the same token once', async () => {
    const uuids = [randomUUID(), randomUUID()]
    const batch = Buffer.from(uuids.map((uuid, i) => line(uuid, { i })).join(''))
    const token = randomUUID()
    await insertEncodedEvents(ch, batch, { deduplicationToken: token })
    await insertEncodedEvents(ch, batch, { deduplicationToken: token })
    expect(await stored(uuids)).toHaveLength(2)
  })

  it('refuses a body it cannot parse as the data it is, and stores none of it', async () => {
    const uuid = randomUUID()
    const bad = Buffer.from(line(uuid, {}) + '{"uuid":"not a uuid","event":"e"}\n')
    const refused = await insertEncodedEvents(ch, bad).catch((err: unknown) => err)
    expect(isDataRejection(refused)).toBe(true)
    expect(await stored([uuid])).toEqual([])
    expect(readdirSync(bodies)).toEqual([])
  })
})
