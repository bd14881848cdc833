import { systemClock, type Clock } from './clock'

export interface LocalTtlCacheOptions<V> {
  freshMs: number
  maxEntries: number
  /** A freshness window of its own for some values (a miss kept for less time than a hit). */
  freshMsFor?: (value: V) => number
  clock?: Clock
}

/**
 * A small in-process cache with a freshness window and stale-while-revalidate: an entry past
 * its freshness is still served while one refresh runs, and is kept if the refresh fails, so
 * a database outage does not stop requests that the cache can answer.
 */
export class LocalTtlCache<V> {
  private readonly entries = new Map<string, { value: V; freshUntil: number }>()
  private readonly refreshing = new Map<string, Promise<V>>()
  private readonly clock: Clock

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly options: LocalTtlCacheOptions<V>,
  ) {
    this.clock = options.clock ?? systemClock
  }

  /** The cached value, loading it when absent; a stale value is returned while it refreshes. */
  async get(key: string): Promise<V> {
    const entry = this.entries.get(key)
    if (entry) {
      if (entry.freshUntil < this.clock.now()) this.refresh(key).catch(() => {})
      return entry.value
    }
    return this.refresh(key)
  }

  /** The cached value if present, without loading; lets hot paths skip an await. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry && entry.freshUntil < this.clock.now()) this.refresh(key).catch(() => {})
    return entry?.value
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }

  private refresh(key: string): Promise<V> {
    const running = this.refreshing.get(key)
    if (running) return running
    const promise = this.load(key)
      .then((value) => {
        if (this.entries.size >= this.options.maxEntries && !this.entries.has(key)) {
          const oldest = this.entries.keys().next().value
          if (oldest !== undefined) this.entries.delete(oldest)
        }
        const freshMs = this.options.freshMsFor?.(value) ?? this.options.freshMs
        this.entries.set(key, { value, freshUntil: this.clock.now() + freshMs })
        return value
      })
      .finally(() => this.refreshing.delete(key))
    this.refreshing.set(key, promise)
    return promise
  }
}
