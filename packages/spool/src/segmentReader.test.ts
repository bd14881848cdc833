import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { encodeFrame, readFrame, type FrameContent, type Sighting } from './frames'
import { createSpoolMetrics } from './metrics'
import type { PersonIntent } from './personIntent'
import { SegmentReader, SpoolFormatError } from './segmentReader'
import { segmentPath } from './segments'
import { SpoolWriter } from './spoolWriter'

/**
 * test/fixtures/segment-v1.bin is a segment of format 1 (frames from byte 0, no header), as the
 * releases before segment headers wrote it: their SpoolWriter (firstSeq 1, segmentBytes 4096)
 * took three frames that their capture made of requests with a $pageview; an $identify with
 * $set, $set_once and $anon_distinct_id and an event with $unset and $groups; a
 * $merge_dangerously and an event with $process_person_profile false. segment-v1.json holds
 * what those frames held as that release had them in memory, but for the person intents, which
 * are spelled out below.
 */
const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url))
const v1Frames = JSON.parse(readFileSync(fixture('segment-v1.json'), 'utf8')) as Array<{
  rows: number
  sightings: Sighting[]
  teamId: number
  body: string
}>
const v1Persons: PersonIntent[][] = [
  ['user-1'],
  [
    { distinctId: 'user-1', set: { email: 'a@example.com' }, setOnce: { first_seen: '2025-06-01' }, mergeWith: 'anon-1' },
    { distinctId: 'user-1', unset: ['trial'], groupTypes: ['company'] },
  ],
  [
    { distinctId: 'user-2', mergeWith: 'user-3', forceMerge: true },
    { distinctId: 'server-1', noPerson: true },
  ],
]
const expectedFrames = v1Frames.map((frame, i) => ({ ...frame, persons: v1Persons[i] ?? [] }))

const root = mkdtempSync(path.join(tmpdir(), 'burrow-segment-reader-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0
const newDir = () => {
  const dir = path.join(root, `d-${++dirs}`)
  mkdirSync(dir)
  return dir
}

/** The frames of a segment, up to the zeros after them; throws on anything but whole, intact frames. */
async function framesIn(reader: SegmentReader): Promise<FrameContent[]> {
  let buffer = await reader.read(reader.framesStart, 1 << 20)
  const frames: FrameContent[] = []
  for (;;) {
    const read = readFrame(buffer)
    if (read.kind === 'end') return frames
    if (read.kind !== 'frame')
      throw new Error(`segment ${reader.seq} holds ${read.kind === 'corrupt' ? read.reason : 'a torn frame'} after ${frames.length} frames`)
    frames.push(read.content)
    buffer = buffer.subarray(read.bytes)
  }
}

const asText = (frames: FrameContent[]) => frames.map(({ body, ...rest }) => ({ ...rest, body: body.toString('utf8') }))

describe('spool segments', () => {
  it('reads a segment of format 1, without a header, with its frames and rows intact', async () => {
    const dir = newDir()
    copyFileSync(fixture('segment-v1.bin'), segmentPath(dir, 1))
    const reader = await SegmentReader.open(dir, 1)
    try {
      expect(reader.format).toEqual({ version: 1, framesStart: 0 })
      expect(asText(await framesIn(reader))).toEqual(expectedFrames)
    } finally {
      await reader.close()
    }
  })

  it('writes format 2: the magic number and the version, then frames that read back as written', async () => {
    const dir = newDir()
    const writer = new SpoolWriter({
      dir,
      firstSeq: 1,
      segmentBytes: 4096,
      metrics: createSpoolMetrics(new Registry()),
      onCommit: () => {},
      onRotate: () => {},
      log: () => {},
    })
    for (const frame of expectedFrames) {
      await writer.append(encodeFrame(frame.body.split(/(?<=\n)/), frame.sightings, frame.teamId, frame.persons))
    }
    await writer.close()

    const file = readFileSync(segmentPath(dir, 1))
    expect(file.subarray(0, 12)).toEqual(Buffer.from([0x42, 0x52, 0x57, 0x53, 0x50, 0x4f, 0x4f, 0x4c, 2, 0, 0, 0]))
    expect(file.subarray(0, 8).toString('latin1')).toBe('BRWSPOOL')
    const reader = await SegmentReader.open(dir, 1)
    try {
      expect(reader.format).toEqual({ version: 2, framesStart: 12 })
      expect(asText(await framesIn(reader))).toEqual(expectedFrames)
    } finally {
      await reader.close()
    }
  })

  it('reads a segment that holds only the zeros it was created with as one without frames', async () => {
    const dir = newDir()
    writeFileSync(segmentPath(dir, 1), Buffer.alloc(4096))
    const reader = await SegmentReader.open(dir, 1)
    try {
      expect(reader.format).toEqual({ version: undefined, framesStart: 0 })
      expect(await framesIn(reader)).toEqual([])
    } finally {
      await reader.close()
    }
  })

  it('refuses a segment of a newer format, saying so, rather than reading its bytes as frames', async () => {
    const dir = newDir()
    const newer = Buffer.alloc(4096)
    newer.write('BRWSPOOL', 'latin1')
    newer.writeUInt32LE(3, 8)
    encodeFrame(['{}\n'], [], 1, ['d']).bytes.copy(newer, 12)
    writeFileSync(segmentPath(dir, 1), newer)
    const opening = SegmentReader.open(dir, 1)
    await expect(opening).rejects.toThrow(SpoolFormatError)
    await expect(opening).rejects.toThrow(/is in format 3, newer than this release reads \(2\)/)
  })

  it('refuses a file that starts with neither the magic number nor an intact frame', async () => {
    const dir = newDir()
    writeFileSync(segmentPath(dir, 1), Buffer.concat([Buffer.from('PK\x03\x04 not a spool segment', 'latin1'), Buffer.alloc(4000)]))
    await expect(SegmentReader.open(dir, 1)).rejects.toThrow(/starts with neither the spool's magic number nor an intact frame/)

    // A frame whose checksum does not match is not taken for the start of a segment of format 1.
    const torn = encodeFrame(['{}\n'], [], 1, ['d']).bytes
    torn.writeUInt8(torn.readUInt8(torn.length - 2) ^ 0xff, torn.length - 2)
    writeFileSync(segmentPath(dir, 2), Buffer.concat([torn, Buffer.alloc(4000)]))
    await expect(SegmentReader.open(dir, 2)).rejects.toThrow(SpoolFormatError)
  })
})
