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

/** Segment files are named by sequence number, so their order is their name's order. */
export const segmentPath = (dir: string, seq: number) => path.join(dir, `${String(seq).padStart(12, '0')}.seg`)

/** The existing segments, oldest first, with their sizes. */
export async function listSegments(dir: string): Promise<Array<{ seq: number; size: number }>> {
  await mkdir(dir, { recursive: true })
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

const positionPath = (dir: string) => path.join(dir, 'position.json')

export async function readPosition(dir: string): Promise<SpoolPosition | undefined> {
  try {
    const value = JSON.parse(await readFile(positionPath(dir), 'utf8')) as SpoolPosition
    return Number.isInteger(value.seq) && Number.isInteger(value.offset) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Records the position atomically (write then rename). It is not synced: after a crash an
 * older position only means some stored rows are inserted again, and reads collapse those.
 */
export async function writePosition(dir: string, position: SpoolPosition): Promise<void> {
  const tmp = `${positionPath(dir)}.tmp`
  await writeFile(tmp, JSON.stringify(position))
  await rename(tmp, positionPath(dir))
}
