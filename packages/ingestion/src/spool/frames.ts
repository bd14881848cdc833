import { crc32 } from 'node:zlib'
import type { PersonIntent } from '../steps/personIntent'

/**
 * A frame is what one request adds to the spool: its rows, the event names they carry and
 * what each row asks of its person (processed per batch when the rows are consumed).
 *
 *   [u32 LE payload length][u32 LE crc32 of payload][payload]
 *   payload = header JSON line + the rows as JSONEachRow lines
 *
 * The checksum finds a frame torn by a crash in the middle of a write: such a frame was never
 * acknowledged, and it and whatever follows it in that segment are ignored. A segment is
 * filled with zeros when created: a zero length is where its frames end.
 */
export const FRAME_HEADER_BYTES = 8

/** (project, event name, latest timestamp in ms) of a frame's rows, for event definitions. */
export type Sighting = [teamId: number, event: string, timestampMs: number]

export interface FrameContent {
  rows: number
  sightings: Sighting[]
  /** The project of the rows, and one person intent per row (absent in frames without persons). */
  teamId: number
  persons: PersonIntent[] | undefined
  /** The rows, each a JSONEachRow line ending in a newline. */
  body: Buffer
}

/** A frame as written to the spool, with what it holds, so that its writer need not read it back. */
export interface Frame {
  bytes: Buffer
  content: FrameContent
}

export function encodeFrame(rowLines: readonly string[], sightings: Sighting[], teamId: number, persons: PersonIntent[]): Frame {
  // One allocation, the text written straight into it: this runs for every capture request.
  const header = JSON.stringify({ n: rowLines.length, s: sightings, t: teamId, p: persons })
  const rows = rowLines.length === 1 ? rowLines[0]! : rowLines.join('')
  const bodyStart = FRAME_HEADER_BYTES + Buffer.byteLength(header) + 1
  const bytes = Buffer.allocUnsafe(bodyStart + Buffer.byteLength(rows))
  bytes.write(header, FRAME_HEADER_BYTES)
  bytes[bodyStart - 1] = 0x0a
  bytes.write(rows, bodyStart)
  bytes.writeUInt32LE(bytes.length - FRAME_HEADER_BYTES, 0)
  bytes.writeUInt32LE(crc32(bytes.subarray(FRAME_HEADER_BYTES)), 4)
  return { bytes, content: { rows: rowLines.length, sightings, teamId, persons, body: bytes.subarray(bodyStart) } }
}

export type FrameRead =
  | { kind: 'frame'; content: FrameContent; bytes: number }
  /** More bytes are needed to read the frame at this position. */
  | { kind: 'incomplete'; needed: number }
  /** No frame was written here: the rest of the segment is the zeros it was created with. */
  | { kind: 'end' }
  | { kind: 'corrupt'; reason: string }

/**
 * The frame at the start of `buffer`. `verify` checks the checksum: needed for what an earlier
 * run wrote (it may have crashed mid-write), not for frames this process wrote and synced.
 */
export function readFrame(buffer: Buffer, verify = true): FrameRead {
  if (buffer.length < FRAME_HEADER_BYTES) return { kind: 'incomplete', needed: FRAME_HEADER_BYTES }
  const length = buffer.readUInt32LE(0)
  if (length === 0) return { kind: 'end' }
  const total = FRAME_HEADER_BYTES + length
  if (buffer.length < total) return { kind: 'incomplete', needed: total }
  const payload = buffer.subarray(FRAME_HEADER_BYTES, total)
  if (verify && crc32(payload) !== buffer.readUInt32LE(4)) return { kind: 'corrupt', reason: 'checksum mismatch' }
  const newline = payload.indexOf(0x0a)
  if (newline < 0) return { kind: 'corrupt', reason: 'no header line' }
  try {
    const header = JSON.parse(payload.subarray(0, newline).toString('utf8')) as { n: number; s: Sighting[]; t?: number; p?: PersonIntent[] }
    const content = { rows: header.n, sightings: header.s, teamId: header.t ?? 0, persons: header.p, body: payload.subarray(newline + 1) }
    return { kind: 'frame', content, bytes: total }
  } catch {
    return { kind: 'corrupt', reason: 'unreadable header' }
  }
}
