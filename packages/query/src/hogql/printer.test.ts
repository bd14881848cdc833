import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { parseHogQL } from './parser'
import { printHogQL, type PrintedQuery } from './printer'

const TEAM = 42

async function print(query: string): Promise<PrintedQuery> {
  return printHogQL(await parseHogQL(query, 'select'), { teamId: TEAM, timezone: 'Europe/Paris', source: query })
}

/** The 400 a query is refused with. */
async function refusal(query: string): Promise<ApiProblem> {
  const error: unknown = await print(query).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof ApiProblem)) throw new Error(`expected a refusal of ${query}, got ${String(error)}`)
  return error
}

/** How many times the printed SQL filters a ClickHouse table by the caller's team parameter. */
function teamFilters(printed: PrintedQuery): number {
  const [name] = Object.entries(printed.params).find(([, v]) => v === TEAM) ?? []
  return printed.sql.split(`team_id = {${name}:Int64}`).length - 1
}

describe('what the printer refuses', () => {
  it.each([
    ['SELECT * FROM system.numbers', 'Unknown table "system.numbers"'],
    ['SELECT name FROM system.tables', 'Unknown table "system.tables"'],
    ['SELECT * FROM person', 'Unknown table "person"'],
    ['SELECT * FROM person_distinct_id2', 'Unknown table "person_distinct_id2"'],
    ['SELECT * FROM cohortpeople', 'Unknown table "cohortpeople"'],
    ['SELECT * FROM default.events', 'Unknown table "default.events"'],
    ["SELECT * FROM remote('127.0.0.1', default.events)", 'Table functions are not allowed: remote(...)'],
    ["SELECT * FROM cluster('default', default.events)", 'Table functions are not allowed: cluster(...)'],
    ["SELECT * FROM url('http://127.0.0.1/', CSV)", 'Table functions are not allowed: url(...)'],
    ["SELECT * FROM file('/etc/passwd', 'LineAsString')", 'Table functions are not allowed: file(...)'],
    ['SELECT * FROM numbers(10)', 'Table functions are not allowed: numbers(...)'],
    ["SELECT * FROM s3('http://x/y', 'CSV')", 'Table functions are not allowed: s3(...)'],
    ['SELECT * FROM events FINAL', 'FINAL is not supported'],
    ['SELECT * FROM events SAMPLE 0.1', 'SAMPLE is not supported'],
    ['SELECT sleep(3)', 'Unsupported function: sleep'],
    ["SELECT file('/etc/passwd')", 'Unsupported function: file'],
    ["SELECT dictGet('d', 'x', 1)", 'Unsupported function: dictGet'],
    ['SELECT currentDatabase()', 'Unsupported function: currentDatabase'],
    ["SELECT getSetting('readonly')", 'Unsupported function: getSetting'],
    ['SELECT count() FROM events WHERE event IN (SELECT name FROM system.tables)', 'Unknown table "system.tables"'],
    ['SELECT 1 SETTINGS readonly = 0', 'Unsupported syntax'],
    ['SELECT event FROM events WHERE {filters}', 'Unknown placeholder {filters}'],
    ['SELECT nope FROM events', 'Unable to resolve field: nope'],
    ['SELECT event FROM events AS a JOIN events AS b ON a.uuid = b.uuid', 'Ambiguous field "event"'],
    ['SELECT 1 FROM events AS a JOIN persons AS a ON 1', 'The table alias "a" is used twice'],
    ['SELECT event FROM events LIMIT toInt(5)', 'LIMIT must be a whole number'],
    ['SELECT count(1, 2, 3) FROM events', 'Function count takes 0 to 1 arguments, found 3'],
    ['SELECT person.email FROM events', 'Unable to resolve field: person.email'],
    ['SELECT distinct_id IN COHORT 3 FROM events', 'IN COHORT is not supported'],
    ['SELECT row_number() FROM events', 'Function row_number needs a window'],
  ])('refuses %s', async (query, detail) => {
    const problem = await refusal(query)
    expect(problem.status).toBe(400)
    expect(problem.body).toMatchObject({ type: 'validation_error', code: 'invalid_input' })
    expect(problem.body.detail).toContain(detail)
  })

  it.each([
    'DROP TABLE events',
    "INSERT INTO events (event) VALUES ('x')",
    'ALTER TABLE events DELETE WHERE 1',
    'SELECT 1; DROP TABLE events',
  ])('refuses a statement that is not one SELECT: %s', async (query) => {
    const problem = await refusal(query)
    expect(problem.status).toBe(400)
  })

  it('refuses nesting deeper than it prints, with a 400 rather than a stack overflow', async () => {
    const deep = `SELECT ${'('.repeat(2_000)}1${')'.repeat(2_000)}`
    expect((await refusal(deep)).status).toBe(400)
  })

  it('refuses named subqueries whose uses multiply past the bound', async () => {
    const levels = Array.from({ length: 20 }, (_, i) => `t${i + 1} AS (SELECT * FROM t${i} AS a, t${i} AS b)`)
    const query = `WITH t0 AS (SELECT event FROM events), ${levels.join(', ')} SELECT count() FROM t20`
    expect((await refusal(query)).body.detail).toContain('too large')
  })
})

