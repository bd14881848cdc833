import type { PersonRef } from '@burrow/postgres'
import { persons } from '@burrow/core'

/**
 * Which person each recently seen distinct id belongs to, bounded (the oldest entry goes
 * first). Merges and deletions on any server invalidate the ids they move, through the
 * shared cache's invalidations.
 */
export class DistinctIdCache {
  private readonly entries = new Map<string, PersonRef>()

  constructor(private readonly maxEntries: number) {}

  get(teamId: number, distinctId: string): PersonRef | undefined {
    return this.entries.get(persons.distinctIdKey(teamId, distinctId))
  }

  set(teamId: number, distinctId: string, ref: PersonRef): void {
    const key = persons.distinctIdKey(teamId, distinctId)
    this.entries.delete(key)
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, ref)
  }

  forget(teamId: number, distinctId: string): void {
    this.entries.delete(persons.distinctIdKey(teamId, distinctId))
  }

  /** Drops the entry of an invalidated shared-cache key (other keys are not ours and are ignored). */
  forgetKey(key: string): void {
    this.entries.delete(key)
  }
}
