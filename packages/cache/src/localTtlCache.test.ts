import { describe, expect, it } from 'vitest'
import { LocalTtlCache } from './localTtlCache'

describe('LocalTtlCache', () => {
  it('serves a stale value while the source is down, and the fresh one once it is back', async () => {
    let source: () => Promise<string> = async () => 'v1'
    const cache = new LocalTtlCache((_key) => source(), { freshMs: 20, maxEntries: 10 })
    expect(await cache.get('k')).toBe('v1')
    source = async () => {
      throw new Error('database down')
    }
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(await cache.get('k')).toBe('v1')
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await cache.get('k')).toBe('v1')
    source = async () => 'v2'
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(await cache.get('k')).toBe('v1')
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await cache.get('k')).toBe('v2')
  })

  it('fails a first lookup while the source is down, and loads once it is back', async () => {
    let up = false
    const cache = new LocalTtlCache(async (key) => {
      if (!up) throw new Error('down')
      return key.toUpperCase()
    }, { freshMs: 1000, maxEntries: 10 })
    await expect(cache.get('a')).rejects.toThrow('down')
    up = true
    expect(await cache.get('a')).toBe('A')
  })
})
