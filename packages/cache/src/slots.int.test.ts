import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createSlotStore, type SlotStore } from './slots'

// The suite's Redis (REDIS_URL), as every instance of the service would share it.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

const opened: SlotStore[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()))
})

function store(url: string | undefined = REDIS_URL): SlotStore {
  const s = createSlotStore(url)
  opened.push(s)
  return s
}

/** Until both stores count in Redis: before their clients connect, each counts in its own memory. */
async function sharing(a: SlotStore, b: SlotStore): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const probe = `probe-${randomUUID()}`
    if ((await a.tryAcquire(probe, 1, 60_000)) !== undefined && (await b.tryAcquire(probe, 1, 60_000)) === undefined) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the slot stores never shared Redis')
}

describe('slots shared through Redis', () => {
  it('lets two servers hold at most the limit of one key together, and frees a slot when it is released', async () => {
    const [a, b] = [store(), store()]
    await sharing(a, b)
    const key = `query:${randomUUID()}`
    const first = await a.tryAcquire(key, 2, 60_000)
    const second = await b.tryAcquire(key, 2, 60_000)
    expect(first).toBeDefined()
    expect(second).toBeDefined()
    expect(await a.tryAcquire(key, 2, 60_000)).toBeUndefined()
    expect(await b.tryAcquire(key, 2, 60_000)).toBeUndefined()
    // Another key is not held up.
    expect(await b.tryAcquire(`${key}-other`, 2, 60_000)).toBeDefined()
    await a.release(key, first!)
    expect(await b.tryAcquire(key, 2, 60_000)).toBeDefined()
  })

  it('frees the slot of a holder that never gives it back once its lease ends', async () => {
    const [a, b] = [store(), store()]
    await sharing(a, b)
    const key = `query:${randomUUID()}`
    expect(await a.tryAcquire(key, 1, 300)).toBeDefined()
    expect(await b.tryAcquire(key, 1, 300)).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await b.tryAcquire(key, 1, 300)).toBeDefined()
  })

  it('counts in memory, per server, while Redis cannot be reached', async () => {
    const away = store('redis://127.0.0.1:1')
    const key = `query:${randomUUID()}`
    const started = Date.now()
    const token = await away.tryAcquire(key, 1, 60_000)
    expect(token).toBeDefined()
    expect(await away.tryAcquire(key, 1, 60_000)).toBeUndefined()
    await away.release(key, token!)
    expect(await away.tryAcquire(key, 1, 60_000)).toBeDefined()
    // No request waits on the unreachable Redis.
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
