/**
 * A cache that every server instance sees: Redis when configured, else this process's memory.
 * A cache is an optimisation: when its backend is down, reads miss and writes are skipped,
 * and callers fall back to the source of truth.
 */
export interface SharedCache {
  readonly kind: 'memory' | 'redis'
  get(key: string): Promise<string | undefined>
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  delete(key: string): Promise<void>
  /** Tells every instance (this one included) that `key` changed. */
  publishInvalidation(key: string): Promise<void>
  onInvalidation(listener: (key: string) => void): void
  /** Whether the backend answers now (always, for memory). */
  connected(): boolean
  /** Resolves once the backend answers a round trip (at once, for memory); rejects when it does not, within REDIS_COMMAND_TIMEOUT_MS. */
  ping(): Promise<void>
  /** Ends the connections, waiting at most `withinMs` (1 s unless given) for a server that does not answer. */
  close(withinMs?: number): Promise<void>
}
