import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { flockSync } from 'fs-ext'
import { createDataDir } from './privateDataDir'

/** The file under DATA_DIR whose lock marks the directory's owner, and which holds the owner's pid. */
const LOCK_FILE = 'burrow.lock'

/** Another process holds the data directory: the service or a CLI command working on it. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another Burrow process (${ownerPid === undefined ? 'pid not recorded yet' : `pid ${ownerPid}`}): ` +
        `stop it first, or give this one a DATA_DIR of its own`,
    )
    this.name = 'DataDirInUseError'
  }
}

export interface DataDirLock {
  /** Gives the directory up; the process ending does the same. */
  release(): void
}

/**
 * Takes the data directory for this process, or throws DataDirInUseError naming the process
 * that has it. The lock is flock(2)'s: the kernel lets it go when the owner exits however it
 * exits (kill -9 included), so a stale lock file never keeps the service from starting, and
 * its pid is only there to be named. Node opens files close-on-exec, so the processes the
 * service starts (the embedded PostgreSQL) do not inherit the lock and outlive it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = path.resolve(dataDir)
  createDataDir(dir)
  const file = path.join(dir, LOCK_FILE)
  // Opened without truncating: until the lock is ours, the pid in it is the owner's.
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600)
  try {
    flockSync(fd, 'exnb')
  } catch (err) {
    closeSync(fd)
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') throw new DataDirInUseError(dir, recordedPid(file))
    throw err
  }
  ftruncateSync(fd, 0)
  writeSync(fd, `${process.pid}\n`, 0)
  return {
    release() {
      ftruncateSync(fd, 0)
      closeSync(fd)
    },
  }
}

function recordedPid(file: string): number | undefined {
  const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}
