import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  cohortPeople,
  connectClickHouse,
  events,
  migrateClickHouse,
  NIL_UUID,
  persons,
  toClickHouseDateTimeUs,
  type ClickHouse,
} from '@burrow/clickhouse'
import { ApiProblem } from '@burrow/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { QueryContext } from '../context'
import { runEventsQuery, runHogQLQuery } from '../index'

/**
 * Two projects' events, persons and cohorts in one embedded ClickHouse; every expectation is
 * computed here from what was inserted.
 */
let ch: ClickHouse
const root = mkdtempSync(path.join(tmpdir(), 'burrow-hogql-'))
const NOW = new Date('2026-03-10T12:00:00Z')
const HOUR = 3_600_000

const TEAM_A = 7_001
const TEAM_B = 7_002

interface SentEvent {
  team: number
  event: string
  distinctId: string
  at: number
  properties: Record<string, unknown>
  /** The person stored on the row at ingestion (before any merge). */
  storedPerson: string
}
const sent: SentEvent[] = []

const personA1 = randomUUID()
const personA2 = randomUUID()
const personB1 = randomUUID()
const personsOf: Record<string, { id: string; email: string }> = {
  'a-1': { id: personA1, email: 'one@a.example' },
  'a-anon': { id: personA1, email: 'one@a.example' },
  'a-2': { id: personA2, email: 'two@a.example' },
  'b-1': { id: personB1, email: 'secret@b.example' },
}

function ctx(teamId: number, overrides: Partial<QueryContext> = {}): QueryContext {
  // HogQL and EventsQuery read their property filters themselves; the trends runners' resolver is not used.
  const properties = () => Promise.reject(new Error('not used by these runners'))
  return {
    ch,
    teamId,
    timezone: 'America/New_York',
    weekStartDay: 0,
    testAccountFilters: [],
    now: NOW,
    maxExecutionSeconds: 30,
    properties,
    ...overrides,
  }
}

const hogql = (teamId: number, query: string, values?: Record<string, unknown>) =>
  runHogQLQuery(ctx(teamId), { kind: 'HogQLQuery', query, ...(values ? { values } : {}) })

async function refusal(run: Promise<unknown>): Promise<ApiProblem> {
  const error: unknown = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof ApiProblem)) throw new Error(`expected a 400, got ${String(error)}`)
  return error
}

