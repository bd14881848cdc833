// The read-path benchmark: `npm run bench:query`. Seeds one project of the service (embedded
// defaults) with realistic events straight into its ClickHouse storage (20 event names, 100,000
// distinct ids, 15 properties, 30 days; seeding is not measured), and 100,000 persons through
// capture, then measures p50/p99 over repeated calls of the private API's reads, at 1 million
// events (the latest page only, for the growth ratio) and at 10 million (every read), and the
// analytics queries of `/query/` (a trend with a breakdown, a funnel, a retention, the web
// overview and pages table, stickiness, paths, a formula trend, a HogQL breakdown, an action, a
// HogQL aggregate), each computed afresh (`refresh: force_blocking`); then, with the service
// stopped, the same questions as plain ClickHouse statements, for each kind's ratio to the engine.
// BENCH_EVENTS (default 10,000,000) and BENCH_CALLS (default 15 per read) change the scale;
// BENCH_KEEP=1 keeps the seeded data and BENCH_REUSE=<dir> measures it again.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { connectClickHouse, type ClickHouse } from '@burrow/clickhouse'
import { benchDataDir, percentile, sleep, startService, stop, type Service } from './bench/harness'
import { PERSONS, seedSql } from './bench/querySeed'

const TOTAL = Number(process.env.BENCH_EVENTS ?? 10_000_000)
const FIRST = Math.min(1_000_000, TOTAL)
const CALLS = Number(process.env.BENCH_CALLS ?? 15)

async function seedEvents(dataDir: string, teamId: number, from: number, count: number): Promise<void> {
  const started = performance.now()
  const ch = await connectClickHouse({ dataDir })
  try {
    const step = 1_000_000
    for (let at = from; at < from + count; at += step) {
      await ch.writer.command({ query: seedSql(teamId, at, Math.min(step, from + count - at), Date.now()) })
    }
    // What the service's own inserts do to the daily counts, the seeding does once for its rows.
    await ch.writer.command({ query: 'OPTIMIZE TABLE event_daily_counts FINAL' })
    await mergesSettled(ch)
  } finally {
    await ch.close()
  }
  console.log(`  seeded ${count.toLocaleString('en')} events in ${Math.round((performance.now() - started) / 1000)} s`)
}

/**
 * Waits until ClickHouse has merged the seeded parts as far as it will on its own (no merge of
 * the events for 3 s, at most 2 minutes), so that the reads at 1 M and at 10 M events are both
 * measured on settled parts rather than one of them beside a merge.
 */
async function mergesSettled(ch: ClickHouse): Promise<void> {
  const started = performance.now()
  let quietSince = performance.now()
  while (performance.now() - quietSince < 3000 && performance.now() - started < 120_000) {
    const result = await ch.reader.query({
      query: `SELECT count() AS n FROM system.merges WHERE table LIKE 'events%'`,
      format: 'JSONEachRow',
    })
    if (Number((await result.json<{ n: string }>())[0]?.n) > 0) quietSince = performance.now()
    await sleep(250)
  }
}

