import { request } from 'node:http'
import { gzipSync } from 'node:zlib'
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStandinProcess, type StandinProcess } from './process'

let standin: StandinProcess
let client: ClickHouseClient

const clientFor = (url: string, overrides: Partial<Parameters<typeof createClient>[0]> = {}) =>
  createClient({ url, password: 'secret', log: { level: ClickHouseLogLevel.OFF }, request_timeout: 5_000, ...overrides })

/** What @clickhouse/client raised, or a failure of the test when it did not. */
async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (err) {
    return err as Error
  }
  throw new Error('the call did not fail')
}

/** A raw HTTP exchange, for what the client hides: status, headers, compressed bytes. */
function exchange(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(options.path, url), { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const basic = `Basic ${Buffer.from('default:secret').toString('base64')}`

beforeAll(async () => {
  standin = await startStandinProcess({ password: 'secret' })
  client = clientFor(standin.url)
  await client.command({
    query: `CREATE TABLE items (id UInt32, name String) ENGINE = MergeTree ORDER BY id
            SETTINGS non_replicated_deduplication_window = 100`,
  })
})

afterAll(async () => {
  await client?.close()
  await standin?.stop()
})

describe('the ClickHouse stand-in, as @clickhouse/client sees it', () => {
  it('answers ping, and queries with bound parameters in the format asked, 64-bit integers quoted as a server does', async () => {
    expect((await client.ping()).success).toBe(true)
    const result = await client.query({
      query: 'SELECT {n:UInt32} + 1 AS next, {names:Array(String)} AS names',
      query_params: { n: 41, names: ["o'brien", 'a\\b'] },
      format: 'JSONEachRow',
    })
    expect(await result.json()).toEqual([{ next: '42', names: ["o'brien", 'a\\b'] }])
  })

  it('stores inserted rows, with the summary of what was written', async () => {
    const { summary } = await client.insert({
      table: 'items',
      values: [
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ],
      format: 'JSONEachRow',
    })
    expect(summary?.written_rows).toBe('2')
    const rows = await (await client.query({ query: 'SELECT id, name FROM items WHERE id <= 2 ORDER BY id', format: 'JSONEachRow' })).json()
    expect(rows).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ])
  })

  it('applies an insert deduplication token: a retry with the same token stores nothing more', async () => {
    const settings = { insert_deduplication_token: 'batch-10' }
    await client.insert({ table: 'items', values: [{ id: 10, name: 'ten' }], format: 'JSONEachRow', clickhouse_settings: settings })
    await client.insert({
      table: 'items',
      values: [
        { id: 10, name: 'ten' },
        { id: 11, name: 'x' },
      ],
      format: 'JSONEachRow',
      clickhouse_settings: settings,
    })
    const rows = await (await client.query({ query: 'SELECT id FROM items WHERE id >= 10 ORDER BY id', format: 'JSONEachRow' })).json()
    expect(rows).toEqual([{ id: 10 }])
  })

  it("keeps a request's settings to that request", async () => {
    const asked = await client.query({
      query: "SELECT getSetting('max_threads') AS t",
      format: 'JSONEachRow',
      clickhouse_settings: { max_threads: 3 },
    })
    expect(await asked.json()).toEqual([{ t: 3 }])
    const later = await (
      await client.query({ query: "SELECT getSetting('max_threads') AS t", format: 'JSONEachRow' })
    ).json<{ t: number }>()
    expect(later[0]!.t).not.toBe(3)
  })

  it('uses the database the client names', async () => {
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS other' })
    const other = clientFor(standin.url, { database: 'other' })
    try {
      const rows = await (await other.query({ query: 'SELECT currentDatabase() AS db', format: 'JSONEachRow' })).json()
      expect(rows).toEqual([{ db: 'other' }])
    } finally {
      await other.close()
    }
  })

  it('raises ClickHouseError with the code and name of the exception', async () => {
    const unknownTable = await failureOf(client.query({ query: 'SELECT * FROM no_such_table' }))
    expect(unknownTable).toBeInstanceOf(ClickHouseError)
    expect(unknownTable).toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' })
    const syntax = await failureOf(client.command({ query: 'SELEC 1' }))
    expect(syntax).toMatchObject({ code: '62', type: 'SYNTAX_ERROR' })
    const badRow = await failureOf(client.insert({ table: 'items', values: [{ id: 'not a number', name: 'x' }], format: 'JSONEachRow' }))
    expect(badRow).toBeInstanceOf(ClickHouseError)
    expect(Number((badRow as ClickHouseError).code)).toBeGreaterThan(0)
  })

  it('refuses a wrong password as ClickHouse does', async () => {
    const intruder = clientFor(standin.url, { password: 'wrong' })
    try {
      const error = await failureOf(intruder.query({ query: 'SELECT 1' }))
      expect(error).toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' })
    } finally {
      await intruder.close()
    }
  })

  it('reads gzip bodies and answers in gzip when asked', async () => {
    const gzipped = clientFor(standin.url, { compression: { request: true, response: true } })
    try {
      await gzipped.insert({ table: 'items', values: [{ id: 20, name: 'twenty' }], format: 'JSONEachRow' })
      const rows = await (await gzipped.query({ query: 'SELECT name FROM items WHERE id = 20', format: 'JSONEachRow' })).json()
      expect(rows).toEqual([{ name: 'twenty' }])
    } finally {
      await gzipped.close()
    }
    const raw = await exchange(standin.url, {
      path: '/?enable_http_compression=1',
      headers: { Authorization: basic, 'Accept-Encoding': 'gzip', 'Content-Encoding': 'gzip' },
      body: gzipSync('SELECT 7 FORMAT TabSeparated'),
    })
    expect(raw.headers['content-encoding']).toBe('gzip')
  })
})

