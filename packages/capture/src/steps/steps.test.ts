import { describe, expect, it } from 'vitest'
import { runPipeline, type RequestContext } from '../pipeline'
import { INGESTION_STEPS } from './index'
import { parseTimestampUs } from './timestamp'

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0)
const ctx = (over: Partial<RequestContext> = {}): RequestContext => ({
  project: { id: 1, anonymizeIps: false },
  ip: '203.0.113.9',
  nowMs: NOW,
  sentAtMs: undefined,
  ...over,
})

function run(raw: Record<string, unknown>, c = ctx()) {
  return runPipeline(INGESTION_STEPS, raw, c)
}

function accepted(raw: Record<string, unknown>, c = ctx()) {
  const outcome = run(raw, c)
  if (outcome.kind !== 'ok') throw new Error(`expected the event to pass, got ${JSON.stringify(outcome)}`)
  return outcome.event
}

describe('the spec’s silent drops', () => {
  it('drops an event without a name', () => {
    expect(run({ distinct_id: 'd' })).toMatchObject({ kind: 'drop', reason: 'missing_event_name' })
    expect(run({ event: '', distinct_id: 'd' })).toMatchObject({ kind: 'drop', reason: 'missing_event_name' })
  })
  it('drops an event without a distinct_id, or with an empty one', () => {
    expect(run({ event: 'e' })).toMatchObject({ kind: 'drop', reason: 'missing_distinct_id' })
    expect(run({ event: 'e', distinct_id: null })).toMatchObject({ kind: 'drop', reason: 'missing_distinct_id' })
    expect(run({ event: 'e', distinct_id: '' })).toMatchObject({ kind: 'drop', reason: 'empty_distinct_id' })
    expect(run({ event: 'e', distinct_id: '   ' })).toMatchObject({ kind: 'drop', reason: 'empty_distinct_id' })
  })
  it('drops an event whose name is not a string', () => {
    expect(run({ event: 42, distinct_id: 'd' })).toMatchObject({ kind: 'drop', reason: 'invalid_event_name' })
  })
})

describe('distinct_id', () => {
  it('comes from the top level first, then the properties', () => {
    expect(accepted({ event: 'e', distinct_id: 'top', properties: { distinct_id: 'prop' } }).distinctId).toBe('top')
    expect(accepted({ event: 'e', properties: { distinct_id: 'prop' } }).distinctId).toBe('prop')
    expect(accepted({ event: 'e', $distinct_id: 'dollar' }).distinctId).toBe('dollar')
  })
  it('stringifies numbers and objects (with sorted keys)', () => {
    expect(accepted({ event: 'e', distinct_id: 23 }).distinctId).toBe('23')
    expect(accepted({ event: 'e', distinct_id: { b: 1, a: 2 } }).distinctId).toBe('{"a":2,"b":1}')
  })
  it('keeps at most 200 characters and replaces NUL', () => {
    expect(accepted({ event: 'e', distinct_id: 'x'.repeat(10_000) }).distinctId).toHaveLength(200)
    expect(accepted({ event: 'e', distinct_id: 'a\u0000b' }).distinctId).toBe('a\uFFFDb')
  })
})

