import { chmodSync, lstatSync, mkdirSync, readdirSync, realpathSync } from 'node:fs'
import path from 'node:path'

/** The umask the service runs with: what it creates under DATA_DIR (the spool, ClickHouse's parts) is its user's alone. */
const SERVICE_UMASK = 0o077

/** A mode changed at start, or that could not be (`error`: the code, such as EPERM for another user's file). */
interface ModeChange {
  path: string
  from: number
  to: number
  error?: string
}

export interface PrivateDataDirOptions {
  /**
   * The embedded PostgreSQL runs as another OS user (`postgres`, when this process is root),
   * which must pass through DATA_DIR to its own data directory: DATA_DIR then lets others enter
   * it (mode 0711), never list or read it, and every entry in it is private.
   */
  enterableByOthers: boolean
}

/**
 * Creates DATA_DIR (its parents as the umask makes them, since the embedded PostgreSQL's user may
 * need to pass through them) with only its owner's permissions, or nothing more than that.
 */
export function createDataDir(dataDir: string): void {
  const dir = path.resolve(dataDir)
  mkdirSync(path.dirname(dir), { recursive: true })
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
}

/**
 * Makes what DATA_DIR holds readable by its owner alone: DATA_DIR keeps its owner's
 * permissions (plus entering, see `enterableByOthers`), and each entry directly in it loses
 * every permission of group and others. Nothing deeper needs a look: another user reaches it
 * only through those entries, so the 0644 files of earlier releases (the spool's segments,
 * ClickHouse's parts) become unreadable without a walk of every part. Symbolic links are left
 * alone (their own mode means nothing). Returns what it changed.
 */
export function makeDataDirPrivate(dataDir: string, options: PrivateDataDirOptions): ModeChange[] {
  createDataDir(dataDir)
  // DATA_DIR itself may be a link to where the data is: that directory is the one to close.
  const dir = realpathSync(path.resolve(dataDir))
  const changes: ModeChange[] = []
  const set = (file: string, target: (mode: number) => number) => {
    const status = lstatSync(file, { throwIfNoEntry: false })
    if (!status || status.isSymbolicLink()) return
    const from = status.mode & 0o7777
    const to = target(from)
    if (to === from) return
    try {
      chmodSync(file, to)
      changes.push({ path: file, from, to })
    } catch (err) {
      changes.push({ path: file, from, to, error: (err as NodeJS.ErrnoException).code ?? String(err) })
    }
  }
  set(dir, (mode) => (mode & 0o7700) | (options.enterableByOthers ? 0o011 : 0))
  for (const name of readdirSync(dir)) set(path.join(dir, name), (mode) => mode & ~0o077)
  return changes
}

/**
 * At start, before anything under DATA_DIR is opened: makes it private (`makeDataDirPrivate`),
 * warns of what an existing DATA_DIR let other users read (fixed, or not fixable: another
 * user's file), then sets the service's umask so that everything created after is private too.
 */
export function keepDataDirPrivate(dataDir: string, options: PrivateDataDirOptions, warn: (msg: string) => void): void {
  // Only what took a permission from group or others is news; letting PostgreSQL's user enter is not.
  const withdrawn = makeDataDirPrivate(dataDir, options).filter((change) => (change.from & ~change.to & 0o077) !== 0)
  const list = (changes: ModeChange[]) => changes.map((c) => `${c.path} ${octal(c.from)} -> ${octal(c.to)}`).join(', ')
  const made = withdrawn.filter((change) => change.error === undefined)
  const failed = withdrawn.filter((change) => change.error !== undefined)
  if (made.length > 0) warn(`DATA_DIR let other users read what it holds; made private: ${list(made)}`)
  if (failed.length > 0)
    warn(`DATA_DIR lets other users read what it holds and could not be made private (${failed[0]!.error}): ${list(failed)}`)
  process.umask(SERVICE_UMASK)
}

const octal = (mode: number) => mode.toString(8).padStart(4, '0')
