import type { Config } from '@burrow/config'
import { DiskReserve, type DiskReserveOptions } from '@burrow/spool'

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
