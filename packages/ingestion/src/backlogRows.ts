import { SegmentReader } from '@burrow/spool'

const CHUNK = 1 << 20
/** A frame's length and checksum, then its header line, which starts with the row count. */
const FRAME_PREFIX = 8
const ROWS = /^\{"n":(\d+)/

/**
 * The rows in a segment's frames from `offset` on, read from each frame's header without
 * parsing or checking the rest (an earlier run's backlog, for the depth metrics: a frame torn by
 * a crash may be counted). Reads the file once, a chunk at a time.
 */
export async function countSegmentRows(dir: string, seq: number, offset: number, end: number): Promise<number> {
  const reader = await SegmentReader.open(dir, seq)
  try {
    let rows = 0
    let at = Math.max(offset, reader.framesStart)
    while (at + FRAME_PREFIX <= end) {
      const chunk = await reader.read(at, Math.min(CHUNK, end - at))
      let i = 0
      while (i + FRAME_PREFIX <= chunk.length) {
        const length = chunk.readUInt32LE(i)
        if (length === 0) return rows
        const head = chunk.subarray(i + FRAME_PREFIX, Math.min(chunk.length, i + FRAME_PREFIX + 24))
        // The header is cut by the chunk's end: read again from this frame.
        if (head.length < Math.min(24, length)) break
        const match = ROWS.exec(head.toString('latin1'))
        if (!match) return rows
        rows += Number(match[1])
        i += FRAME_PREFIX + length
      }
      if (i === 0 && chunk.length < CHUNK) return rows
      at += i
    }
    return rows
  } finally {
    await reader.close()
  }
}
