import { randomUUID } from 'node:crypto'
import type { EventRow, EventRowToEncode } from '@burrow/clickhouse'

/**
 * A small pageview with the properties the benchmarks filter on: about 330 bytes of JSON, the size
 * of a server library's event. posthogJsPageview is what a browser sends.
 */
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

/** A UUIDv7-looking id that differs with `n`, as posthog-js makes its session, window and pageview ids. */
const jsId = (n: number) => `0193${((n * 2654435761) >>> 0).toString(16).padStart(8, '0')}-1c5d-7e4b-9d2a-3f1e5b7c9d01`

/**
 * A pageview as posthog-js (1.19x) sends it from a browser: its device, page, session and
 * configuration properties, about 2 kB of JSON (a non-ASCII title included).
 */
export function posthogJsPageview(i: number): Record<string, unknown> {
  const path = `/dashboard/${i % 97}`
  const url = `https://app.example.com${path}?tab=overview`
  return {
    event: '$pageview',
    distinct_id: `user-${i % 5000}`,
    properties: {
      $os: 'Mac OS X',
      $os_version: '10.15.7',
      $browser: 'Chrome',
      $device_type: 'Desktop',
      $timezone: 'Europe/Berlin',
      $timezone_offset: -60,
      $current_url: url,
      $host: 'app.example.com',
      $pathname: path,
      $raw_user_agent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      $browser_version: 126,
      $browser_language: 'en-US',
      $browser_language_prefix: 'en',
      $screen_height: 982,
      $screen_width: 1512,
      $viewport_height: 857,
      $viewport_width: 1512,
      $lib: 'web',
      $lib_version: '1.194.1',
      $insert_id: `kq3hx0mlc8x2n${i % 1000}`,
      $time: 1732658400.123 + i,
      distinct_id: `user-${i % 5000}`,
      $device_id: jsId(i),
      $console_log_recording_enabled_server_side: true,
      $session_recording_network_payload_capture: { capturePerformance: { network_timing: true, web_vitals: true } },
      $replay_sample_rate: null,
      $replay_script_config: null,
      $autocapture_disabled_server_side: false,
      $web_vitals_enabled_server_side: true,
      $dead_clicks_enabled_server_side: false,
      $web_vitals_allowed_metrics: ['LCP', 'CLS', 'FCP', 'INP'],
      $exception_capture_enabled_server_side: false,
      $referrer: '$direct',
      $referring_domain: '$direct',
      $is_identified: true,
      $process_person_profile: true,
      $session_id: jsId(i + 1),
      $window_id: jsId(i + 2),
      $pageview_id: jsId(i + 3),
      $session_entry_url: url,
      $session_entry_host: 'app.example.com',
      $session_entry_pathname: path,
      $session_entry_referrer: '$direct',
      $session_entry_referring_domain: '$direct',
      $configured_session_timeout_ms: 1800000,
      $lib_custom_api_host: 'https://burrow.example.com',
      $initial_person_info: { r: '$direct', u: url },
      title: 'Dashboard · Example',
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
