// The reader connections on the suite's ClickHouse (the embedded engine, or a server): each
// statement's answer is its own, and its limit holds whatever the statement does.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useSuiteClickHouse } from '../test/suiteClickHouse'
import { ClickHouseTimedOut } from './errors'
import { asTenant } from './tenant'

const suite = useSuiteClickHouse('burrow-readers-')

/** A statement whose first rows are written before it fails (the second block holds the failing row). */
const FAILS_MIDWAY = 'SELECT number AS n, intDiv(1, number - 70000) AS x FROM numbers(100000) SETTINGS max_block_size = 65536'
/** Seconds of work for the engine, whatever the machine, unless it is stopped. */
const HEAVY = 'SELECT count() AS n FROM numbers(3000000) AS a CROSS JOIN numbers(30000) AS b WHERE a.number > {floor:UInt64}'

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (err) {
    return err as Error
  }
  throw new Error('the statement did not fail')
}

describe('the reader connections', () => {
  it("hands no failed statement's output to the statements after it", async () => {
    const { ch } = suite
    for (let round = 0; round < 3; round++) {
      const failed = ch.reader.query({ query: FAILS_MIDWAY, format: 'JSONCompact' }).then((r) => r.text())
      const answers = Array.from({ length: 6 }, (_, i) =>
        ch.reader.query({ query: 'SELECT {i:UInt32} AS i', query_params: { i }, format: 'JSONEachRow' }).then((r) => r.json()),
      )
      expect((await failure(failed)).message).toMatch(/[Dd]ivision by zero/)
      expect(await Promise.all(answers)).toEqual(Array.from({ length: 6 }, (_, i) => [{ i }]))
    }
  })

  it("answers another tenant's statement with parameters while a slow one runs", async () => {
    const { ch } = suite
    const slow = asTenant({ organization: 'b', project: 2 }, () =>
      ch.reader.query({ query: HEAVY, query_params: { floor: 0 }, format: 'JSONEachRow', timeoutMs: 2_000 }),
    )
    slow.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = performance.now()
    const quick = await asTenant({ organization: 'a', project: 1 }, () =>
      ch.reader.query({ query: 'SELECT {name:String} AS name', query_params: { name: "o'brien" }, format: 'JSONEachRow' }),
    )
    expect(await quick.json()).toEqual([{ name: "o'brien" }])
    expect(performance.now() - started).toBeLessThan(1_000)
    await failure(slow)
  })

  it('answers a statement past its limit with ClickHouseTimedOut at the limit, and stops it', async () => {
    const { ch } = suite
    const marker = randomUUID()
    const started = performance.now()
    const err = await failure(
      ch.reader.query({ query: `${HEAVY} AND '${marker}' != ''`, query_params: { floor: 1 }, format: 'JSONEachRow', timeoutMs: 1_500 }),
    )
    expect(err).toBeInstanceOf(ClickHouseTimedOut)
    expect(performance.now() - started).toBeLessThan(2_500)
    const running = async () => {
      const result = await ch.reader.query({
        query: 'SELECT count() AS n FROM system.processes WHERE query LIKE {pattern:String} AND query NOT LIKE {self:String}',
        query_params: { pattern: `%${marker}%`, self: '%system.processes%' },
        format: 'JSONEachRow',
      })
      return Number((await result.json<{ n: string | number }>())[0]?.n)
    }
    const deadline = Date.now() + 5_000
    while ((await running()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await running()).toBe(0)
  })

  it('reads with thousands of values in one parameter', async () => {
    const { ch } = suite
    const uuids = Array.from({ length: 5_000 }, () => randomUUID())
    const result = await ch.reader.query({
      query: 'SELECT length({uuids:Array(UUID)}) AS n, has({uuids:Array(UUID)}, toUUID({last:String})) AS found',
      query_params: { uuids, last: uuids.at(-1) },
      format: 'JSONEachRow',
    })
    expect(await result.json()).toEqual([{ n: expect.anything(), found: 1 }])
  })
})
