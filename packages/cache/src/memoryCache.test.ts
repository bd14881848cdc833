import { describe, expect, it } from 'vitest'
import { manualClock } from './clock'
import { createMemoryCache } from './memoryCache'

describe('the in-process shared cache', () => {
  it('answers a value until its time to live is over, then misses', async () => {
    const clock = manualClock()
    const cache = createMemoryCache({ clock })
    await cache.set('token', 'project 1', 60)
    clock.advance(59_999)
    expect(await cache.get('token')).toBe('project 1')
    clock.advance(1)
    expect(await cache.get('token')).toBeUndefined()
  })

  it('keeps at most its number of entries, forgetting the least recently written', async () => {
    const cache = createMemoryCache({ clock: manualClock(), maxEntries: 2 })
    await cache.set('a', '1', 60)
    await cache.set('b', '2', 60)
    await cache.set('a', '3', 60)
    await cache.set('c', '4', 60)
    expect(await cache.get('b')).toBeUndefined()
    expect(await cache.get('a')).toBe('3')
    expect(await cache.get('c')).toBe('4')
  })

  it('misses a key never set or deleted', async () => {
    const cache = createMemoryCache({ clock: manualClock() })
    expect(await cache.get('nothing')).toBeUndefined()
    await cache.set('k', 'v', 60)
    await cache.delete('k')
    expect(await cache.get('k')).toBeUndefined()
  })

  it('starts a new time to live when a key is set again', async () => {
    const clock = manualClock()
    const cache = createMemoryCache({ clock })
    await cache.set('k', 'old', 10)
    clock.advance(9_000)
    await cache.set('k', 'new', 10)
    clock.advance(9_000)
    expect(await cache.get('k')).toBe('new')
  })

  it('tells every listener of an invalidation, in this process', async () => {
    const cache = createMemoryCache()
    const heard: string[] = []
    cache.onInvalidation((key) => heard.push(`a:${key}`))
    cache.onInvalidation((key) => heard.push(`b:${key}`))
    await cache.publishInvalidation('token')
    expect(heard).toEqual(['a:token', 'b:token'])
    expect(cache.kind).toBe('memory')
  })

  it('forgets everything once closed', async () => {
    const cache = createMemoryCache({ clock: manualClock() })
    await cache.set('k', 'v', 60)
    await cache.close()
    expect(await cache.get('k')).toBeUndefined()
  })
})