/** 100,000 persons with properties, identified through /batch/ as an SDK would. */
async function seedPersons(service: Service): Promise<void> {
  const started = performance.now()
  for (let at = 0; at < PERSONS; at += 1000) {
    const batch = Array.from({ length: 1000 }, (_, i) => {
      const n = at + i
      return {
        event: '$identify',
        distinct_id: `user-${n}`,
        properties: { $set: { email: `user-${n}@example.com`, plan: ['free', 'pro', 'enterprise'][n % 3], seats: n % 50 } },
      }
    })
    const res = await fetch(`${service.base}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: service.token, batch }) })
    if (!res.ok) throw new Error(`seeding persons: ${res.status}`)
  }
  while (((await service.api('/api/projects/@current/persons/?limit=1&offset=99999')).results?.length ?? 0) < 1) await sleep(1000)
  console.log(`  seeded ${PERSONS.toLocaleString('en')} persons in ${Math.round((performance.now() - started) / 1000)} s`)
}

interface Figure {
  name: string
  p50: number
  p99: number
  max: number
}

/** Calls `call` CALLS times after two unmeasured calls; ms figures. */
async function measure(name: string, call: () => Promise<unknown>): Promise<Figure> {
  for (let i = 0; i < 2; i++) await call()
  const times: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
  }
  const figure = { name, p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times) }
  console.log(`  ${name.padEnd(44)} p50 ${figure.p50.toFixed(1).padStart(7)} ms   p99 ${figure.p99.toFixed(1).padStart(7)} ms`)
  return figure
}

/** A GET of the private API that must answer 200 (a failure is not a figure). */
function get(service: Service, path: string): () => Promise<unknown> {
  return async () => {
    const res = await fetch(`${service.base}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
    const body = await res.text()
    if (!res.ok) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`)
    return JSON.parse(body)
  }
}

const KEY = 'phx_benchmarkbenchmarkbenchmarkbenchmark00'
const events = (query: string) => `/api/projects/@current/events/?${query}`
const filter = (...conditions: Array<{ key: string; value: string }>) => `properties=${encodeURIComponent(JSON.stringify(conditions))}`

async function measureAll(service: Service): Promise<Figure[]> {
  const figures: Figure[] = []
  figures.push(await measure('latest 100 events', get(service, events('limit=100'))))
  figures.push(await measure('by event (purchase)', get(service, events('limit=100&event=purchase'))))
  figures.push(await measure('by distinct id', get(service, events('limit=100&distinct_id=user-4242'))))
  figures.push(
    await measure(
      '1 property filter ($browser, own column)',
      get(service, events(`limit=100&${filter({ key: '$browser', value: 'Firefox' })}`)),
    ),
  )
  figures.push(
    await measure('1 property filter (plan, JSON)', get(service, events(`limit=100&${filter({ key: 'plan', value: 'enterprise' })}`))),
  )
  figures.push(
    await measure(
      '3 property filters',
      get(
        service,
        events(`limit=100&${filter({ key: '$browser', value: 'Firefox' }, { key: '$os', value: 'Linux' }, { key: 'plan', value: 'pro' })}`),
      ),
    ),
  )
  figures.push(await measure('offset=100000', get(service, events('limit=100&offset=100000'))))
  // The keyset step that following `next` from there takes.
  const deep = (await get(service, events('limit=100&offset=100000'))()) as { next: string }
  const next = new URL(deep.next)
  figures.push(await measure('next from offset 100000 (keyset)', get(service, `${next.pathname}${next.search}`)))
  figures.push(await measure('events/values $browser (own column)', get(service, '/api/projects/@current/events/values/?key=$browser')))
  figures.push(await measure('events/values plan (JSON)', get(service, '/api/projects/@current/events/values/?key=plan')))
  // A search no one made before misses the shared cache: the cost of computing the values.
  let searches = 0
  figures.push(
    await measure('events/values plan (JSON), not cached', () =>
      get(service, `/api/projects/@current/events/values/?key=plan&value=${encodeURIComponent(`e${'\u200b'.repeat(++searches)}`)}`)(),
    ),
  )
  figures.push(await measure('event definitions', get(service, '/api/projects/@current/event_definitions/')))
  figures.push(await measure('persons list', get(service, '/api/projects/@current/persons/?limit=100')))
  figures.push(await measure('a cohort calculation (plan = pro, 100k persons)', () => calculateCohort(service)))
  figures.push(...(await measureQueries(service)))
  return figures
}

/** A `/query/` call computed afresh (never the cache), which must answer 200. */
function query(service: Service, body: Record<string, unknown>): () => Promise<unknown> {
  return async () => {
    const res = await fetch(`${service.base}/api/projects/@current/query/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: body, refresh: 'force_blocking' }),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`query ${String(body.kind)}: ${res.status} ${text.slice(0, 300)}`)
    return JSON.parse(text)
  }
}

