import type { Config } from '@burrow/config'
import { DiskReserve, type DiskReserveOptions, type DiskRoom } from '@burrow/spool'

/**
 * The reserve kept on DATA_DIR's file system: DISK_RESERVE_BYTES for ClickHouse's merges and
 * PostgreSQL, plus one spool segment, which is created at full size before the active one fills.
 */
export function diskReserveOptions(config: Pick<Config, 'DATA_DIR' | 'DISK_RESERVE_BYTES' | 'SPOOL_SEGMENT_BYTES'>): DiskReserveOptions {
  return { dir: config.DATA_DIR, reserveBytes: config.DISK_RESERVE_BYTES + config.SPOOL_SEGMENT_BYTES }
}

/** Whether DATA_DIR's file system has room for new events, and how much it has (`room()`): for capture and the readiness probe. */
export const createDiskReserve = (config: Pick<Config, 'DATA_DIR' | 'DISK_RESERVE_BYTES' | 'SPOOL_SEGMENT_BYTES'>) =>
  new DiskReserve(diskReserveOptions(config))

/** Where the free space stands against the reserve, and how often it crossed it since the start: for the logs and metrics. */
export interface DiskReserveState {
  /** Below the reserve at the last reading: capture refuses new events. */
  below: boolean
  /** Times the free space fell below the reserve, and rose above it again. */
  wentBelow: number
  cameBack: number
}

export interface DiskReserveWatch {
  state(): DiskReserveState
  /** Reads the reserve now (the timer does it every `intervalMs`). */
  check(): void
  stop(): void
}

/** What the watch writes: an error when capture starts refusing events, a warning when it takes them again. */
export interface DiskWatchLog {
  error(fields: Record<string, unknown>, msg: string): void
  warn(fields: Record<string, unknown>, msg: string): void
}

const MiB = 1024 * 1024
const inMiB = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`

/**
 * Watches the free space on DATA_DIR's file system against the reserve and writes one line each
 * time it crosses it, either way: capture's 503s say why only to the client, and a disk that
 * fills should be in the log when it begins and when it ends, not at every refused request.
 * Readings are the reserve's own (cached, as capture sees them); a file system that cannot be
 * read counts as having room, as capture counts it.
 */
export function watchDiskReserve(
  disk: { room(): DiskRoom },
  log: DiskWatchLog,
  options: { intervalMs?: number; now?: () => number } = {},
): DiskReserveWatch {
  const now = options.now ?? Date.now
  const state: DiskReserveState = { below: false, wentBelow: 0, cameBack: 0 }
  let since = now()
  const check = () => {
    const room = disk.room()
    if (room.ok !== state.below) return
    const fields = { free_bytes: room.freeBytes, reserve_bytes: room.reserveBytes, total_bytes: room.totalBytes }
    const at = now()
    if (room.ok) {
      state.below = false
      state.cameBack++
      log.warn(
        { ...fields, below_ms: at - since },
        `disk: free space on DATA_DIR's file system is above the reserve again (${inMiB(room.freeBytes)} free, reserve ${inMiB(room.reserveBytes)}) after ${((at - since) / 1000).toFixed(1)} s: capture takes new events again`,
      )
    } else {
      state.below = true
      state.wentBelow++
      log.error(
        fields,
        `disk: free space on DATA_DIR's file system is below the reserve (${inMiB(room.freeBytes)} free, reserve ${inMiB(room.reserveBytes)}): capture answers 503 to new events until space is freed`,
      )
    }
    since = at
  }
  check()
  const timer = setInterval(check, options.intervalMs ?? 250)
  timer.unref()
  return { state: () => ({ ...state }), check, stop: () => clearInterval(timer) }
}
