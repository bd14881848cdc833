import { open, type FileHandle } from 'node:fs/promises'
import { FRAME_HEADER_BYTES, readFrame } from './frames'
import { SEGMENT_FORMAT_VERSION, SEGMENT_HEADER_BYTES, SEGMENT_MAGIC, segmentPath } from './segments'

/** A segment this release cannot read: it must be left alone, not taken for a torn one and removed. */
export class SpoolFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SpoolFormatError'
  }
}

export interface SegmentFormat {
  /** Undefined for a segment that holds only the zeros it was created with (no header, no frame). */
  version: 1 | 2 | undefined
  /** Where its first frame starts. */
  framesStart: number
}

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, offset + read)
    if (bytesRead === 0) break
    read += bytesRead
  }
  return buffer.subarray(0, read)
}

/**
 * The format of a segment, from its first bytes. A segment without the magic number is one of
 * format 1 only if it starts with an intact frame (its checksum verified), or with zeros.
 */
async function formatOf(file: string, handle: FileHandle): Promise<SegmentFormat> {
  const start = await readAt(handle, 0, SEGMENT_HEADER_BYTES)
  if (start.every((byte) => byte === 0)) return { version: undefined, framesStart: 0 }
  if (start.length === SEGMENT_HEADER_BYTES && start.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) {
    const version = start.readUInt32LE(SEGMENT_MAGIC.length)
    if (version === SEGMENT_FORMAT_VERSION) return { version, framesStart: SEGMENT_HEADER_BYTES }
    throw new SpoolFormatError(
      version > SEGMENT_FORMAT_VERSION
        ? `spool segment ${file} is in format ${version}, newer than this release reads (${SEGMENT_FORMAT_VERSION}): ` +
            'start the release that wrote it until its spool is empty, or move the file away'
        : `spool segment ${file} has the spool's magic number with format ${version}, which no release writes; move the file away`,
    )
  }
  const firstFrameBytes = start.length >= FRAME_HEADER_BYTES ? FRAME_HEADER_BYTES + start.readUInt32LE(0) : Infinity
  if (firstFrameBytes <= (await handle.stat()).size && readFrame(await readAt(handle, 0, firstFrameBytes)).kind === 'frame') {
    return { version: 1, framesStart: 0 }
  }
  throw new SpoolFormatError(
    `spool segment ${file} starts with neither the spool's magic number nor an intact frame ` +
      `(its first bytes: ${start.toString('hex')}): it is not a segment this release can read; move the file away`,
  )
}

/**
 * Reads a segment file, of any format this release knows: where its frames start, and its bytes
 * from there. Frames are read with readFrame. Opening one of an unknown format, or of a format
 * newer than this release's, fails with a SpoolFormatError.
 */
export class SegmentReader {
  private constructor(
    readonly seq: number,
    readonly format: SegmentFormat,
    private readonly handle: FileHandle,
  ) {}

  static async open(dir: string, seq: number): Promise<SegmentReader> {
    const file = segmentPath(dir, seq)
    const handle = await open(file, 'r')
    try {
      return new SegmentReader(seq, await formatOf(file, handle), handle)
    } catch (err) {
      await handle.close()
      throw err
    }
  }

  get framesStart(): number {
    return this.format.framesStart
  }

  /** `length` bytes from `offset`, or fewer where the file ends. */
  read(offset: number, length: number): Promise<Buffer> {
    return readAt(this.handle, offset, length)
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}