/** The analytics queries issue 24 sets targets for: trends ≤ 300 ms, funnel ≤ 1 s, retention ≤ 1 s (p50). */
async function measureQueries(service: Service): Promise<Figure[]> {
  const node = (event: string) => ({ kind: 'EventsNode', event })
  return [
    await measure(
      'trend: 30 days daily, breakdown $browser',
      query(service, {
        kind: 'TrendsQuery',
        series: [node('$pageview')],
        interval: 'day',
        dateRange: { date_from: '-30d' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
      }),
    ),
    await measure(
      'funnel: 4 steps, 30 days',
      query(service, {
        kind: 'FunnelsQuery',
        series: [node('$pageview'), node('signed up'), node('added to cart'), node('purchase')],
        dateRange: { date_from: '-30d' },
      }),
    ),
    await measure(
      'retention: 8 weeks',
      query(service, {
        kind: 'RetentionQuery',
        dateRange: { date_from: '-56d' },
        retentionFilter: {
          period: 'Week',
          totalIntervals: 8,
          targetEntity: { id: 'signed up', type: 'events' },
          returningEntity: { id: '$pageview', type: 'events' },
        },
      }),
    ),
    await measure(
      'web overview: 7 days, compared',
      query(service, { kind: 'WebOverviewQuery', dateRange: { date_from: '-7d' }, properties: [], compareFilter: { compare: true } }),
    ),
    await measure(
      'web stats table: pages, 7 days, bounce rate',
      query(service, {
        kind: 'WebStatsTableQuery',
        breakdownBy: 'Page',
        includeBounceRate: true,
        dateRange: { date_from: '-7d' },
        properties: [],
        limit: 10,
      }),
    ),
    await measure(
      'stickiness: 30 days, daily',
      query(service, { kind: 'StickinessQuery', series: [node('$pageview')], interval: 'day', dateRange: { date_from: '-30d' } }),
    ),
    await measure(
      'paths: 7 days of pages, 5 steps',
      query(service, {
        kind: 'PathsQuery',
        dateRange: { date_from: '-7d' },
        pathsFilter: { includeEventTypes: ['$pageview'], stepLimit: 5 },
      }),
    ),
    await measure(
      'formula trend: purchases per page view, 30 days',
      query(service, {
        kind: 'TrendsQuery',
        series: [node('purchase'), node('$pageview')],
        interval: 'day',
        dateRange: { date_from: '-30d' },
        trendsFilter: { formula: 'A/B' },
      }),
    ),
    await measure(
      'HogQL breakdown trend: 30 days, by plan and browser',
      query(service, {
        kind: 'TrendsQuery',
        series: [node('$pageview')],
        interval: 'day',
        dateRange: { date_from: '-30d' },
        breakdownFilter: { breakdown_type: 'hogql', breakdown: "concat(properties.plan, ' on ', properties.$browser)" },
      }),
    ),
    await measure(
      'action trend: 2 steps (pricing page, purchase), 30 days',
      query(service, {
        kind: 'TrendsQuery',
        series: [{ kind: 'ActionsNode', id: await pricingAction(service) }],
        dateRange: { date_from: '-30d' },
      }),
    ),
    await measure(
      'HogQL: events per name, 30 days',
      query(service, {
        kind: 'HogQLQuery',
        query: 'SELECT event, count() AS n FROM events WHERE timestamp > now() - INTERVAL 30 DAY GROUP BY event ORDER BY n DESC',
      }),
    ),
  ]
}

/** An action of two steps: a view of the pricing page, or a purchase. */
async function pricingAction(service: Service): Promise<number> {
  const action = (await service.api('/api/projects/@current/actions/', {
    method: 'POST',
    body: { name: `pricing or purchase ${Date.now()}`, steps: [{ event: '$pageview', url: '/pricing' }, { event: 'purchase' }] },
  })) as { id: number }
  return action.id
}

/**
 * The same questions as plain ClickHouse statements over the events table (no persons, no
 * parameters, no timezone), measured on the same data with the service stopped: what the engine
 * alone takes, so that each kind's ratio to it shows what the service adds.
 */
async function measurePlainStatements(dataDir: string, teamId: number): Promise<Figure[]> {
  const ch = await connectClickHouse({ dataDir })
  const team = `team_id = ${Math.trunc(teamId)}`
  const days = (n: number) => `timestamp >= now() - INTERVAL ${n} DAY`
  const statement = (sql: string) => async () => {
    const result = await ch.reader.query({ query: sql, format: 'JSONEachRow' })
    return result.json()
  }
  try {
    return [
      await measure(
        'plain: trend breakdown $browser',
        statement(`SELECT toDate(timestamp) AS day, JSONExtractString(properties, '$browser') AS browser, count()
          FROM events WHERE ${team} AND event = '$pageview' AND ${days(30)} GROUP BY day, browser`),
      ),
      await measure(
        'plain: stickiness',
        statement(`SELECT n, count() FROM (
            SELECT distinct_id, uniqExact(toDate(timestamp)) AS n FROM events
            WHERE ${team} AND event = '$pageview' AND ${days(30)} GROUP BY distinct_id
          ) GROUP BY n`),
      ),
      await measure(
        'plain: paths',
        statement(`SELECT concat(toString(i), '_', a) AS source, concat(toString(i + 1), '_', b) AS target, count() AS value FROM (
            SELECT arraySlice(arrayMap(x -> x.2, arraySort(groupArray((timestamp, JSONExtractString(properties, '$pathname'))))), 1, 5) AS path
            FROM events WHERE ${team} AND event = '$pageview' AND ${days(7)} GROUP BY distinct_id
          ) ARRAY JOIN arrayEnumerate(arrayPopBack(path)) AS i, arrayPopBack(path) AS a, arrayPopFront(path) AS b
          GROUP BY source, target ORDER BY value DESC LIMIT 50`),
      ),
      await measure(
        'plain: formula trend',
        statement(`SELECT toDate(timestamp) AS day, countIf(event = 'purchase') / countIf(event = '$pageview') AS value
          FROM events WHERE ${team} AND event IN ('purchase', '$pageview') AND ${days(30)} GROUP BY day`),
      ),
      await measure(
        'plain: web overview',
        statement(`SELECT ${days(7)} AS current, uniq(distinct_id), count(), uniq(JSONExtractString(properties, '$session_id'))
          FROM events WHERE ${team} AND event = '$pageview' AND ${days(14)} GROUP BY current`),
      ),
      await measure(
        'plain: web stats table',
        statement(`SELECT JSONExtractString(properties, '$pathname') AS page, uniq(distinct_id) AS visitors, count() AS views
          FROM events WHERE ${team} AND event = '$pageview' AND ${days(7)} GROUP BY page ORDER BY visitors DESC LIMIT 10`),
      ),
    ]
  } finally {
    await ch.close()
  }
}

let cohorts = 0

/** Creates a cohort of persons by property and waits until its calculation is done. */
async function calculateCohort(service: Service): Promise<void> {
  const cohort = (await service.api('/api/projects/@current/cohorts/', {
    method: 'POST',
    body: { name: `pro ${++cohorts}`, filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } } },
  })) as { id: number }
  for (;;) {
    const state = (await service.api(`/api/projects/@current/cohorts/${cohort.id}/`)) as { is_calculating: boolean; count: number | null }
    if (!state.is_calculating && state.count !== null) return
    await sleep(20)
  }
}

