import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import {
  checkHogQLBounds,
  HOGQL_LIMITS,
  MAX_HOGQL_BETWEENS,
  MAX_HOGQL_CHAIN,
  MAX_HOGQL_DEPTH,
  MAX_HOGQL_OPERATORS,
  MAX_HOGQL_TOKENS,
  measureHogQL,
} from './bounds'

const orChain = (terms: number) => `select 1${' or 1'.repeat(terms - 1)}`

function refusal(text: string, what = 'query', attr = 'query'): ApiProblem {
  try {
    checkHogQLBounds(text, what, attr)
  } catch (err) {
    expect(err).toBeInstanceOf(ApiProblem)
    return err as ApiProblem
  }
  throw new Error('the text was not refused')
}

describe('measureHogQL', () => {
  it('counts what the lexer reads, not what strings and comments hold', () => {
    expect(measureHogQL("select event from events where properties.$browser = 'Chrome'")).toEqual({
      tokens: 10,
      operators: 1,
      chain: 1,
      depth: 1,
      betweens: 0,
    })
    expect(measureHogQL(`select 'or (((( and [[[[', "a or b", \`(\` -- or ((((\n/* or ( */ # or (`)).toEqual({
      tokens: 6,
      operators: 0,
      chain: 0,
      depth: 0,
      betweens: 0,
    })
    // An escaped or doubled quote does not end the string.
    expect(measureHogQL("select 'it''s (((', 'a\\'b ((('")).toMatchObject({ operators: 0, depth: 0 })
  })

  it('reads the nesting inside f-strings, placeholders and HogQLX tags, and not the text of a tag', () => {
    expect(measureHogQL("select f'x {(((1)))} y'").depth).toBe(5)
    expect(measureHogQL('select {((a))}').depth).toBe(3)
    expect(measureHogQL("select <a><b>it's ((((</b></a>").depth).toBe(2)
    // A quote in a tag's text starts no string: what follows is read, and its nesting counted.
    expect(measureHogQL(`select <a>it's</a>, ${'('.repeat(30)}1${')'.repeat(30)} -- '`).depth).toBe(30)
  })

  it('counts chains of prefix operators, lambdas, conditionals, aliases and dots as nesting, each ending with its operand', () => {
    expect(measureHogQL('select not not not x').depth).toBe(3)
    expect(measureHogQL('select - - - 1').depth).toBe(3)
    expect(measureHogQL('select arrayMap(x -> y -> z -> 1, [1])').depth).toBe(4)
    expect(measureHogQL('select a ? b : c ? d : e ? f : g').depth).toBe(3)
    expect(measureHogQL('select a.b.c.d.e').depth).toBe(4)
    expect(measureHogQL('select a as b as c as d').depth).toBe(3)
    // Side by side, they do not add up.
    const many = `select ${Array.from({ length: 40 }, (_, i) => `not a.b${i} and c - -${i}`).join(' and ')}`
    expect(measureHogQL(many).depth).toBeLessThanOrEqual(2)
    expect(measureHogQL(`select ${Array.from({ length: 40 }, (_, i) => `x.y${i} as c${i}`).join(', ')} from events`).depth).toBe(2)
  })

  it('chains the operators in a row of one expression, and its levels of nesting', () => {
    expect(measureHogQL(orChain(500))).toMatchObject({ operators: 499, chain: 499 })
    expect(measureHogQL(`select a${'[1]'.repeat(10)}`)).toMatchObject({ operators: 10, chain: 11 })
    expect(measureHogQL(`select 1 from a${' join b on 1'.repeat(10)}`)).toMatchObject({ operators: 10, chain: 10 })
    expect(measureHogQL(`select ((a or b or c) and d)`).chain).toBe(4)
    // Columns, clauses and conditions in brackets start chains of their own.
    expect(measureHogQL(`select ${'a + b, '.repeat(50)}1 from events where ${'(a = 1) and '.repeat(20)}true`)).toMatchObject({
      operators: 90,
      chain: 21,
    })
  })

  it('measures any 64 KB text in linear time, stopping once a limit is passed', () => {
    const hostile = ["'\\'".repeat(21_845), '('.repeat(65_536), '<a '.repeat(21_845), `f'{`.repeat(21_845), '"\\z'.repeat(21_845)]
    for (const text of hostile) {
      const started = performance.now()
      for (let i = 0; i < 10; i++) measureHogQL(text, HOGQL_LIMITS)
      expect(performance.now() - started).toBeLessThan(1_000)
    }
  })
})