describe('the ClickHouse stand-in over plain HTTP', () => {
  it('answers errors with the status of the exception and its code in a header', async () => {
    const missing = await exchange(standin.url, { path: '/', headers: { Authorization: basic }, body: 'SELECT * FROM no_such_table' })
    expect(missing.status).toBe(404)
    expect(missing.headers['x-clickhouse-exception-code']).toBe('60')
    expect(missing.body.toString()).toMatch(/^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\)/)
    const syntax = await exchange(standin.url, { path: '/', headers: { Authorization: basic }, body: 'SELEC 1' })
    expect(syntax.status).toBe(400)
    const denied = await exchange(standin.url, { path: '/', body: 'SELECT 1' })
    expect(denied.status).toBe(403)
    expect(denied.headers['x-clickhouse-exception-code']).toBe('516')
  })

  it('sends the query id, the format and the summary in headers', async () => {
    const answer = await exchange(standin.url, {
      path: '/?query_id=my-query&wait_end_of_query=1',
      headers: { Authorization: basic },
      body: 'SELECT number FROM system.numbers LIMIT 3 FORMAT JSONEachRow',
    })
    expect(answer.status).toBe(200)
    expect(answer.headers['x-clickhouse-query-id']).toBe('my-query')
    expect(answer.headers['x-clickhouse-format']).toBe('JSONEachRow')
    expect(JSON.parse(String(answer.headers['x-clickhouse-summary']))).toMatchObject({ read_rows: '3' })
    expect(answer.body.toString()).toBe('{"number":"0"}\n{"number":"1"}\n{"number":"2"}\n')
  })

  it('takes the SQL from the query parameter and the rows from the body', async () => {
    const sql = encodeURIComponent('INSERT INTO items FORMAT JSONEachRow')
    const insert = await exchange(standin.url, {
      path: `/?query=${sql}`,
      headers: { Authorization: basic },
      body: '{"id":30,"name":"thirty"}\n',
    })
    expect(insert.status).toBe(200)
    const read = await exchange(standin.url, {
      method: 'GET',
      path: `/?query=${encodeURIComponent('SELECT name FROM items WHERE id = 30')}`,
      headers: { Authorization: basic },
    })
    expect(read.body.toString()).toBe('thirty\n')
  })

  it('takes the statement and parameters too large for a URL from a multipart form, as a server does', async () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => `id-${i}`)
    const result = await client.query({
      query: 'SELECT length({ids:Array(String)}) AS n, {name:String} AS name',
      query_params: { ids, name: "o'brien" },
      format: 'JSONEachRow',
      use_multipart_params: true,
    })
    expect(await result.json()).toEqual([{ n: '3000', name: "o'brien" }])
  })

  it('answers 431 to a request line longer than its bound, as a proxy in front of a server does', async () => {
    const strict = await startStandinProcess({ password: 'secret', maxHeaderBytes: 8 * 1024 })
    try {
      const long = await exchange(strict.url, {
        path: `/?param_x=${'a'.repeat(9_000)}`,
        headers: { Authorization: basic },
        body: 'SELECT 1',
      })
      expect(long.status).toBe(431)
      const short = await exchange(strict.url, { path: '/?param_x=a', headers: { Authorization: basic }, body: 'SELECT {x:String}' })
      expect(short.body.toString()).toBe('a\n')
    } finally {
      await strict.stop()
    }
  })

  it('runs GET requests read-only', async () => {
    const answer = await exchange(standin.url, {
      method: 'GET',
      path: `/?query=${encodeURIComponent('DROP TABLE items')}`,
      headers: { Authorization: basic },
    })
    expect(answer.headers['x-clickhouse-exception-code']).toBe('164')
    const rows = await (await client.query({ query: 'SELECT count() AS n FROM items', format: 'JSONEachRow' })).json<{ n: string }>()
    expect(Number(rows[0]!.n)).toBeGreaterThan(0)
  })
})