/**
 * The seeded data directory with what the run measured at 1 million events, kept with
 * BENCH_KEEP=1 and measured again with BENCH_REUSE=<dir> (seeding takes many minutes; the events
 * end at the time of seeding, so reuse it within the hour).
 */
interface Seeded {
  token: string
  projectId: number
  smallP50: number
}

async function seed(dataDir: string): Promise<Seeded> {
  let service = await startService(dataDir)
  const project = (await service.api('/api/projects/@current/')) as { id: number }
  await seedPersons(service)
  await stop(service.child)
  await seedEvents(dataDir, project.id, 0, FIRST)
  service = await startService(dataDir, service.token)
  console.log(`at ${FIRST.toLocaleString('en')} events:`)
  const small = await measure('latest 100 events', get(service, events('limit=100')))
  await stop(service.child)
  if (TOTAL > FIRST) await seedEvents(dataDir, project.id, FIRST, TOTAL - FIRST)
  const seeded = { token: service.token, projectId: project.id, smallP50: small.p50 }
  writeFileSync(path.join(dataDir, 'bench-query.json'), JSON.stringify(seeded))
  return seeded
}

const reuse = process.env.BENCH_REUSE
const dataDir = reuse ?? benchDataDir('burrow-bench-query-')
console.log(`bench:query: ${TOTAL.toLocaleString('en')} events, ${CALLS} calls per read (data in ${dataDir})`)
if (!reuse && process.env.BENCH_KEEP !== '1') process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))
const seeded = reuse ? (JSON.parse(readFileSync(path.join(reuse, 'bench-query.json'), 'utf8')) as Seeded) : await seed(dataDir)
const service = await startService(dataDir, seeded.token)
try {
  console.log(`at ${TOTAL.toLocaleString('en')} events:`)
  const figures = await measureAll(service)
  const latest = figures[0]!
  // The events API's reads (the /query/ kinds have targets of their own, below).
  const queries = new Set(['trend', 'funnel', 'retention', 'HogQL'])
  const slowest = figures.filter((f) => !queries.has(f.name.split(':')[0]!)).reduce((a, b) => (b.max > a.max ? b : a))
  console.log('')
  console.log(`latest 100 events p50 at ${TOTAL / 1e6} M: ${latest.p50.toFixed(1)} ms (target ≤ 50 ms)`)
  console.log(`latest 100 events p50, ${TOTAL / 1e6} M / ${FIRST / 1e6} M: ${(latest.p50 / seeded.smallP50).toFixed(2)} (target ≤ 2)`)
  const propertyFilter = figures.find((f) => f.name.startsWith('1 property filter ($browser'))!
  console.log(`a property filter p50: ${propertyFilter.p50.toFixed(1)} ms (target ≤ 300 ms)`)
  console.log(`slowest single read: ${slowest.max.toFixed(0)} ms, ${slowest.name} (target ≤ 1000 ms)`)
  const of = (prefix: string) => figures.find((f) => f.name.startsWith(prefix))!.p50.toFixed(0)
  console.log(
    `trend p50 ${of('trend')} ms (target ≤ 300), funnel p50 ${of('funnel')} ms (≤ 1000), retention p50 ${of('retention')} ms (≤ 1000)`,
  )
  await stop(service.child)
  console.log('')
  console.log('the same questions as plain ClickHouse statements, the service stopped:')
  const plain = await measurePlainStatements(dataDir, seeded.projectId)
  const pairs: Array<[string, string]> = [
    ['trend: 30 days daily', 'plain: trend breakdown'],
    ['stickiness', 'plain: stickiness'],
    ['paths', 'plain: paths'],
    ['formula trend', 'plain: formula trend'],
    ['web overview', 'plain: web overview'],
    ['web stats table', 'plain: web stats table'],
  ]
  console.log('')
  for (const [kind, statement] of pairs) {
    const served = figures.find((f) => f.name.startsWith(kind))!
    const base = plain.find((f) => f.name.startsWith(statement))!
    console.log(
      `${served.name.padEnd(52)} p50 ${served.p50.toFixed(0).padStart(5)} ms, plain ${base.p50.toFixed(0).padStart(5)} ms, ratio ${(served.p50 / base.p50).toFixed(1)} (target p50 ≤ 1000 ms)`,
    )
  }
} finally {
  await stop(service.child)
}
