// Fuzzing the HogQL parser through /query/: long chains, deep nesting (balanced or not) and random
// text, in HogQLQuery and in the expressions of an EventsQuery. Every answer must come in bounded
// time without a 5xx, health must answer at once throughout, a normal query must answer rightly
// afterwards, and the service's memory must level off.
//
// The service is the built one (`npm start`'s dist/, where the parser's thread is a module of its
// own), in a process of its own so that its memory is its own. FUZZ_RUNS scales the cases (20 by
// default, `npm run fuzz` 1000); FUZZ_MINUTES instead runs each property for that long (the soak:
// `npm run fuzz:hogql`, 15 minutes a property, 30 in all, unless FUZZ_MINUTES says otherwise).
import { randomBytes, randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { clickHouseEnvFor, waitFor } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServer, embeddedEnv, exitCode, startServiceProcess, type BuiltServer, type ServiceProcess } from './serviceProcess'

const RUNS = Number(process.env.FUZZ_RUNS ?? 20)
const MINUTES = Number(process.env.FUZZ_MINUTES ?? 0)
/** Cases per property: five per FUZZ_RUNS, or as many as FUZZ_MINUTES allows. */
const CASES = MINUTES > 0 ? 10_000_000 : RUNS * 5
const budget = MINUTES > 0 ? { interruptAfterTimeLimit: MINUTES * 60_000, markInterruptAsFailure: false } : {}
/** The parse deadline (5 s), a wait behind another parse, and a busy machine. */
const ANSWER_MS = 20_000
/** A property's own time: the timed run's, or ten minutes of cases (a few seconds each at worst). */
const PROPERTY_MS = MINUTES > 0 ? MINUTES * 60_000 + 600_000 : 600_000

const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-hogql-fuzz-'))
chmodSync(dataDir, 0o755)
const personalApiKey = `phx_${randomBytes(24).toString('hex')}`
const seen = `hogql-fuzz-${randomUUID()}`
let built: BuiltServer
let child: ServiceProcess
let baseUrl: string
let projectId: number

beforeAll(async () => {
  built = await buildServer()
  child = await startServiceProcess(
    embeddedEnv(dataDir, {
      ...clickHouseEnvFor(dataDir),
      BATCH_MAX_AGE_MS: '100',
      BOOTSTRAP_PERSONAL_API_KEY: personalApiKey,
      // One key, one address, faster than any person.
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      API_RATE_LIMIT_PER_HOUR: '1000000',
      QUERY_RATE_LIMIT_PER_MINUTE: '1000000',
      QUERY_RATE_LIMIT_PER_HOUR: '1000000',
    }),
    built,
  )
  baseUrl = child.baseUrl
  const project = (await (await api('/api/projects/@current/')).json()) as { id: number; api_token: string }
  projectId = project.id
  const batch = Array.from({ length: 5 }, (_, i) => ({ event: seen, distinct_id: `user-${i}` }))
  expect((await post('/batch/', { api_key: project.api_token, batch })).status).toBe(200)
  await waitFor(async () => ((await seenCount()) === 5 ? true : undefined), { what: 'the seeded events', timeoutMs: 60_000 })
  await memoryLog('started')
}, 300_000)

afterAll(async () => {
  if (child) {
    const exited = exitCode(child.child)
    child.child.kill('SIGTERM')
    await exited
  }
  built?.remove()
  rmSync(dataDir, { recursive: true, force: true })
})

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${baseUrl}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${personalApiKey}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(ANSWER_MS * 2),
  })
