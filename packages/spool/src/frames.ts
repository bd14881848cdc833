import { crc32 } from 'node:zlib'
import type { PersonChanges, PersonIntent } from './personIntent'

/**
 * A frame is what one request adds to the spool: its rows, the event names they carry and
 * what each row asks of its person (processed per batch when the rows are consumed).
 *
 *   [u32 LE payload length][u32 LE crc32 of payload][payload]
 *   payload = header JSON line + the rows as JSONEachRow lines
 *   header  = {"n": rows, "s": sightings, "t": project, "p": person intents}
 *
 * The header's keys, and those of the person intents in it, are one letter long: they are
 * written for every request. Only this module knows them; everything else sees FrameContent.
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

/** A person intent as a frame holds it. */
type WireIntent =
  | string
  | {
      d: string
      s?: Record<string, unknown>
      o?: Record<string, unknown>
      u?: string[]
      w?: Record<string, unknown>
      e?: 1
      m?: string
      f?: 1
      x?: 1
      g?: string[]
      k?: Record<string, string>
      i?: [string, string, Record<string, unknown>]
    }

interface WireHeader {
  n: number
  s: Sighting[]
  /** Absent in frames of the format before projects were named: project 0. */
  t?: number
  p?: WireIntent[]
}

function toWire(intent: PersonIntent): WireIntent {
  if (typeof intent === 'string') return intent
  // Field by field, so that absent fields are not written.
  const wire: Exclude<WireIntent, string> = { d: intent.distinctId }
  if (intent.set) wire.s = intent.set
  if (intent.setOnce) wire.o = intent.setOnce
  if (intent.unset) wire.u = intent.unset
  if (intent.softSet) wire.w = intent.softSet
  if (intent.personEvent) wire.e = 1
  if (intent.mergeWith !== undefined) wire.m = intent.mergeWith
  if (intent.forceMerge) wire.f = 1
  if (intent.noPerson) wire.x = 1
  if (intent.groupTypes) wire.g = intent.groupTypes
  if (intent.groups) wire.k = intent.groups
  if (intent.groupSet) wire.i = [intent.groupSet.type, intent.groupSet.key, intent.groupSet.set]
  return wire
}

function fromWire(wire: WireIntent): PersonIntent {
  if (typeof wire === 'string') return wire
  const intent: PersonChanges = { distinctId: wire.d }
  if (wire.s) intent.set = wire.s
  if (wire.o) intent.setOnce = wire.o
  if (wire.u) intent.unset = wire.u
  if (wire.w) intent.softSet = wire.w
  if (wire.e === 1) intent.personEvent = true
  if (wire.m !== undefined) intent.mergeWith = wire.m
  if (wire.f === 1) intent.forceMerge = true
  if (wire.x === 1) intent.noPerson = true
  if (wire.g) intent.groupTypes = wire.g
  if (wire.k) intent.groups = wire.k
  if (wire.i) intent.groupSet = { type: wire.i[0], key: wire.i[1], set: wire.i[2] }
  return intent
}

/** Whether the intents are all plain distinct ids, the same in both forms: most frames, which are then not copied. */
const onlyDistinctIds = (intents: readonly unknown[]): intents is string[] => intents.every((intent) => typeof intent === 'string')

export function encodeFrame(rowLines: readonly string[], sightings: Sighting[], teamId: number, persons: PersonIntent[]): Frame {
  // One allocation, the text written straight into it: this runs for every capture request.
  const wire: WireHeader = { n: rowLines.length, s: sightings, t: teamId, p: onlyDistinctIds(persons) ? persons : persons.map(toWire) }
  const header = JSON.stringify(wire)
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

/** What a frame this process wrote holds (its checksum is not checked: it was never on a disk that could tear it). */
export function writtenFrameContent(bytes: Buffer): FrameContent {
  const read = readFrame(bytes, false)
  if (read.kind !== 'frame' || read.bytes !== bytes.length) throw new Error(`not one whole frame (${read.kind})`)
  return read.content
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
    const header = JSON.parse(payload.subarray(0, newline).toString('utf8')) as WireHeader
    const persons = header.p && (onlyDistinctIds(header.p) ? header.p : header.p.map(fromWire))
    const content = { rows: header.n, sightings: header.s, teamId: header.t ?? 0, persons, body: payload.subarray(newline + 1) }
    return { kind: 'frame', content, bytes: total }
  } catch {
    return { kind: 'corrupt', reason: 'unreadable header' }
  }
}
