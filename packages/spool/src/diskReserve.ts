import { statfsSync } from 'node:fs'

/** What the file system holding the data directory has left, and whether capture may use it. */
export interface DiskRoom {
  /** Free space is at or above the reserve (or could not be read: the writes themselves will tell). */
  ok: boolean
  /** Bytes an unprivileged process may still write; NaN when the file system could not be read. */
  freeBytes: number
  totalBytes: number
  reserveBytes: number
  /** Why the file system could not be read. */
  error?: string
}

export interface DiskReserveOptions {
  /** A directory on the file system to watch (DATA_DIR). */
  dir: string
  /** Free space below which new events are refused. */
  reserveBytes: number
  /** How long a reading is reused: capture asks on every request. */
  cacheMs?: number
  /** The statfs(2) call, replaceable to test the arithmetic without filling a disk. */
  statfs?: (dir: string) => { bavail: number; bsize: number; blocks: number }
}

const DEFAULT_CACHE_MS = 250

/**
 * The free space kept on DATA_DIR's file system. A full disk is where acknowledged events are
 * lost: a spool segment that cannot be created, a ClickHouse part or merge cut short. Capture
 * refuses new events (503, as for a full spool) while the space left is below the reserve, so
 * that what was acknowledged can still be stored and merged.
 */
export class DiskReserve {
  private reading: DiskRoom | undefined
  private readAt = 0
  private readonly statfs: NonNullable<DiskReserveOptions['statfs']>

  constructor(private readonly options: DiskReserveOptions) {
    this.statfs = options.statfs ?? ((dir) => statfsSync(dir))
  }

  /** Whether new events may be accepted. */
  hasRoom(): boolean {
    return this.room().ok
  }

  /** The latest reading, at most `cacheMs` old. */
  room(): DiskRoom {
    const now = Date.now()
    if (this.reading && now - this.readAt < (this.options.cacheMs ?? DEFAULT_CACHE_MS)) return this.reading
    this.reading = this.read()
    this.readAt = now
    return this.reading
  }

  private read(): DiskRoom {
    const reserveBytes = this.options.reserveBytes
    try {
      const stats = this.statfs(this.options.dir)
      const freeBytes = stats.bavail * stats.bsize
      return { ok: freeBytes >= reserveBytes, freeBytes, totalBytes: stats.blocks * stats.bsize, reserveBytes }
    } catch (err) {
      return { ok: true, freeBytes: Number.NaN, totalBytes: Number.NaN, reserveBytes, error: String(err) }
    }
  }
}