describe('what the printer prints', () => {
  it("scopes every table of every subquery, join and union to the caller's project", async () => {
    const printed = await print(`
      SELECT e.event, p.id FROM events AS e
      JOIN persons AS p ON p.id = e.person_id
      WHERE e.distinct_id IN (SELECT distinct_id FROM person_distinct_ids)
      UNION ALL
      SELECT event, toUUID(NULL) FROM (SELECT event, person_id FROM events) WHERE person_id IN (SELECT person_id FROM cohort_people)`)
    // events and their distinct ids, persons, person_distinct_ids, events and their distinct ids, cohort_people and its versions.
    expect(teamFilters(printed)).toBe(8)
    expect(printed.sql).not.toMatch(/FROM\s+events\s+(?!AS __e)/)
  })

  it('sends every string as a parameter, never in the SQL text', async () => {
    const evil = "x') OR 1=1 UNION SELECT * FROM system.tables --"
    const printed = await print(`SELECT event FROM events WHERE event = '${evil.replace(/'/g, "\\'")}'`)
    expect(printed.sql).not.toContain('system.tables')
    expect(Object.values(printed.params)).toContain(evil)
  })

  it('quotes every name, so an alias cannot end its quotes', async () => {
    const printed = await print('SELECT event AS `a` FROM events')
    expect(printed.sql).toContain('AS `a`')
    const tricky = await print('SELECT event AS `x`` FROM system.tables --` FROM events')
    expect(tricky.sql).toContain('`x\\` FROM system.tables --`')
    expect(tricky.columns).toEqual(['x` FROM system.tables --'])
  })

  it('reads properties as PostHog does, the key as a parameter, and names the column by the key', async () => {
    const printed = await print('SELECT properties.$browser FROM events')
    // A string as its decoded text, any other value as its JSON.
    expect(printed.sql).toMatch(/JSONType\(`events`\.`properties`, \{hogql_val_\d+:String\}\) = 'String', JSONExtractString\(/)
    expect(printed.sql).toMatch(/nullIf\(nullIf\(JSONExtractRaw\(`events`\.`properties`, \{hogql_val_\d+:String\}\), ''\), 'null'\)/)
    expect(Object.values(printed.params)).toContain('$browser')
    expect(printed.columns).toEqual(['$browser'])
  })

  it("joins the person only when the query reads the person's fields", async () => {
    expect((await print('SELECT event FROM events')).sql).not.toContain('person_distinct_id2')
    const withId = await print('SELECT person_id FROM events')
    expect(withId.sql).toContain('person_distinct_id2')
    expect(withId.sql).not.toContain('FROM person AS')
    const withProperties = await print('SELECT person.properties.email FROM events')
    expect(withProperties.sql).toContain('FROM person AS')
  })

  it('asks for one row more than the limit: 100 by default, at most 50,000', async () => {
    expect((await print('SELECT event FROM events')).sql).toMatch(/LIMIT 101$/)
    expect((await print('SELECT event FROM events LIMIT 10 OFFSET 20')).sql).toMatch(/LIMIT 11 OFFSET 20$/)
    const huge = await print('SELECT event FROM events LIMIT 1000000')
    expect(huge.limit).toBe(50_000)
    expect(huge.sql).toMatch(/LIMIT 50001$/)
  })

  it('names unaliased columns as they were written', async () => {
    const printed = await print("SELECT count(), concat(event, '😀!') AS shout, event, length('😀é') FROM events GROUP BY event")
    expect(printed.columns).toEqual(['count()', 'shout', 'event', "length('😀é')"])
  })

  it('prints a named subquery where it is used, so its tables are scoped too', async () => {
    const printed = await print(
      'WITH recent AS (SELECT event FROM events) SELECT count() FROM recent AS a JOIN recent AS b ON a.event = b.event',
    )
    expect(teamFilters(printed)).toBe(2)
  })
})