beforeAll(async () => {
  // With CLICKHOUSE_CLUSTER (the suite's cluster run), over Distributed tables.
  ch = await connectClickHouse({ dataDir: root, cluster: process.env.CLICKHOUSE_CLUSTER })
  await migrateClickHouse(ch)

  const add = (team: number, event: string, distinctId: string, hoursAgo: number, properties: Record<string, unknown>) =>
    sent.push({ team, event, distinctId, at: NOW.getTime() - hoursAgo * HOUR, properties, storedPerson: NIL_UUID })
  // Project A: three people over two days; 'a-anon' was merged into person A1 after its events were stored.
  add(TEAM_A, 'signed up', 'a-1', 30, { plan: 'free', amount: 0 })
  add(TEAM_A, 'signed up', 'a-2', 20, { plan: 'pro', amount: 10 })
  add(TEAM_A, 'paid', 'a-2', 10, { plan: 'pro', amount: 25.5 })
  add(TEAM_A, '$pageview', 'a-anon', 5, { $browser: 'Firefox', 'odd key': "it's", escaped: 'tab\there "quoted" \\ \u00e9\n' })
  add(TEAM_A, '$pageview', 'a-1', 2, { $browser: 'Chrome' })
  // 02:30 UTC is 22:30 the day before in New York, which moved to summer time (UTC-4) that day at 02:00.
  sent.push({
    team: TEAM_A,
    event: 'late',
    distinctId: 'a-1',
    at: Date.parse('2026-03-09T02:30:00Z'),
    properties: {},
    storedPerson: NIL_UUID,
  })
  // Project B: the same shapes, marked as secret everywhere.
  add(TEAM_B, 'secret-b', 'b-1', 3, { plan: 'secret', $browser: 'secret' })
  add(TEAM_B, 'signed up', 'b-1', 4, { plan: 'secret' })
  for (const e of sent) if (personsOf[e.distinctId] && e.distinctId !== 'a-anon') e.storedPerson = personsOf[e.distinctId]!.id

  const rows = sent.map((e) =>
    events.encodeEventRow({
      uuid: randomUUID(),
      event: e.event,
      properties: e.properties,
      timestamp: toClickHouseDateTimeUs(e.at * 1000),
      team_id: e.team,
      distinct_id: e.distinctId,
      elements_chain: '',
      created_at: toClickHouseDateTimeUs(e.at * 1000),
      person_id: e.storedPerson,
    }),
  )
  await events.insertEncodedEvents(ch, Buffer.from(rows.join('')))

  const people = [
    { id: personA1, team: TEAM_A, email: 'one@a.example' },
    { id: personA2, team: TEAM_A, email: 'two@a.example' },
    { id: personB1, team: TEAM_B, email: 'secret@b.example' },
  ]
  await persons.insertPersons(
    ch,
    people.map((p) => ({
      id: p.id,
      created_at: '2026-01-01 00:00:00.000',
      team_id: p.team,
      properties: JSON.stringify({ email: p.email }),
      is_identified: 1 as const,
      is_deleted: 0 as const,
      version: 1,
    })),
  )
  await persons.insertDistinctIds(
    ch,
    Object.entries(personsOf).map(([distinctId, p]) => ({
      team_id: distinctId.startsWith('a') ? TEAM_A : TEAM_B,
      distinct_id: distinctId,
      person_id: p.id,
      is_deleted: 0 as const,
      version: distinctId === 'a-anon' ? 2 : 1,
    })),
  )
  await cohortPeople.insertMembers(ch, { teamId: TEAM_A, cohortId: 1, version: 1 }, [personA1, personA2])
  await cohortPeople.insertMembers(ch, { teamId: TEAM_A, cohortId: 1, version: 2 }, [personA2])
  await cohortPeople.insertMembers(ch, { teamId: TEAM_B, cohortId: 2, version: 1 }, [personB1])
})

afterAll(async () => {
  await ch?.close()
  rmSync(root, { recursive: true, force: true })
})

const ofTeam = (team: number) => sent.filter((e) => e.team === team)
const byKey = (rows: unknown[][]) => rows.map((r) => r.map(String).join('|')).sort()

