import { afterEach, describe, expect, it } from 'vitest'
import { checkHogQLBounds, MAX_HOGQL_CHAIN, MAX_HOGQL_DEPTH } from './bounds'
import { ParserPool, type ParseOutcome } from './parserPool'

// Each test starts a parser thread (and, from the sources, TypeScript in it): far slower than a
// unit's usual milliseconds on a busy machine.
const SLOW = 120_000

const pools: ParserPool[] = []
const newPool = (options: ConstructorParameters<typeof ParserPool>[0] = {}) => {
  const pool = new ParserPool(options)
  pools.push(pool)
  return pool
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

const orChain = (terms: number) => `select 1${' or 1'.repeat(terms - 1)}`
const NORMAL = "select event, count() from events where properties.$browser = 'Chrome' group by event"

function tree(outcome: ParseOutcome): { node: string; error?: boolean } {
  if (!('json' in outcome)) throw new Error(`the parse failed: ${outcome.failed}: ${outcome.message}`)
  return JSON.parse(outcome.json) as { node: string; error?: boolean }
}

describe('ParserPool', () => {
  it('answers parses after ones that broke the parser, with a parser of its own', { timeout: SLOW }, async () => {
    const pool = newPool({ deadlineMs: 60_000 })
    expect(tree(await pool.parse('select', NORMAL)).node).toBe('SelectQuery')
    // The chains that corrupted the one parser of the process: each traps the WebAssembly stack.
    for (const terms of [500, 1000, 1500]) {
      const broken = await pool.parse('select', orChain(terms))
      expect(broken).toMatchObject({ failed: 'threw', message: expect.stringContaining('RuntimeError') })
      expect(tree(await pool.parse('select', NORMAL)).node).toBe('SelectQuery')
      expect(tree(await pool.parse('expr', 'properties.a = 1')).node).toBe('CompareOperation')
    }
    // A syntax error answers as the parser's error, and the next parse is as good.
    expect(tree(await pool.parse('select', 'select 1 from')).error).toBe(true)
    expect(tree(await pool.parse('select', NORMAL)).node).toBe('SelectQuery')
    // The thread lived on: the instances were replaced inside it.
    expect(pool.started).toBe(1)
  })

  it('ends a parse past its deadline without holding this thread, and the next parse is answered', { timeout: SLOW }, async () => {
    const pool = newPool({ deadlineMs: 1_000 })
    expect(tree(await pool.parse('select', NORMAL)).node).toBe('SelectQuery')
    // Forty nested calls take the parser minutes: its time grows far faster than the depth.
    const slow = `select ${'f('.repeat(40)}1${')'.repeat(40)}`
    let ticks = 0
    let longestGap = 0
    let last = performance.now()
    const ticker = setInterval(() => {
      const now = performance.now()
      longestGap = Math.max(longestGap, now - last)
      last = now
      ticks++
    }, 10)
    const started = performance.now()
    const outcome = await pool.parse('select', slow)
    clearInterval(ticker)
    expect(outcome).toMatchObject({ failed: 'deadline' })
    expect(performance.now() - started).toBeLessThan(10_000)
    // This thread went on turning meanwhile (a parse here would have stopped it for minutes).
    expect(ticks).toBeGreaterThan(10)
    expect(longestGap).toBeLessThan(900)
    expect(tree(await pool.parse('select', NORMAL)).node).toBe('SelectQuery')
    expect(pool.started).toBe(2)
  })

  it('answers parses waiting behind one that runs out of time', { timeout: SLOW }, async () => {
    const pool = newPool({ deadlineMs: 1_000 })
    const slow = pool.parse('select', `select ${'tuple('.repeat(40)}1${')'.repeat(40)}`)
    const waiting = [pool.parse('select', NORMAL), pool.parse('expr', 'a + 1'), pool.parse('order', 'timestamp DESC')]
    expect(await slow).toMatchObject({ failed: 'deadline' })
    expect((await Promise.all(waiting)).map((outcome) => tree(outcome).node)).toEqual(['SelectQuery', 'ArithmeticOperation', 'OrderExpr'])
  })

  it('parses the largest texts the bounds let through without breaking the parser', { timeout: SLOW }, async () => {
    const pool = newPool({ deadlineMs: 60_000 })
    const rep = (text: string, times: number) => text.repeat(times)
    const inner = (ops: number) => `a${rep(' ?? a', ops)}`
    // The parser's stack is used most per level by `??`, brackets, subqueries and HogQLX tags.
    const largest = [
      `select ${inner(MAX_HOGQL_CHAIN)}`,
      `select ${rep('1 ? 1 : ', MAX_HOGQL_DEPTH)}1`,
      `select ${rep('[', MAX_HOGQL_DEPTH)}${inner(MAX_HOGQL_CHAIN - 2 * MAX_HOGQL_DEPTH)}${rep(']', MAX_HOGQL_DEPTH)}`,
      `select x from ${rep('(select x from events where ', MAX_HOGQL_DEPTH)}${inner(MAX_HOGQL_CHAIN - MAX_HOGQL_DEPTH)}${rep(')', MAX_HOGQL_DEPTH)}`,
      `select ${rep('<a>', 9)}{${inner(MAX_HOGQL_CHAIN - 20)}}${rep('</a>', 9)}`,
    ]
    for (const text of largest) {
      expect(() => checkHogQLBounds(text, 'query', 'query')).not.toThrow()
      expect(tree(await pool.parse('select', text)).error).toBeUndefined()
    }
    expect(pool.started).toBe(1)
  })
})