describe('faults on demand', () => {
  it('answers 503 once, then serves again', async () => {
    await standin.inject({ kind: 'unavailable' })
    const error = await failureOf(client.query({ query: 'SELECT 1' }))
    expect(error).not.toBeInstanceOf(ClickHouseError)
    expect(error.message).toContain('Service Unavailable')
    expect(await (await client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }])
  })

  it('drops the connection before running a matching statement', async () => {
    await standin.inject({ kind: 'reset', match: 'INSERT INTO items' })
    await failureOf(client.insert({ table: 'items', values: [{ id: 40, name: 'forty' }], format: 'JSONEachRow' }))
    const rows = await (await client.query({ query: 'SELECT count() AS n FROM items WHERE id = 40', format: 'JSONEachRow' })).json()
    expect(rows).toEqual([{ n: '0' }])
  })

  it('commits and then never answers: the client times out, the rows are stored', async () => {
    const impatient = clientFor(standin.url, { request_timeout: 500 })
    try {
      await standin.inject({ kind: 'commit-then-hang', match: 'INSERT INTO items' })
      const error = await failureOf(impatient.insert({ table: 'items', values: [{ id: 50, name: 'fifty' }], format: 'JSONEachRow' }))
      expect(error.message).toMatch(/timeout/i)
    } finally {
      await impatient.close()
    }
    const rows = await (await client.query({ query: 'SELECT name FROM items WHERE id = 50', format: 'JSONEachRow' })).json()
    expect(rows).toEqual([{ name: 'fifty' }])
  })

  it('commits and then drops the connection', async () => {
    await standin.inject({ kind: 'commit-then-reset', match: 'INSERT INTO items' })
    await failureOf(client.insert({ table: 'items', values: [{ id: 60, name: 'sixty' }], format: 'JSONEachRow' }))
    const rows = await (await client.query({ query: 'SELECT name FROM items WHERE id = 60', format: 'JSONEachRow' })).json()
    expect(rows).toEqual([{ name: 'sixty' }])
  })

  it('refuses connections while down, and serves on the same port once back', async () => {
    await standin.refuse()
    const error = await failureOf(client.query({ query: 'SELECT 1' }))
    expect(error.message).toMatch(/ECONNREFUSED|socket hang up|ECONNRESET/)
    await standin.accept()
    expect((await client.ping()).success).toBe(true)
  })
})