describe('HogQLQuery', () => {
  it("counts the project's events by name", async () => {
    const answer = await hogql(TEAM_A, 'SELECT event, count() FROM events GROUP BY event ORDER BY event')
    const expected = new Map<string, number>()
    for (const e of ofTeam(TEAM_A)) expected.set(e.event, (expected.get(e.event) ?? 0) + 1)
    expect(answer.columns).toEqual(['event', 'count()'])
    expect(answer.results).toEqual([...expected.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))
    expect(answer.types).toEqual([
      ['event', 'String'],
      ['count()', 'UInt64'],
    ])
    expect(answer).toMatchObject({
      hasMore: false,
      limit: 100,
      offset: 0,
      hogql: 'SELECT event, count() FROM events GROUP BY event ORDER BY event',
    })
  })

  it("reads event properties and the current person's properties, after merges", async () => {
    const answer = await hogql(
      TEAM_A,
      'SELECT distinct_id, properties.plan, person.properties.email, person_id, properties.`odd key` FROM events',
    )
    expect(answer.columns).toEqual(['distinct_id', 'plan', 'email', 'person_id', 'odd key'])
    const expected = ofTeam(TEAM_A).map((e) => {
      const person = personsOf[e.distinctId]
      return [e.distinctId, e.properties.plan ?? null, person?.email ?? null, person?.id ?? NIL_UUID, e.properties['odd key'] ?? null]
    })
    expect(byKey(answer.results)).toEqual(byKey(expected))
  })

  it('reads a string property as its text, escapes decoded, and any other value as its JSON', async () => {
    const answer = await hogql(
      TEAM_A,
      "SELECT properties.escaped, properties.amount, properties.missing FROM events WHERE distinct_id = 'a-anon' OR event = 'paid' ORDER BY event",
    )
    expect(answer.results).toEqual([
      ['tab\there "quoted" \\ \u00e9\n', null, null],
      [null, '25.5', null],
    ])
  })

  it('reads a property used as a number as one, in arithmetic and in sums, and selected as it is otherwise', async () => {
    const answer = await hogql(
      TEAM_A,
      "SELECT sum(properties.amount), avg(properties.amount * 2), max(properties.amount), sumIf(properties.amount, properties.plan = 'pro') FROM events",
    )
    const amounts = ofTeam(TEAM_A).flatMap((e) => (typeof e.properties.amount === 'number' ? [e.properties.amount] : []))
    const pro = ofTeam(TEAM_A).filter((e) => e.properties.plan === 'pro')
    expect(answer.results).toEqual([
      [
        amounts.reduce((a, b) => a + b, 0),
        (2 * amounts.reduce((a, b) => a + b, 0)) / amounts.length,
        // max of text, as PostHog's max of an untyped property: '25.5' > '10' > '0'
        '25.5',
        pro.reduce((s, e) => s + Number(e.properties.amount), 0),
      ],
    ])
    // PostHog's JSONExtract with the type named last.
    const typed = await hogql(TEAM_A, "SELECT sum(JSONExtract(properties, 'amount', 'Float64')) FROM events")
    expect(typed.results).toEqual([[amounts.reduce((a, b) => a + b, 0)]])
  })

  it("answers times in the project's timezone, with its offset", async () => {
    const answer = await hogql(TEAM_A, "SELECT timestamp, toStartOfDay(timestamp) FROM events WHERE event = 'late'")
    // The day started in winter time (UTC-5); the event happened in summer time (UTC-4).
    expect(answer.results).toEqual([['2026-03-08T22:30:00.000000-04:00', '2026-03-08T00:00:00-05:00']])
  })

  it('fills {placeholders} from values, as parameters', async () => {
    const answer = await hogql(TEAM_A, 'SELECT count() FROM events WHERE event IN {names} AND properties.plan = {plan}', {
      names: ['signed up', 'paid'],
      plan: 'pro',
    })
    expect(answer.results).toEqual([
      [ofTeam(TEAM_A).filter((e) => ['signed up', 'paid'].includes(e.event) && e.properties.plan === 'pro').length],
    ])
  })

  it('reads {filters} as the date range and property filters', async () => {
    const run = (filters: Record<string, unknown>) =>
      runHogQLQuery(ctx(TEAM_A), { kind: 'HogQLQuery', query: 'SELECT event FROM events WHERE {filters} ORDER BY timestamp', filters })
    // 2026-03-09 in New York: from 04:00 UTC on the 9th to 04:00 UTC on the 10th.
    const day = await run({ dateRange: { date_from: '2026-03-09', date_to: '2026-03-09' } })
    const from = Date.parse('2026-03-09T04:00:00Z')
    const to = Date.parse('2026-03-10T04:00:00Z')
    const expected = ofTeam(TEAM_A)
      .filter((e) => e.at >= from && e.at < to)
      .sort((a, b) => a.at - b.at)
    expect(day.results).toEqual(expected.map((e) => [e.event]))
    const pro = await run({ dateRange: { date_from: '-7d' }, properties: [{ key: 'plan', value: 'pro', type: 'event' }] })
    expect(pro.results).toEqual(
      ofTeam(TEAM_A)
        .filter((e) => e.properties.plan === 'pro')
        .sort((a, b) => a.at - b.at)
        .map((e) => [e.event]),
    )
    const none = await run({})
    expect(none.results).toHaveLength(ofTeam(TEAM_A).length)
  })

  it('answers 100 rows unless the query asks for more, and says when there are more', async () => {
    const many = 'SELECT number FROM (SELECT arrayJoin(range(150)) AS number) ORDER BY number'
    const first = await hogql(TEAM_A, many)
    expect(first.results).toHaveLength(100)
    expect(first.hasMore).toBe(true)
    const all = await hogql(TEAM_A, `${many} LIMIT 200`)
    expect(all.results).toHaveLength(150)
    expect(all.hasMore).toBe(false)
    const page = await hogql(TEAM_A, `${many} LIMIT 10 OFFSET 145`)
    expect(page.results).toEqual([[145], [146], [147], [148], [149]])
    expect(page).toMatchObject({ limit: 10, offset: 145, hasMore: false })
  })

  it('caps a query at 50,000 rows', async () => {
    const answer = await hogql(TEAM_A, 'SELECT arrayJoin(range(60000)) LIMIT 1000000')
    expect(answer.results).toHaveLength(50_000)
    expect(answer).toMatchObject({ limit: 50_000, hasMore: true })
  })

  it('answers a query ClickHouse cannot run with a 400 that quotes no SQL, and the next query is unharmed', async () => {
    const problem = await refusal(hogql(TEAM_A, "SELECT match(event, '(') FROM events"))
    expect(problem.status).toBe(400)
    expect(problem.body.detail).toBe('The query could not be run: a regular expression is invalid.')
    const scalar = await refusal(hogql(TEAM_A, 'SELECT (SELECT event FROM events) FROM events'))
    expect(scalar.body.detail).toBe('The query could not be run: a subquery used as a value answered more than one row.')
    const wrongType = await refusal(hogql(TEAM_A, 'SELECT event + 1 FROM events'))
    expect(wrongType.body.detail).not.toMatch(/team_id|SELECT|__e/)
    const after = await hogql(TEAM_A, "SELECT count() FROM events WHERE event = 'paid'")
    expect(after.results).toEqual([[1]])
  })

  it('cancels the statement under way when the caller aborts', async () => {
    const controller = new AbortController()
    const slow =
      'SELECT sum(cityHash64(a.x, b.y)) FROM (SELECT arrayJoin(range(300000)) AS x) AS a CROSS JOIN (SELECT arrayJoin(range(300000)) AS y) AS b'
    const started = Date.now()
    const run = runHogQLQuery(ctx(TEAM_A, { signal: controller.signal, maxExecutionSeconds: 60 }), { kind: 'HogQLQuery', query: slow })
    setTimeout(() => controller.abort(), 300)
    await expect(run).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(10_000)
    const running = async () => {
      const processes = await ch.reader.query({
        query: "SELECT count() AS n FROM system.processes WHERE query LIKE '%cityHash64(%' AND query NOT LIKE '%system.processes%'",
        format: 'JSONEachRow',
      })
      const [row] = await processes.json<{ n: number | string }>()
      return Number(row?.n)
    }
    // Killed, it ends within moments (its kill is asynchronous).
    const deadline = Date.now() + 5_000
    while ((await running()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await running()).toBe(0)
  })

  it('refuses a query object that does not match the schema, naming the field', async () => {
    const problem = await refusal(runHogQLQuery(ctx(TEAM_A), { kind: 'HogQLQuery', query: 5 } as never))
    expect(problem.body).toMatchObject({ type: 'validation_error', attr: 'query' })
    const tooLong = await refusal(hogql(TEAM_A, `SELECT '${'x'.repeat(70_000)}'`))
    expect(tooLong.body.attr).toBe('query')
  })

  it("stops a query at the execution limit with PostHog's timeout answer", async () => {
    const slow =
      'SELECT sum(cityHash64(a.x, b.y)) FROM (SELECT arrayJoin(range(300000)) AS x) AS a CROSS JOIN (SELECT arrayJoin(range(300000)) AS y) AS b'
    const started = Date.now()
    const problem = await refusal(
      runHogQLQuery(ctx(TEAM_A, { maxExecutionSeconds: 1, deadline: Date.now() + 1_000 }), { kind: 'HogQLQuery', query: slow }),
    )
    expect(problem.status).toBe(400)
    expect(problem.body).toMatchObject({ type: 'validation_error', code: 'timeout_exceeded' })
    expect(problem.body.detail).toMatch(/^Query has hit the max execution time before completing\./)
    // ClickHouse's limit or, failing it, the service's own, a second later.
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})

/**
 * The isolation test: every construct the printer supports, aimed at project B's rows while
 * running as project A. Each query is also run as project B, which must see its own markers, so
 * a query that reads nothing cannot pass for a safe one.
 */
describe("no query reads another project's data", () => {
  // Word boundaries: a uuid such as 97db-16e8 holds the letters b-1 and is no leak.
  const MARKERS = /secret|\bb-1\b|b\.example/
  const constructs: Array<[string, string]> = [
    ['a plain read', "SELECT event, distinct_id, properties FROM events WHERE event = 'secret-b' OR properties.plan = 'secret'"],
    ['a filter on team_id', `SELECT event, distinct_id FROM events WHERE team_id != ${TEAM_A} OR team_id = ${TEAM_B}`],
    ['a subquery in FROM', "SELECT * FROM (SELECT event, distinct_id FROM events) WHERE event = 'secret-b' OR distinct_id = 'b-1'"],
    [
      'a subquery in WHERE',
      "SELECT distinct_id FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE distinct_id LIKE 'b-%')",
    ],
    ['a join of events and persons', 'SELECT e.distinct_id, p.properties.email FROM events AS e JOIN persons AS p ON p.id = e.person_id'],
    [
      'a join through distinct ids',
      'SELECT d.distinct_id, p.properties FROM person_distinct_ids AS d LEFT JOIN persons AS p ON p.id = d.person_id',
    ],
    [
      'a union',
      'SELECT distinct_id FROM events UNION ALL SELECT distinct_id FROM person_distinct_ids UNION ALL SELECT properties FROM persons',
    ],
    [
      'a named subquery',
      'WITH mine AS (SELECT distinct_id, event FROM events) SELECT * FROM mine AS a JOIN mine AS b ON a.distinct_id = b.distinct_id',
    ],
    ["the person's properties on events", 'SELECT person.properties.email, person.id FROM events'],
    ['cohort members', 'SELECT c.cohort_id, p.properties.email FROM cohort_people AS c JOIN persons AS p ON p.id = c.person_id'],
    ['a scalar subquery', "SELECT (SELECT groupArray(distinct_id) FROM events WHERE event = 'secret-b')"],
    ['an aggregate over all rows', 'SELECT groupArray(event), groupArray(distinct_id), groupArray(properties) FROM events'],
    ['a window over all rows', 'SELECT distinct_id, count() OVER (PARTITION BY event) FROM events'],
    ['ARRAY JOIN', "SELECT k, event FROM events ARRAY JOIN JSONExtractKeys(properties) AS k WHERE event = 'secret-b'"],
  ]

  it.each(constructs)('%s', async (_name, query) => {
    const asA = await hogql(TEAM_A, query)
    expect(JSON.stringify(asA.results)).not.toMatch(MARKERS)
    const asB = await hogql(TEAM_B, query)
    expect(JSON.stringify(asB.results)).toMatch(MARKERS)
  })

  it.each([
    ['system tables', 'SELECT * FROM system.tables'],
    ['system parts', 'SELECT table FROM system.parts'],
    ['the raw events table by its database', 'SELECT * FROM default.events'],
    ['the raw person table', 'SELECT properties FROM person'],
    ['the raw distinct id table', 'SELECT * FROM person_distinct_id2'],
    ['the raw cohort table', 'SELECT * FROM cohortpeople'],
    ['a table function', 'SELECT * FROM numbers(10)'],
    ['merge()', "SELECT * FROM merge('default', 'events')"],
    ['cluster()', "SELECT * FROM cluster('default', 'default', 'events')"],
    ['remote()', "SELECT * FROM remote('127.0.0.1', 'default', 'events')"],
    ['url()', "SELECT * FROM url('http://127.0.0.1:8123/?query=SELECT+1', 'CSV')"],
    ['file()', "SELECT * FROM file('/etc/passwd', 'LineAsString')"],
    [
      'a table function in a subquery',
      "SELECT * FROM events WHERE distinct_id IN (SELECT * FROM remote('127.0.0.1', 'default', 'events'))",
    ],
    ['a system table in a union', 'SELECT event FROM events UNION ALL SELECT name FROM system.tables'],
    ['a system table in a join', 'SELECT e.event FROM events AS e JOIN system.tables AS t ON t.name = e.event'],
    ['settings', 'SELECT event FROM events SETTINGS readonly = 0'],
    ['a dictionary', "SELECT dictGet('d', 'x', 1)"],
    ['FINAL', 'SELECT event FROM events FINAL'],
  ])('refuses %s with a 400', async (_name, query) => {
    const problem = await refusal(hogql(TEAM_A, query))
    expect(problem.status).toBe(400)
    expect(problem.body.type).toBe('validation_error')
  })

  it('EventsQuery: where, select and filters cannot reach another project', async () => {
    const answer = await runEventsQuery(ctx(TEAM_A), {
      kind: 'EventsQuery',
      select: ['*', 'person', '(SELECT groupArray(distinct_id) FROM events)'],
      where: [`team_id = ${TEAM_B} OR 1 = 1`],
      after: 'all',
    })
    expect(answer.results.length).toBe(ofTeam(TEAM_A).length)
    expect(JSON.stringify(answer.results)).not.toMatch(MARKERS)
  })
})

describe('EventsQuery', () => {
  const query = (q: Omit<Parameters<typeof runEventsQuery>[1], 'kind'>) => runEventsQuery(ctx(TEAM_A), { kind: 'EventsQuery', ...q })

  it('answers the last 24 hours newest first by default, each event as an object', async () => {
    const answer = await query({ select: ['*', 'event', 'timestamp'] })
    const expected = ofTeam(TEAM_A)
      .filter((e) => e.at > NOW.getTime() - 24 * HOUR)
      .sort((a, b) => b.at - a.at)
    expect(answer.columns).toEqual(['*', 'event', 'timestamp'])
    expect(answer.results.map((r) => r[1])).toEqual(expected.map((e) => e.event))
    const [first] = answer.results
    expect(first![0]).toMatchObject({
      event: expected[0]!.event,
      distinct_id: expected[0]!.distinctId,
      properties: expected[0]!.properties,
      team_id: TEAM_A,
    })
    expect(first![2]).toMatch(/-0[45]:00$/)
    expect(answer.hogql).toContain('FROM events')
  })

  it('groups by the columns that are not aggregates', async () => {
    const answer = await query({ select: ['event', 'count()'], after: 'all' })
    const counts = new Map<string, number>()
    for (const e of ofTeam(TEAM_A)) counts.set(e.event, (counts.get(e.event) ?? 0) + 1)
    expect(byKey(answer.results)).toEqual(byKey([...counts.entries()]))
    // Ordered by count() descending, PostHog's default when it is selected.
    const order = answer.results.map((r) => Number(r[1]))
    expect(order).toEqual([...order].sort((a, b) => b - a))
    expect(answer.types).toEqual(['String', 'UInt64'])
  })

  it('filters by event, event and person properties, person, and dates', async () => {
    const byEvent = await query({ select: ['distinct_id'], event: 'signed up', after: 'all' })
    expect(byKey(byEvent.results)).toEqual(
      byKey(
        ofTeam(TEAM_A)
          .filter((e) => e.event === 'signed up')
          .map((e) => [e.distinctId]),
      ),
    )

    const byProperty = await query({
      select: ['event'],
      after: 'all',
      properties: [{ key: 'amount', value: 5, operator: 'gt', type: 'event' }],
    })
    expect(byKey(byProperty.results)).toEqual(
      byKey(
        ofTeam(TEAM_A)
          .filter((e) => Number(e.properties.amount) > 5)
          .map((e) => [e.event]),
      ),
    )

    const byPerson = await query({
      select: ['distinct_id'],
      after: 'all',
      properties: [{ key: 'email', value: ['one@a.example'], operator: 'exact', type: 'person' }],
    })
    expect(byKey(byPerson.results)).toEqual(
      byKey(
        ofTeam(TEAM_A)
          .filter((e) => personsOf[e.distinctId]?.id === personA1)
          .map((e) => [e.distinctId]),
      ),
    )

    const byPersonId = await query({ select: ['distinct_id'], after: 'all', personId: personA1 })
    expect(byKey(byPersonId.results)).toEqual(byKey(byPerson.results))

    const window = await query({ select: ['event'], after: '-12h', before: '-3h' })
    expect(byKey(window.results)).toEqual(
      byKey(
        ofTeam(TEAM_A)
          .filter((e) => e.at > NOW.getTime() - 12 * HOUR && e.at < NOW.getTime() - 3 * HOUR)
          .map((e) => [e.event]),
      ),
    )
  })

  it('filters by cohort (its latest calculation) and by a HogQL expression', async () => {
    // Cohort 1's latest calculation (version 2) holds only person A2.
    const inCohort = await query({ select: ['distinct_id'], after: 'all', properties: [{ key: 'id', value: 1, type: 'cohort' }] })
    expect(byKey(inCohort.results)).toEqual(
      byKey(
        ofTeam(TEAM_A)
          .filter((e) => personsOf[e.distinctId]?.id === personA2)
          .map((e) => [e.distinctId]),
      ),
    )
    const notInCohort = await query({
      select: ['distinct_id'],
      after: 'all',
      properties: [{ key: 'id', value: 1, type: 'cohort', operator: 'not_in' }],
    })
    expect(notInCohort.results.length + inCohort.results.length).toBe(ofTeam(TEAM_A).length)
    const byExpression = await query({
      select: ['event'],
      after: 'all',
      properties: [{ key: "properties.$browser = 'Chrome'", type: 'hogql' }],
    })
    expect(byExpression.results).toEqual(
      ofTeam(TEAM_A)
        .filter((e) => e.properties.$browser === 'Chrome')
        .map((e) => [e.event]),
    )
  })

  it('answers the person of a person column, and pages with orderBy, limit and offset', async () => {
    const answer = await query({ select: ['person', 'timestamp'], after: 'all', orderBy: ['timestamp ASC'], limit: 2, offset: 1 })
    const ordered = ofTeam(TEAM_A).sort((a, b) => a.at - b.at)
    expect(answer).toMatchObject({ limit: 2, offset: 1, hasMore: true })
    expect(answer.results.map((r) => (r[0] as { distinct_id: string }).distinct_id)).toEqual(ordered.slice(1, 3).map((e) => e.distinctId))
    expect(answer.results[0]![0]).toMatchObject({
      uuid: personsOf[ordered[1]!.distinctId]!.id,
      properties: { email: personsOf[ordered[1]!.distinctId]!.email },
    })
  })

  it('refuses a date that has the shape of one but is none (month 13, a +99:00 offset, a year ClickHouse cannot hold)', async () => {
    for (const after of ['2024-13-45', '2024-01-01T00:00:00+99:00', '2300-01-01', '1899-12-31T00:00:00Z', '-999999y']) {
      const problem = await refusal(query({ select: ['event'], after }))
      expect(problem.body, after).toMatchObject({ type: 'validation_error', attr: 'after' })
    }
    const before = await refusal(query({ select: ['event'], before: '2024-02-30' }))
    expect(before.body.attr).toBe('before')
  })

  it('leaves out the events of the project’s test accounts with filterTestAccounts, and only then', async () => {
    const testAccountFilters = [{ key: '$browser', operator: 'is_not', value: ['Firefox'], type: 'event' }]
    const run = (filterTestAccounts: boolean) =>
      runEventsQuery(ctx(TEAM_A, { testAccountFilters }), {
        kind: 'EventsQuery',
        select: ['distinct_id'],
        event: '$pageview',
        after: 'all',
        filterTestAccounts,
      })
    expect((await run(false)).results.map((r) => r[0]).sort()).toEqual(['a-1', 'a-anon'])
    expect((await run(true)).results.map((r) => r[0])).toEqual(['a-1'])
  })

  it('refuses a bad expression or date with a 400 naming the field', async () => {
    const problem = await refusal(query({ select: ['event'], where: ['event ='] }))
    expect(problem.body.detail).toContain('where[0]')
    const date = await refusal(query({ select: ['event'], after: 'yesterday-ish' }))
    expect(date.body.attr).toBe('after')
    const unknown = await refusal(query({ select: ['nope'] }))
    expect(unknown.body.detail).toContain('Unable to resolve field: nope')
  })
})
