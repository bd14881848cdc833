import { randomUUID } from 'node:crypto'
import type { EventRow, EventRowToEncode } from '@burrow/clickhouse'

/** A realistic browser pageview as posthog-js sends it: about 300 bytes of JSON. */
export function benchEvent(i: number): Record<string, unknown> {
  return {
    event: '$pageview',
    distinct_id: `user-${i % 5000}`,
    properties: {
      $current_url: `https://app.example.com/dashboard/${i % 97}?tab=overview`,
      $browser: 'Chrome',
      $browser_version: 126,
      $os: 'Mac OS X',
      $device_type: 'Desktop',
      $screen_width: 1512,
      $lib: 'web',
      $lib_version: '1.160.0',
      $session_id: '0190f0a2-1c5d-7e4b-9d2a-3f1e5b7c9d01',
    },
  }
}

/** The events-table row the service would store for benchEvent(i), as capture encodes it (the properties an object). */
export function benchRowToEncode(i: number): EventRowToEncode {
  const e = benchEvent(i) as { event: string; distinct_id: string; properties: Record<string, unknown> }
  const now = new Date().toISOString().replace('T', ' ').replace('Z', '000')
  return {
    uuid: randomUUID(),
    event: e.event,
    properties: { ...e.properties, $ip: '127.0.0.1' },
    timestamp: now,
    team_id: 1,
    distinct_id: e.distinct_id,
    elements_chain: '',
    created_at: now,
    person_id: '00000000-0000-0000-0000-000000000000',
  }
}

/** The same row as a client inserts it the plain way: the properties as JSON text. */
export function benchRow(i: number): EventRow {
  const row = benchRowToEncode(i)
  return { ...row, properties: JSON.stringify(row.properties) }
}
