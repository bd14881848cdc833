type Properties = Record<string, unknown>

interface Entry {
  properties: Properties
  /** When PostgreSQL answered these properties (the clock's milliseconds). */
  at: number
}

/**
 * Statements in flight whose answers may be remembered. A person forgotten while a statement
 * was in flight may have changed after the statement read it: its answer is not remembered.
 */
export interface Watch {
  forgotten: Set<string>
  /** Everything was forgotten meanwhile. */
  all: boolean
}

export interface WrittenPersonsOptions {
  maxEntries: number
  /**
   * How long an entry is believed without news from PostgreSQL. Other servers' writes drop
   * entries through the shared cache's invalidations; this bounds how long an entry can be
   * wrong if such a message is lost (Redis reconnecting).
   */
  maxAgeMs: number
  now?: () => number
}

const keyOf = (projectId: number, personId: number) => `${projectId}:${personId}`

/**
 * The properties of persons as this server last wrote or read them in PostgreSQL, bounded (the
 * least recently used entry goes first), so that a batch whose changes the person already holds
 * is decided without a round trip. An entry only ever lets a write be skipped; a write it
 * predicts is decided again by PostgreSQL against the stored person.
 */
export class WrittenPersons {
  private readonly entries = new Map<string, Entry>()
  private readonly watches = new Set<Watch>()
  private readonly now: () => number

  constructor(private readonly options: WrittenPersonsOptions) {
    this.now = options.now ?? Date.now
  }

  /** The person's properties as last written or read, if known and recent enough. */
  get(projectId: number, personId: number): Properties | undefined {
    const key = keyOf(projectId, personId)
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (this.now() - entry.at > this.options.maxAgeMs) {
      this.entries.delete(key)
      return undefined
    }
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.properties
  }

  /** Starts watching for persons forgotten until `end`: open it before the statements whose answers are remembered. */
  watch(): Watch {
    const watch: Watch = { forgotten: new Set(), all: false }
    this.watches.add(watch)
    return watch
  }

  end(watch: Watch): void {
    this.watches.delete(watch)
  }

  /** Remembers what PostgreSQL answered under `watch`, unless the person was forgotten since the watch began. */
  remember(watch: Watch, projectId: number, personId: number, properties: Properties): void {
    const key = keyOf(projectId, personId)
    if (watch.all || watch.forgotten.has(key) || !this.watches.has(watch)) return
    this.entries.delete(key)
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(key, { properties, at: this.now() })
  }

  /** Drops what is known of persons someone wrote; statements in flight (but `except`'s) do not remember them. */
  forget(projectId: number, personIds: Iterable<number>, except?: Watch): void {
    for (const id of personIds) {
      const key = keyOf(projectId, id)
      this.entries.delete(key)
      for (const watch of this.watches) if (watch !== except) watch.forgotten.add(key)
    }
  }

  /** Drops everything: invalidations may have been missed. */
  clear(): void {
    this.entries.clear()
    for (const watch of this.watches) watch.all = true
  }

  get size(): number {
    return this.entries.size
  }
}