const post = (p: string, body: unknown) =>
  fetch(`${baseUrl}${p}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })

async function query(body: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now()
  const res = await api(`/api/projects/${projectId}/query/`, {
    method: 'POST',
    body: JSON.stringify({ query: body, refresh: 'force_blocking' }),
  })
  return { status: res.status, body: await res.json(), ms: performance.now() - started }
}

async function seenCount(): Promise<number> {
  const answer = await query({ kind: 'HogQLQuery', query: `SELECT count() FROM events WHERE event = '${seen}'` })
  expect(answer.status).toBe(200)
  return Number(answer.body.results[0][0])
}

async function healthAtOnce(): Promise<void> {
  const started = performance.now()
  expect((await fetch(`${baseUrl}/_health`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200)
  expect(performance.now() - started).toBeLessThan(1_000)
}

interface Memory {
  /** The process's resident memory (the parser's thread and the embedded engines included), in MiB. */
  rss: number
  /** The main thread's JavaScript heap in use, in MiB. */
  heap: number
}

async function memory(): Promise<Memory> {
  const status = readFileSync(`/proc/${child.child.pid}/status`, 'utf8')
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024
  const metrics = await (await fetch(`${baseUrl}/_metrics`)).text()
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN) / 1024 / 1024
  return { rss, heap }
}

async function memoryLog(phase: string): Promise<Memory> {
  const now = await memory()
  console.log(`hogql fuzz memory ${phase}: rss ${Math.round(now.rss)} MiB, heap ${Math.round(now.heap)} MiB`)
  return now
}

/**
 * Samples memory along a property's cases (every tenth of them, or every minute of a timed run)
 * and asks that the second half of the samples grew past the first half's highest by less than
 * `bound` MiB: the parser's instance is replaced before it grows past 128 MiB, and nothing else
 * may keep what a query left.
 */
function memoryWatch(phase: string, bound = 192) {
  const samples: Memory[] = []
  let cases = 0
  let lastSample = performance.now()
  const grew = (of: (m: Memory) => number) => {
    const half = Math.floor(samples.length / 2)
    return Math.max(...samples.slice(half).map(of)) - Math.max(...samples.slice(0, half).map(of))
  }
  return {
    async tick() {
      cases++
      const due = MINUTES > 0 ? performance.now() - lastSample > 60_000 : cases % Math.max(1, Math.floor(CASES / 10)) === 0
      if (!due) return
      lastSample = performance.now()
      samples.push(await memoryLog(`${phase} after ${cases} cases`))
      await healthAtOnce()
    },
    levelsOff() {
      if (samples.length < 4) return
      expect(grew((m) => m.heap)).toBeLessThan(bound)
      expect(grew((m) => m.rss)).toBeLessThan(bound)
    },
  }
}

/** What an answer to any text may be: the query's rows, or a 400 with PostHog's body; never a 5xx, never a stack. */
function expectAnswered(answer: { status: number; body: any; ms: number }): void {
  expect(answer.ms).toBeLessThan(ANSWER_MS)
  if (answer.status === 200) return
  expect(answer.status).toBe(400)
  expect(answer.body).toMatchObject({ type: 'validation_error', code: expect.any(String), detail: expect.any(String) })
  expect(JSON.stringify(answer.body)).not.toMatch(/\.ts:\d+|node_modules|RuntimeError|wasm/)
}

const OPERATORS = [' or ', ' and ', ' + ', ' * ', ' = ', ' || ', ' ?? ', ' < ', ' like ', ' - ', ' between 1 and ', ' is not ']
/** Openers and their closers; some close nothing (`not`), some open the lexer's modes. */
const NESTS: Array<[string, string]> = [
  ['(', ')'],
  ['[', ']'],
  ['f(', ')'],
  ['tuple(', ')'],
  ['{', '}'],
  ['not ', ''],
  ['- ', ''],
  ['<a>', '</a>'],
  ["f'{", "}'"],
  ['case when 1 then ', ' end'],
  ['(select 1 from events where ', ')'],
  ['arrayMap(x -> ', ', [1])'],
  ['1 ? 1 : ', ''],
]
const TOKENS = [
  'select',
  'from',
  'events',
  'where',
  'event',
  'properties.$browser',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  "'",
  '"',
  '`',
  "f'",
  '<a>',
  '</a>',
  '--',
  '/*',
  '*/',
  '#',
  '\\',
  'not',
  'and',
  'or',
  '=',
  '->',
  '?',
  ':',
  '.',
  '1',
  'count()',
  'join',
  'as',
  'union all',
  'case',
  'when',
  'then',
  'end',
  '\n',
]

const chain = fc
  .record({ op: fc.constantFrom(...OPERATORS), terms: fc.integer({ min: 2, max: 2_000 }) })
  .map(({ op, terms }) => `select 1${`${op}1`.repeat(terms - 1)}`)
const nesting = fc
  .record({ levels: fc.array(fc.constantFrom(...NESTS), { minLength: 1, maxLength: 300 }), balanced: fc.boolean() })
  .map(({ levels, balanced }) => {
    const opens = levels.map(([open]) => open).join('')
    const closes = balanced
      ? levels
          .map(([, close]) => close)
          .reverse()
          .join('')
      : ''
    return `select ${opens}1${closes}`
  })
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 400 }).map((tokens) => tokens.join(' '))
const randomText = fc.oneof(fc.string({ unit: 'binary', maxLength: 500 }), fc.string({ unit: 'grapheme-ascii', maxLength: 500 }))
/** An expression of the usual kind, nested a little: what a person writes, parsed for real. */
const expression = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    fc.constantFrom('event', 'properties.$browser', 'timestamp', '1', "'x'", 'person.properties.email', 'distinct_id'),
    fc.tuple(tie('expr'), fc.constantFrom(...OPERATORS), tie('expr')).map(([a, op, b]) => `(${a}${op}${b})`),
    fc
      .tuple(fc.constantFrom('toString', 'lower', 'length', 'coalesce', 'if'), fc.array(tie('expr'), { minLength: 1, maxLength: 3 }))
      .map(([name, args]) => `${name}(${args.join(', ')})`),
  ),
})).expr
const hogqlText = fc.oneof(
  chain,
  nesting,
  tokenSoup,
  randomText,
  expression.map((e) => `select ${e} from events where ${e} limit 1`),
)

describe('fuzzing the HogQL parser through /query/', () => {
  it(
    'answers any HogQLQuery text in bounded time without a 5xx, health answering at once throughout',
    { timeout: PROPERTY_MS },
    async () => {
      const watch = memoryWatch('HogQLQuery')
      await fc.assert(
        fc.asyncProperty(hogqlText, async (text) => {
          expectAnswered(await query({ kind: 'HogQLQuery', query: text }))
          await watch.tick()
        }),
        { numRuns: CASES, ...budget },
      )
      await healthAtOnce()
      expect(await seenCount()).toBe(5)
      watch.levelsOff()
    },
  )

  it('answers any expression of an EventsQuery in bounded time without a 5xx', { timeout: PROPERTY_MS }, async () => {
    const watch = memoryWatch('EventsQuery')
    const part = fc.oneof(chain, nesting, tokenSoup, randomText, expression).map((text) => text.replace(/^select /, ''))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('select', 'where', 'orderBy'), part, async (field, text) => {
        const events = { kind: 'EventsQuery', select: ['event'], where: [], orderBy: [], after: '-1h' }
        expectAnswered(await query({ ...events, [field]: field === 'select' ? ['event', text] : [text] }))
        await watch.tick()
      }),
      { numRuns: CASES, ...budget },
    )
    await healthAtOnce()
    expect(await seenCount()).toBe(5)
    watch.levelsOff()
  })

  it('answers normal queries and health at once after the fuzzing', async () => {
    await healthAtOnce()
    const started = performance.now()
    expect(await seenCount()).toBe(5)
    expect(performance.now() - started).toBeLessThan(5_000)
    await memoryLog('at the end')
  })
})
