import { mkdir, open, readdir, rename, rm, stat, writeFile, readFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * A segment file starts with a header naming its format, since a spool outlives the release
 * that wrote it: [8 bytes: the ASCII text BRWSPOOL][u32 LE format version], then frames.
 * Format 1, written before segments had a header, is frames from byte 0; format 2 is the same
 * frames after the header. The header is written with the zeros a segment is created with.
 */
export const SEGMENT_MAGIC = Buffer.from('BRWSPOOL', 'latin1')
export const SEGMENT_FORMAT_VERSION = 2
export const SEGMENT_HEADER_BYTES = SEGMENT_MAGIC.length + 4

export function segmentHeader(): Buffer {
  const header = Buffer.alloc(SEGMENT_HEADER_BYTES)
  SEGMENT_MAGIC.copy(header)
  header.writeUInt32LE(SEGMENT_FORMAT_VERSION, SEGMENT_MAGIC.length)
  return header
}

/**
 * The spool holds every tenant's acknowledged events: its files and directories are the
 * service's user's alone, whatever the umask of the process that writes them.
 */
export const FILE_MODE = 0o600
const DIRECTORY_MODE = 0o700

/** Segment files are named by sequence number, so their order is their name's order. */
export const segmentPath = (dir: string, seq: number) => path.join(dir, `${String(seq).padStart(12, '0')}.seg`)

/** The existing segments, oldest first, with their sizes. */
export async function listSegments(dir: string): Promise<Array<{ seq: number; size: number }>> {
  await mkdir(dir, { recursive: true, mode: DIRECTORY_MODE })
  const names = (await readdir(dir)).filter((name) => /^\d{12}\.seg$/.test(name)).sort()
  return Promise.all(names.map(async (name) => ({ seq: Number(name.slice(0, 12)), size: (await stat(path.join(dir, name))).size })))
}

export async function removeSegment(dir: string, seq: number): Promise<void> {
  await rm(segmentPath(dir, seq), { force: true })
}

/** Makes a new directory entry durable: without it a crash may forget a fully synced file. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** How far the rows of the spool are in ClickHouse: everything before this point is stored. */
export interface SpoolPosition {
  seq: number
  offset: number
}

/**
 * The batch being inserted: the rows from the position up to `end`, under `token`, ClickHouse's
 * `insert_deduplication_token`. It is recorded before the insert, so that after a crash the same
 * rows go in again under the same token, and ClickHouse drops them if they were already stored.
 */
export interface InsertIntent {
  end: SpoolPosition
  token: string
}

/** The position file: the position, and the insert under way from it, if any. */
export interface SpoolProgress extends SpoolPosition {
  inserting?: InsertIntent
}

const positionPath = (dir: string) => path.join(dir, 'position.json')

const isPosition = (value: unknown): value is SpoolPosition =>
  typeof value === 'object' &&
  value !== null &&
  Number.isInteger((value as SpoolPosition).seq) &&
  Number.isInteger((value as SpoolPosition).offset)

export async function readPosition(dir: string): Promise<SpoolProgress | undefined> {
  try {
    const value = JSON.parse(await readFile(positionPath(dir), 'utf8')) as SpoolProgress
    if (!isPosition(value)) return undefined
    const intent = value.inserting
    const inserting = intent && isPosition(intent.end) && typeof intent.token === 'string' ? intent : undefined
    return { seq: value.seq, offset: value.offset, ...(inserting ? { inserting } : {}) }
  } catch {
    return undefined
  }
}

/**
 * Records the position atomically (write then rename). With `sync` the file and its directory
 * entry reach the disk before this resolves: an insert intent must survive a host crash, or the
 * rows would go in again under a new token. A position alone need not: an older one only means
 * the last batch is inserted again under its recorded token, which ClickHouse drops.
 */
export async function writePosition(dir: string, progress: SpoolProgress, options: { sync?: boolean } = {}): Promise<void> {
  const tmp = `${positionPath(dir)}.tmp`
  if (!options.sync) {
    await writeFile(tmp, JSON.stringify(progress), { mode: FILE_MODE })
    await rename(tmp, positionPath(dir))
    return
  }
  const handle = await open(tmp, 'w', FILE_MODE)
  try {
    await handle.writeFile(JSON.stringify(progress))
    await handle.datasync()
  } finally {
    await handle.close()
  }
  await rename(tmp, positionPath(dir))
  await syncDirectory(dir)
}
