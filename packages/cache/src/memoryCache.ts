import { systemClock, type Clock } from './clock'
import type { SharedCache } from './sharedCache'

export function createMemoryCache({ clock = systemClock }: { clock?: Clock } = {}): SharedCache {
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
      entries.set(key, { value, expiresAt: clock.now() + ttlSeconds * 1000 })
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
    async close() {
      entries.clear()
    },
  }
}
