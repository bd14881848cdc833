import { afterEach, describe, expect, it, vi } from 'vitest'
import { manualClock } from './clock'
import { LocalTtlCache } from './localTtlCache'

/** Lets a refresh started in the background finish (its load resolves on the microtask queue). */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** A source whose answer the test changes, counting its loads. */
function source<V>(first: V) {
  let answer: () => Promise<V> = () => Promise.resolve(first)
  const calls: string[] = []
  return {
    calls,
    load: (key: string) => {
      calls.push(key)
      return answer()
    },
    answers(value: V) {
      answer = () => Promise.resolve(value)
    },
    fails(message = 'database down') {
      answer = () => Promise.reject(new Error(message))
    },
  }
}

describe('LocalTtlCache', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('loads a value once and serves it from memory while it is fresh', async () => {
    const clock = manualClock()
    const db = source('v1')
    const cache = new LocalTtlCache(db.load, { freshMs: 1000, maxEntries: 10, clock })
    expect(await cache.get('k')).toBe('v1')
    clock.advance(1000)
    expect(await cache.get('k')).toBe('v1')
    await settle()
    expect(db.calls).toEqual(['k'])
  })

  it('serves a stale value at once and refreshes it in the background', async () => {
    const clock = manualClock()
    const db = source('v1')
    const cache = new LocalTtlCache(db.load, { freshMs: 1000, maxEntries: 10, clock })
    await cache.get('k')
    db.answers('v2')
    clock.advance(1001)
    expect(await cache.get('k')).toBe('v1')
    await settle()
    expect(await cache.get('k')).toBe('v2')
    expect(db.calls).toEqual(['k', 'k'])
  })

  it('serves a stale value while the source is down, and the fresh one once it is back', async () => {
    const clock = manualClock()
    const db = source('v1')
    const cache = new LocalTtlCache(db.load, { freshMs: 20, maxEntries: 10, clock })
    expect(await cache.get('k')).toBe('v1')
    db.fails()
    clock.advance(30)
    expect(await cache.get('k')).toBe('v1')
    await settle()
    expect(await cache.get('k')).toBe('v1')
    await settle()
    db.answers('v2')
    clock.advance(30)
    expect(await cache.get('k')).toBe('v1')
    await settle()
    expect(await cache.get('k')).toBe('v2')
  })

  it('fails a first lookup while the source is down, and loads once it is back', async () => {
    const db = source('A')
    db.fails('down')
    const cache = new LocalTtlCache(db.load, { freshMs: 1000, maxEntries: 10, clock: manualClock() })
    await expect(cache.get('a')).rejects.toThrow('down')
    db.answers('A')
    expect(await cache.get('a')).toBe('A')
  })

  it('runs one load per key at a time, however many ask for it', async () => {
    let release: (value: string) => void = () => {}
    const calls: string[] = []
    const cache = new LocalTtlCache(
      (key) => {
        calls.push(key)
        return new Promise<string>((resolve) => (release = resolve))
      },
      { freshMs: 1000, maxEntries: 10, clock: manualClock() },
    )
    const waiting = Promise.all([cache.get('k'), cache.get('k'), cache.get('k')])
    release('v')
    expect(await waiting).toEqual(['v', 'v', 'v'])
    expect(calls).toEqual(['k'])
  })

  it('keeps a value for the window freshMsFor gives it', async () => {
    const clock = manualClock()
    const db = source<string | null>(null)
    const cache = new LocalTtlCache(db.load, { freshMs: 60_000, maxEntries: 10, clock, freshMsFor: (v) => (v === null ? 1000 : 60_000) })
    expect(await cache.get('unknown')).toBeNull()
    db.answers('found')
    clock.advance(1001)
    await cache.get('unknown')
    await settle()
    expect(await cache.get('unknown')).toBe('found')
    clock.advance(59_999)
    await cache.get('unknown')
    await settle()
    expect(db.calls).toHaveLength(2)
  })

  it('forgets the oldest entry to make room past maxEntries', async () => {
    const db = source('v')
    const cache = new LocalTtlCache(db.load, { freshMs: 1000, maxEntries: 2, clock: manualClock() })
    for (const key of ['a', 'b', 'c']) await cache.get(key)
    expect(cache.peek('a')).toBeUndefined()
    expect(cache.peek('b')).toBe('v')
    expect(cache.peek('c')).toBe('v')
  })

  it('peeks without loading a missing key, and refreshes a stale one it answers', async () => {
    const clock = manualClock()
    const db = source('v1')
    const cache = new LocalTtlCache(db.load, { freshMs: 1000, maxEntries: 10, clock })
    expect(cache.peek('k')).toBeUndefined()
    expect(db.calls).toEqual([])
    await cache.get('k')
    db.answers('v2')
    clock.advance(1001)
    expect(cache.peek('k')).toBe('v1')
    await settle()
    expect(cache.peek('k')).toBe('v2')
  })

  it('loads again after a key is deleted or the cache cleared', async () => {
    const db = source('v')
    const cache = new LocalTtlCache(db.load, { freshMs: 60_000, maxEntries: 10, clock: manualClock() })
    await cache.get('a')
    await cache.get('b')
    cache.delete('a')
    await cache.get('a')
    cache.clear()
    await cache.get('a')
    await cache.get('b')
    expect(db.calls).toEqual(['a', 'b', 'a', 'a', 'b'])
  })

  it('reads the system clock when given none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const db = source('v1')
    const cache = new LocalTtlCache(db.load, { freshMs: 5000, maxEntries: 10 })
    await cache.get('k')
    db.answers('v2')
    vi.advanceTimersByTime(5000)
    expect(cache.peek('k')).toBe('v1')
    vi.advanceTimersByTime(1)
    cache.peek('k')
    await settle()
    expect(cache.peek('k')).toBe('v2')
  })
})