describe('uuid', () => {
  it("keeps the client's valid uuid and replaces an invalid one by a UUIDv7", () => {
    expect(accepted({ event: 'e', distinct_id: 'd', uuid: '0190F0A2-1C5D-7E4B-9D2A-4C6B8E0F1A23' }).uuid).toBe(
      '0190f0a2-1c5d-7e4b-9d2a-4c6b8e0f1a23',
    )
    expect(accepted({ event: 'e', distinct_id: 'd', uuid: '0190f0a21c5d7e4b9d2a4c6b8e0f1a23' }).uuid).toBe(
      '0190f0a2-1c5d-7e4b-9d2a-4c6b8e0f1a23',
    )
    const generated = accepted({ event: 'e', distinct_id: 'd', uuid: 'not-a-uuid' }).uuid
    expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
  it('generates distinct UUIDv7s that carry the current time', () => {
    const generated = Array.from({ length: 1000 }, () => accepted({ event: 'e', distinct_id: 'd' }).uuid)
    expect(new Set(generated).size).toBe(1000)
    const msOfFirst = parseInt(generated[0]!.replaceAll('-', '').slice(0, 12), 16)
    expect(Math.abs(msOfFirst - Date.now())).toBeLessThan(60_000)
  })
})

describe('timestamp', () => {
  it('parses ISO 8601 and the YYYY-MM-DD HH:MM:SS.ffffff form as UTC, keeping microseconds', () => {
    expect(parseTimestampUs('2024-01-02T03:04:05.123456Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123) * 1000 + 456)
    expect(parseTimestampUs('2024-01-02 03:04:05.123456')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123) * 1000 + 456)
    expect(parseTimestampUs('2024-01-02T03:04:05+03')).toBe(Date.UTC(2024, 0, 2, 0, 4, 5) * 1000)
    expect(parseTimestampUs(1_700_000_000)).toBe(1_700_000_000 * 1_000_000)
    expect(parseTimestampUs('yesterday')).toBeUndefined()
  })
  it('corrects client clock skew with sent_at', () => {
    // The client's clock is one hour fast: its event time moves back by an hour.
    const event = accepted(
      { event: 'e', distinct_id: 'd', timestamp: new Date(NOW + 3_600_000 - 5000).toISOString() },
      ctx({ sentAtMs: NOW + 3_600_000 }),
    )
    expect(event.timestampUs).toBe((NOW - 5000) * 1000)
  })
  it('uses now - offset when offset is given, and now when nothing is', () => {
    expect(accepted({ event: 'e', distinct_id: 'd', offset: 1500 }).timestampUs).toBe((NOW - 1500) * 1000)
    expect(accepted({ event: 'e', distinct_id: 'd' }).timestampUs).toBe(NOW * 1000)
  })
  it('clamps times more than 23 hours ahead to now', () => {
    const event = accepted({ event: 'e', distinct_id: 'd', timestamp: new Date(NOW + 48 * 3_600_000).toISOString() })
    expect(event.timestampUs).toBe(NOW * 1000)
  })
})

describe('properties', () => {
  it('merges top-level $set and $set_once into the properties', () => {
    const event = accepted({ event: '$identify', distinct_id: 'd', $set: { a: 1 }, properties: { $set: { a: 0, b: 2 } } })
    expect(event.properties.$set).toEqual({ a: 1, b: 2 })
  })
  it('keeps a __proto__ key sent by the client as an ordinary property, without touching the prototype', () => {
    const raw = JSON.parse('{"event":"e","distinct_id":"d","properties":{"__proto__":{"polluted":1},"a":1},"$set":{"__proto__":{"x":1}}}')
    const event = accepted(raw)
    expect(Object.getPrototypeOf(event.properties)).toBe(Object.prototype)
    expect((event.properties as { polluted?: unknown }).polluted).toBeUndefined()
    expect(JSON.parse(JSON.stringify(event.properties))).toMatchObject({ a: 1 })
    expect(JSON.stringify(event.properties)).toContain('"__proto__":{"polluted":1}')
    expect(JSON.stringify(event.properties.$set)).toBe('{"__proto__":{"x":1}}')
  })
  it('adds $ip unless the project anonymises IPs', () => {
    expect(accepted({ event: 'e', distinct_id: 'd' }).properties.$ip).toBe('203.0.113.9')
    const anonymous = accepted(
      { event: 'e', distinct_id: 'd', properties: { $ip: '1.2.3.4' } },
      ctx({ project: { id: 1, anonymizeIps: true } }),
    )
    expect(anonymous.properties).not.toHaveProperty('$ip')
  })
  it('moves autocapture elements into elements_chain as PostHog writes it, attr__class included', () => {
    const event = accepted({
      event: '$autocapture',
      distinct_id: 'd',
      properties: { $elements: [{ tag_name: 'a', attr__class: ['primary', 'btn'], $el_text: 'Go', attr__href: '/x', nth_child: 1 }] },
    })
    expect(event.elementsChain).toBe('a.btn.primary:attr__class="primary,btn"attr__href="/x"href="/x"nth-child="1"nth-of-type="0"text="Go"')
    expect(event.properties).not.toHaveProperty('$elements')
  })
})

describe('Segment-style messages', () => {
  it('turns identify into $identify with $set from traits', () => {
    const event = accepted({ type: 'identify', userId: 'u1', anonymousId: 'anon', traits: { email: 'a@b.c' }, messageId: 'm-1' })
    expect(event.name).toBe('$identify')
    expect(event.distinctId).toBe('u1')
    expect(event.properties.$set).toEqual({ email: 'a@b.c' })
    expect(event.properties.$anon_distinct_id).toBe('anon')
  })
  it('turns alias into $create_alias with properties.alias', () => {
    const event = accepted({ type: 'alias', userId: 'new', previousId: 'old' })
    expect(event.name).toBe('$create_alias')
    expect(event.properties.alias).toBe('old')
  })
  it('turns page and screen into $page and $screen with name and category', () => {
    const page = accepted({ type: 'page', anonymousId: 'a', name: 'Home', category: 'Docs', context: { page: { url: 'https://x.test/' } } })
    expect(page.name).toBe('$page')
    expect(page.properties).toMatchObject({ name: 'Home', category: 'Docs', $current_url: 'https://x.test/' })
    expect(accepted({ type: 'screen', userId: 'u', name: 'Settings' }).name).toBe('$screen')
  })
  it('turns track into the named event and group into $groupidentify', () => {
    expect(accepted({ type: 'track', userId: 'u', event: 'Clicked' }).name).toBe('Clicked')
    const group = accepted({ type: 'group', userId: 'u', groupId: 'acme', traits: { plan: 'pro' } })
    expect(group.name).toBe('$groupidentify')
    expect(group.properties).toMatchObject({ $group_key: 'acme', $group_set: { plan: 'pro' } })
  })
  it('leaves the spec’s typed PostHog samples as they are', () => {
    const event = accepted({ type: 'capture', event: '$event', distinct_id: 'd', properties: {} })
    expect(event.name).toBe('$event')
  })
})

describe('runPipeline', () => {
  it('sends an event to the dead letter queue when a step throws, naming the step', () => {
    const outcome = runPipeline(
      [
        {
          name: 'explodes',
          run: () => {
            throw new Error('boom')
          },
        },
      ],
      { event: 'e', distinct_id: 'd' },
      ctx(),
    )
    expect(outcome).toMatchObject({ kind: 'dlq', step: 'explodes', error: 'Error: boom' })
  })
})

describe('as PostHog stores events', () => {
  const at = (timestamp: string) => accepted({ event: 'e', distinct_id: 'd', timestamp }).timestampUs

  it('reads a date-only timestamp as midnight UTC, not as a time zone', () => {
    expect(at('2024-01-02')).toBe(Date.UTC(2024, 0, 2) * 1000)
    expect(at('2023-12-31')).toBe(Date.UTC(2023, 11, 31) * 1000)
  })

  it('accepts a zone written after a space', () => {
    expect(at('2024-01-02 03:04:05 +0000')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5) * 1000)
    expect(at('2024-01-02 03:04:05 +0200')).toBe(Date.UTC(2024, 0, 2, 1, 4, 5) * 1000)
    expect(at('2024-01-02T03:04:05-0130')).toBe(Date.UTC(2024, 0, 2, 4, 34, 5) * 1000)
  })

  it('keeps the first 200 characters of a longer event name', () => {
    expect(accepted({ event: 'n'.repeat(500), distinct_id: 'd' }).name).toBe('n'.repeat(200))
    // A surrogate pair is not cut in half.
    expect(accepted({ event: `${'n'.repeat(199)}😀tail`, distinct_id: 'd' }).name).toBe('n'.repeat(199))
  })

  it('gives an event the request’s address when its $ip is null or empty', () => {
    expect(accepted({ event: 'e', distinct_id: 'd', properties: { $ip: null } }).properties.$ip).toBe('203.0.113.9')
    expect(accepted({ event: 'e', distinct_id: 'd', properties: { $ip: '' } }).properties.$ip).toBe('203.0.113.9')
    expect(accepted({ event: 'e', distinct_id: 'd', properties: { $ip: '198.51.100.1' } }).properties.$ip).toBe('198.51.100.1')
  })

  it('overwrites a client $sent_at with the request’s sent_at', () => {
    const event = accepted({ event: 'e', distinct_id: 'd', properties: { $sent_at: 'client' } }, ctx({ sentAtMs: NOW }))
    expect(event.properties.$sent_at).toBe(new Date(NOW).toISOString())
  })

  it('takes a non-empty $elements_chain over $elements, and keeps neither among the properties', () => {
    const both = accepted({
      event: '$autocapture',
      distinct_id: 'd',
      properties: { $elements_chain: 'button:text="Buy"', $elements: [{ tag_name: 'a' }] },
    })
    expect(both.elementsChain).toBe('button:text="Buy"')
    expect(both.properties).not.toHaveProperty('$elements')
    expect(both.properties).not.toHaveProperty('$elements_chain')
    const emptyChain = accepted({
      event: '$autocapture',
      distinct_id: 'd',
      properties: { $elements_chain: '', $elements: [{ tag_name: 'a' }] },
    })
    expect(emptyChain.elementsChain).toBe('a:nth-child="0"nth-of-type="0"')
  })

  it('accepts braced and urn:uuid: uuids', () => {
    const uuid = '0190f0a2-1c5d-7e4b-9d2a-4c6b8e0f1a23'
    expect(accepted({ event: 'e', distinct_id: 'd', uuid: `{${uuid}}` }).uuid).toBe(uuid)
    expect(accepted({ event: 'e', distinct_id: 'd', uuid: `urn:uuid:${uuid.toUpperCase()}` }).uuid).toBe(uuid)
    expect(accepted({ event: 'e', distinct_id: 'd', uuid: `{${uuid}` }).uuid).not.toBe(uuid)
  })

  it('leaves $heatmap_data out of the stored properties', () => {
    const event = accepted({ event: '$pageview', distinct_id: 'd', properties: { $heatmap_data: { '/': [] }, a: 1 } })
    expect(event.properties).not.toHaveProperty('$heatmap_data')
    expect(event.properties.a).toBe(1)
  })
})

describe('events PostHog does not store as events', () => {
  it('drops $performance_event and $$heatmap', () => {
    expect(run({ event: '$performance_event', distinct_id: 'd' })).toMatchObject({ kind: 'drop', reason: 'performance_event' })
    expect(run({ event: '$$heatmap', distinct_id: 'd' })).toMatchObject({ kind: 'drop', reason: 'heatmap' })
  })

  it('turns $$client_ingestion_warning into an ingestion warning', () => {
    const outcome = run({
      event: '$$client_ingestion_warning',
      distinct_id: 'd',
      uuid: '0190f0a2-1c5d-7e4b-9d2a-4c6b8e0f1a23',
      properties: { $$client_ingestion_warning_message: 'rate limited' },
    })
    expect(outcome).toMatchObject({
      kind: 'drop',
      warning: {
        type: 'client_ingestion_warning',
        details: {
          eventUuid: '0190f0a2-1c5d-7e4b-9d2a-4c6b8e0f1a23',
          event: '$$client_ingestion_warning',
          distinctId: 'd',
          message: 'rate limited',
        },
      },
    })
  })
})

describe('$process_person_profile', () => {
  it.each(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify'])(
    'drops %s sent without a person profile, with a warning',
    (name) => {
      const outcome = run({ event: name, distinct_id: 'd', properties: { $process_person_profile: false, $anon_distinct_id: 'a' } })
      expect(outcome).toMatchObject({
        kind: 'drop',
        warning: { type: 'invalid_event_when_process_person_profile_is_false', details: { event: name, distinctId: 'd' } },
      })
    },
  )

  it('strips $set, $set_once and $unset from an event without a person profile', () => {
    const event = accepted({
      event: '$pageview',
      distinct_id: 'd',
      $set: { a: 1 },
      properties: { $process_person_profile: false, $set_once: { b: 1 }, $unset: ['c'], $browser: 'Firefox' },
    })
    expect(event.properties).not.toHaveProperty('$set')
    expect(event.properties).not.toHaveProperty('$set_once')
    expect(event.properties).not.toHaveProperty('$unset')
    expect(event.properties.$process_person_profile).toBe(false)
    expect(event.person).toMatchObject({ distinctId: 'd', noPerson: true })
  })

  it('removes the property itself when it is true', () => {
    const event = accepted({ event: '$pageview', distinct_id: 'd', properties: { $process_person_profile: true } })
    expect(event.properties).not.toHaveProperty('$process_person_profile')
  })
})

describe('person changes', () => {
  it('copies initial and campaign properties into $set and, as $initial_*, into $set_once', () => {
    const event = accepted({
      event: '$pageview',
      distinct_id: 'd',
      properties: { $browser: 'Chrome', $os: 'Mac OS X', utm_source: 'newsletter', gclid: 'g-1', $current_url: 'https://x.test/' },
    })
    // PostHog's filtered properties (page, browser, device) update a person only along with another change (softSet);
    // campaign parameters are changes of their own.
    expect(event.person).toEqual({
      distinctId: 'd',
      set: { utm_source: 'newsletter', gclid: 'g-1' },
      softSet: { $browser: 'Chrome', $os: 'Mac OS X', $current_url: 'https://x.test/' },
      setOnce: {
        $initial_browser: 'Chrome',
        $initial_os: 'Mac OS X',
        $initial_utm_source: 'newsletter',
        $initial_gclid: 'g-1',
        $initial_current_url: 'https://x.test/',
      },
    })
  })

  it('keeps the client’s own properties and the GeoIP values PostHog does not filter in $set, and every property of a person event', () => {
    const pageview = accepted({
      event: '$pageview',
      distinct_id: 'd',
      properties: {
        $browser: 'Chrome',
        $set: { plan: 'pro', $geoip_country_name: 'France', $geoip_country_code: 'FR', $geoip_latitude: 48.8 },
      },
    })
    expect(pageview.person).toMatchObject({
      set: { plan: 'pro', $geoip_country_name: 'France', $geoip_country_code: 'FR' },
      softSet: { $browser: 'Chrome', $geoip_latitude: 48.8 },
    })
    const identify = accepted({ event: '$identify', distinct_id: 'd', properties: { $browser: 'Chrome', $set: { plan: 'pro' } } })
    expect(identify.person).toMatchObject({ set: { plan: 'pro', $browser: 'Chrome' } })
    expect((identify.person as { softSet?: unknown }).softSet).toBeUndefined()
  })

  it('lets the client’s own $set and $set_once win, and puts no null into $set_once', () => {
    const event = accepted({
      event: '$pageview',
      distinct_id: 'd',
      properties: { $browser: 'Chrome', utm_source: null, $set: { $browser: 'Mine' }, $set_once: { $initial_browser: 'First' } },
    })
    expect(event.properties.$set).toEqual({ $browser: 'Mine', utm_source: null })
    expect(event.properties.$set_once).toEqual({ $initial_browser: 'First' })
  })

  it('does not take a server library’s $os for the person, and reads $os_name as the initial $os', () => {
    const server = accepted({ event: 'e', distinct_id: 'd', properties: { $is_server: true, $os: 'Linux', $browser: 'x' } })
    expect(server.properties.$set).toEqual({ $browser: 'x' })
    const mobile = accepted({ event: 'e', distinct_id: 'd', properties: { $os_name: 'iOS' } })
    expect(mobile.properties.$set).toEqual({})
    expect(mobile.properties.$set_once).toEqual({ $initial_os: 'iOS' })
  })

  it.each(['$exception', '$$heatmap', '$groupidentify'])('never changes person properties from %s', (name) => {
    const run = runPipeline(
      INGESTION_STEPS.filter((s) => s.name !== 'divert_non_events'),
      {
        event: name,
        distinct_id: 'd',
        $set: { plan: 'x' },
        properties: { $browser: 'Chrome', $group_type: 'company', $group_key: 'acme' },
      },
      ctx(),
    )
    expect(run.kind).toBe('ok')
    if (run.kind === 'ok') expect(typeof run.event.person === 'string' ? {} : run.event.person).not.toHaveProperty('set')
  })
})

describe('placeholder distinct ids never merge, as PostHog’s isDistinctIdIllegal says', () => {
  const mergeWith = (anon: string, distinctId = 'user') => {
    const person = accepted({ event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: anon } }).person
    return typeof person === 'string' ? undefined : person.mergeWith
  }

  it('refuses quoted placeholders', () => {
    expect(mergeWith('"anonymous"')).toBeUndefined()
    expect(mergeWith("'null'")).toBeUndefined()
    expect(mergeWith('"Guest"')).toBeUndefined()
  })

  it('matches NaN, null, None and none only in that spelling, the others in any case', () => {
    expect(mergeWith('NaN')).toBeUndefined()
    expect(mergeWith('nan')).toBe('nan')
    expect(mergeWith('NULL')).toBe('NULL')
    expect(mergeWith('None')).toBeUndefined()
    expect(mergeWith('NONE')).toBe('NONE')
    expect(mergeWith('UnDeFiNeD')).toBeUndefined()
    expect(mergeWith('[object Object]')).toBeUndefined()
    expect(mergeWith('[OBJECT OBJECT]')).toBe('[OBJECT OBJECT]')
  })

  it('does not trim an id before comparing it', () => {
    expect(mergeWith(' anonymous')).toBe(' anonymous')
    expect(mergeWith('   ')).toBeUndefined()
  })
})
