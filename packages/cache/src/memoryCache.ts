import { systemClock, type Clock } from './clock'
import type { SharedCache } from './sharedCache'

/** Entries kept at most: past it, the least recently written ones go, so that keys written once (visitors' state) stay bounded. */
const MAX_ENTRIES = 100_000

export function createMemoryCache({
  clock = systemClock,
  maxEntries = MAX_ENTRIES,
}: { clock?: Clock; maxEntries?: number } = {}): SharedCache {
  const entries = new Map<string, { value: string; expiresAt: number }>()
  const listeners: ((key: string) => void)[] = []
  return {
    kind: 'memory',
    async get(key) {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.expiresAt <= clock.now()) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },
    async set(key, value, ttlSeconds) {
      // Written again, a key becomes the newest (a Map iterates in insertion order).
      entries.delete(key)
      entries.set(key, { value, expiresAt: clock.now() + ttlSeconds * 1000 })
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
    },
    async delete(key) {
      entries.delete(key)
    },
    async publishInvalidation(key) {
      for (const listener of listeners) listener(key)
    },
    onInvalidation(listener) {
      listeners.push(listener)
    },
    connected() {
      return true
    },
    async ping() {},
    async close() {
      entries.clear()
    },
  }
}
