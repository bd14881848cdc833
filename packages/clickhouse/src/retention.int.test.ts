import { describe, expect, it } from 'vitest'
import { useSuiteClickHouse } from '../test/suiteClickHouse'
import { applyRetention, tableTtl } from './retention'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'
import { toClickHouseDateTimeUs } from './datetime'

const suite = useSuiteClickHouse('burrow-retention-')

const DAY_MS = 86_400_000
const eventAt = (uuid: string, ms: number) =>
  encodeEventRow({
    uuid,
    event: 'e',
    properties: {},
    timestamp: toClickHouseDateTimeUs(ms * 1000),
    team_id: 1,
    distinct_id: 'd',
    elements_chain: '',
    created_at: toClickHouseDateTimeUs(ms * 1000),
    person_id: NIL_UUID,
  })

async function ttls(): Promise<Record<string, string | undefined>> {
  const result = await suite.ch.reader.query({
    query: 'SELECT name, engine_full FROM system.tables WHERE database = currentDatabase()',
    format: 'JSONEachRow',
  })
  return Object.fromEntries((await result.json<{ name: string; engine_full: string }>()).map((t) => [t.name, tableTtl(t.engine_full)]))
}

describe('retention', () => {
  it('removes events older than EVENT_RETENTION_DAYS, and keeps every event again once it is unset', async () => {
    const old = '0190f0a2-1c5d-7e4b-9d2a-000000000001'
    const recent = '0190f0a2-1c5d-7e4b-9d2a-000000000002'
    await insertEncodedEvents(suite.ch, Buffer.from(eventAt(old, Date.now() - 40 * DAY_MS) + eventAt(recent, Date.now() - DAY_MS)))

    expect(await applyRetention(suite.ch, { events: 30, deadLetters: 10, pluginLogs: 3 })).toEqual([
      'events: TTL toDateTime(timestamp) + toIntervalDay(30)',
      'events_dead_letter_queue: TTL toDate(_timestamp) + toIntervalDay(10)',
      'plugin_log_entries: TTL toDateTime(timestamp) + toIntervalDay(3)',
    ])
    // ClickHouse applies a TTL on merges; a final merge applies it now.
    await suite.ch.writer.command({ query: `OPTIMIZE TABLE ${suite.ch.layout.rowsTable('events')} FINAL` })
    const result = await suite.ch.reader.query({ query: 'SELECT toString(uuid) AS uuid FROM events FINAL', format: 'JSONEachRow' })
    expect((await result.json<{ uuid: string }>()).map((r) => r.uuid)).toEqual([recent])

    // The same settings at the next start change nothing.
    expect(await applyRetention(suite.ch, { events: 30, deadLetters: 10, pluginLogs: 3 })).toEqual([])

    expect(await applyRetention(suite.ch, { events: undefined, deadLetters: 28, pluginLogs: 7 })).toHaveLength(3)
    expect(await ttls()).toMatchObject({
      [suite.ch.layout.rowsTable('events')]: undefined,
      events_dead_letter_queue: 'toDate(_timestamp) + toIntervalDay(28)',
      plugin_log_entries: 'toDateTime(timestamp) + toIntervalDay(7)',
    })
  })
})