describe('checkHogQLBounds', () => {
  it('refuses the 500, 1000 and 1500-term chains with a 400 naming the limit they pass', () => {
    const detail = `The query is too complex to parse: an expression may chain at most ${MAX_HOGQL_CHAIN} operators, its levels of nesting included. Split it or simplify it.`
    for (const terms of [500, 1000, 1500]) {
      const problem = refusal(orChain(terms))
      expect(problem.status).toBe(400)
      expect(problem.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail, attr: 'query' })
    }
    expect(refusal(`select ${'a ?? '.repeat(MAX_HOGQL_CHAIN + 1)}a`).body.detail).toBe(detail)
    // Operators side by side, each chain short: the total is bounded too (it is what the parse's time grows with).
    expect(refusal(`select ${'a + b, '.repeat(MAX_HOGQL_OPERATORS + 1)}1`).body.detail).toContain(
      `at most ${MAX_HOGQL_OPERATORS} operators`,
    )
  })

  it('refuses deep nesting, too many tokens and too long a text, naming the limit and the field', () => {
    const deep = refusal(`${'('.repeat(MAX_HOGQL_DEPTH + 1)}1${')'.repeat(MAX_HOGQL_DEPTH + 1)}`, 'where[0]', 'where__0')
    expect(deep.body).toMatchObject({ attr: 'where__0', detail: expect.stringContaining(`at most ${MAX_HOGQL_DEPTH} levels deep`) })
    expect(refusal(`select ${'f('.repeat(200)}`).body.detail).toContain(`at most ${MAX_HOGQL_DEPTH} levels deep`)
    expect(refusal(`select ${Array.from({ length: 2_600 }, (_, i) => `c${i}`).join(', ')}`).body.detail).toContain(
      `at most ${MAX_HOGQL_TOKENS} tokens`,
    )
    expect(refusal(`select '${'x'.repeat(70_000)}'`).body).toMatchObject({
      detail: 'The query is too long: at most 65536 characters.',
      attr: 'query',
    })
  })

  it('refuses more than MAX_HOGQL_BETWEENS betweens, which ClickHouse copies into each other, and lets that many through', () => {
    const chained = (n: number) => `1 ${Array.from({ length: n }, () => 'between 1 and 1').join(' ')}`
    expect(refusal(chained(MAX_HOGQL_BETWEENS + 1), 'where[0]', 'where__0').body).toMatchObject({
      attr: 'where__0',
      detail: expect.stringContaining(`BETWEEN at most ${MAX_HOGQL_BETWEENS} times`),
    })
    expect(measureHogQL(`select a not between 1 and 2, (x between y and z) between 0 and 1`).betweens).toBe(3)
    expect(() => checkHogQLBounds(chained(MAX_HOGQL_BETWEENS), 'where[0]', 'where__0')).not.toThrow()
  })

  it('lets through hand-written queries far larger than usual', () => {
    const conditions = Array.from({ length: 30 }, (_, i) => `(properties.$p${i} = 'v${i}' OR person.properties.email ILIKE '%${i}%')`)
    const big = `WITH recent AS (SELECT distinct_id, count() AS c FROM events WHERE timestamp > now() - INTERVAL 30 DAY GROUP BY distinct_id)
      SELECT toStartOfDay(timestamp) AS day, event, count() AS n, uniq(person_id) AS people,
        round(avg(toFloat(properties.$screen_width)), 2) AS width,
        CASE WHEN count() > 100 THEN 'busy' WHEN count() > 10 THEN 'some' ELSE 'quiet' END AS load
      FROM events AS e LEFT JOIN recent AS r ON e.distinct_id = r.distinct_id
      WHERE ${conditions.join('\n AND ')}
      GROUP BY day, event ORDER BY day DESC, n DESC LIMIT 100`
    expect(() => checkHogQLBounds(big, 'query', 'query')).not.toThrow()
    const nested = `select ${'if(x, '.repeat(12)}1${', 0)'.repeat(12)}, arrayMap(x -> toString(x.1), groupArray(tuple(event, 1)))`
    expect(() => checkHogQLBounds(nested, 'query', 'query')).not.toThrow()
  })
})
