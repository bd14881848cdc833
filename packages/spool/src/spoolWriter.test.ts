import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, write } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Registry } from 'prom-client'
import { waitFor } from '@burrow/testing/waitFor'
import { afterAll, expect, it } from 'vitest'
import { encodeFrame, readFrame } from './frames'
import { createSpoolMetrics } from './metrics'
import { listSegments, SEGMENT_HEADER_BYTES, segmentHeader, segmentPath, writePosition } from './segments'
import { SpoolWriter, type SpoolWriterOptions, type WriteAt } from './spoolWriter'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-spool-writer-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0

const realWrite: WriteAt = (fd, data, offset, length, position) =>
  new Promise((resolve, reject) => write(fd, data, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))))

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** A frame whose single row names `id`, so that what a segment holds can be read back. */
const frameOf = (id: string) => encodeFrame([`{"id":"${id}"}\n`], [], 1, [''])

/**
 * The row ids of the frames in a segment file, in order, up to the zeros it was created with;
 * throws on anything but a header and whole frames.
 */
function idsIn(file: string): string[] {
  const content = readFileSync(file)
  if (!content.subarray(0, SEGMENT_HEADER_BYTES).equals(segmentHeader())) throw new Error(`segment ${file} does not start with the header`)
  let buffer = content.subarray(SEGMENT_HEADER_BYTES)
  const ids: string[] = []
  while (buffer.length > 0) {
    const read = readFrame(buffer)
    if (read.kind === 'end') break
    if (read.kind !== 'frame')
      throw new Error(`segment ${file} holds ${read.kind === 'corrupt' ? read.reason : 'a torn frame'} after ${ids.join(',')}`)
    ids.push((JSON.parse(read.content.body.toString()) as { id: string }).id)
    buffer = buffer.subarray(read.bytes)
  }
  return ids
}

function newWriter(over: Partial<SpoolWriterOptions> = {}) {
  const dir = path.join(root, `w-${++dirs}`)
  mkdirSync(dir)
  const commits: Array<[seq: number, bytes: number, rows: number]> = []
  /** The row ids of each commit's frames, as the writer reports them. */
  const committedIds: string[][] = []
  const rotations: number[] = []
  const writer = new SpoolWriter({
    dir,
    firstSeq: 1,
    segmentBytes: 1 << 20,
    metrics: createSpoolMetrics(new Registry()),
    onCommit: (seq, bytes, frames) => {
      commits.push([seq, bytes, frames.reduce((rows, f) => rows + f.rows, 0)])
      committedIds.push(frames.map((f) => (JSON.parse(f.content().body.toString()) as { id: string }).id))
    },
    onRotate: (seq) => rotations.push(seq),
    log: () => {},
    ...over,
  })
  return { dir, writer, commits, committedIds, rotations }
}

/** Appends `id`, recording in `settled` when (and how) the append settled. */
function track(writer: SpoolWriter, id: string, settled: string[]): Promise<void> {
  return writer.append(frameOf(id)).then(
    () => void settled.push(`${id} ok`),
    () => void settled.push(`${id} refused`),
  )
}

it('acknowledges writes in order even when a later one reaches the disk first', async () => {
  let calls = 0
  let releaseFirst = () => {}
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve))
  let secondOnDisk = false
  // The first write is held until the test lets it go; the second, started meanwhile, finishes at once.
  const slowFirst: WriteAt = async (...args) => {
    const call = ++calls
    if (call === 1) await firstHeld
    const written = await realWrite(...args)
    if (call === 2) secondOnDisk = true
    return written
  }
  const { dir, writer, commits, committedIds } = newWriter({ writeAt: slowFirst, writesInFlight: 2 })
  const settled: string[] = []
  const first = track(writer, 'a', settled)
  await nextTurn()
  await nextTurn()
  const second = track(writer, 'b', settled)
  await waitFor(() => secondOnDisk, { what: "b's write on disk", intervalMs: 1 })
  // b is on disk, but a is not: b must wait.
  await nextTurn()
  expect(settled).toEqual([])
  releaseFirst()
  await Promise.all([first, second])
  expect(settled).toEqual(['a ok', 'b ok'])
  expect(commits.map(([, bytes]) => bytes)).toEqual([
    SEGMENT_HEADER_BYTES + frameOf('a').bytes.length,
    SEGMENT_HEADER_BYTES + frameOf('a').bytes.length + frameOf('b').bytes.length,
  ])
  // Each commit reports its own frames, which end where it says.
  expect(committedIds).toEqual([['a'], ['b']])
  await writer.close()
  expect(idsIn(segmentPath(dir, 1))).toEqual(['a', 'b'])
})

it("writes segments and the position that only the service's user can read, whatever the process's umask", async () => {
  const { dir, writer } = newWriter()
  await writer.append(frameOf('a'))
  await writer.close()
  await writePosition(dir, { seq: 1, offset: 0 })
  await writePosition(dir, { seq: 1, offset: 0 }, { sync: true })
  const created = path.join(root, `listed-${++dirs}`, 'lane')
  await listSegments(created)
  expect(process.umask() & 0o077).toBe(0o022) // the test runner's, which would leave them 0644 and 0755
  expect(statSync(segmentPath(dir, 1)).mode & 0o777).toBe(0o600)
  expect(statSync(path.join(dir, 'position.json')).mode & 0o777).toBe(0o600)
  expect(statSync(created).mode & 0o777).toBe(0o700)
})

it('groups the appends of one turn of the event loop into one write', async () => {
  const { dir, writer, commits } = newWriter()
  await Promise.all(['a', 'b', 'c'].map((id) => writer.append(frameOf(id))))
  expect(commits).toHaveLength(1)
  expect(commits[0]![2]).toBe(3)
  await writer.close()
  expect(idsIn(segmentPath(dir, 1))).toEqual(['a', 'b', 'c'])
})

it('refuses a failed write and every write after it, then cuts the segment back and goes on', async () => {
  let calls = 0
  let thirdOnDisk = () => {}
  const thirdWritten = new Promise<void>((resolve) => (thirdOnDisk = resolve))
  const failSecond: WriteAt = async (fd, data, offset, length, position) => {
    const call = ++calls
    if (call === 2) {
      // Half the data reaches the file before the disk fails, as a torn write would leave it,
      // and the failure comes only once the next write is on disk.
      await realWrite(fd, data, offset, Math.floor(length / 2), position)
      await thirdWritten
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' })
    }
    const written = await realWrite(fd, data, offset, length, position)
    if (call === 3) thirdOnDisk()
    return written
  }
  const { dir, writer, commits } = newWriter({ writeAt: failSecond, writesInFlight: 2 })
  const settled: string[] = []
  await track(writer, 'a', settled)
  const failing = track(writer, 'b', settled)
  await nextTurn()
  await nextTurn()
  // Started while b's write is on its way, and on disk before b fails: refused all the same,
  // since it lies after the gap b leaves.
  const after = track(writer, 'c', settled)
  await Promise.all([failing, after])
  expect(settled).toEqual(['a ok', 'b refused', 'c refused'])

  await track(writer, 'd', settled)
  expect(settled.at(-1)).toBe('d ok')
  await writer.close()
  // Only what was acknowledged is in the file: b's torn half and c are gone.
  expect(idsIn(segmentPath(dir, 1))).toEqual(['a', 'd'])
  expect(commits.map(([, , rows]) => rows)).toEqual([1, 1])
})

it('refuses what waits while the disk cannot be repaired, and recovers once it can', async () => {
  let failing = true
  const broken: WriteAt = async (...args) => {
    if (failing) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    return realWrite(...args)
  }
  const { dir, writer } = newWriter({ writeAt: broken })
  await expect(writer.append(frameOf('a'))).rejects.toThrow(/ENOSPC/)
  await expect(writer.append(frameOf('b'))).rejects.toThrow(/ENOSPC/)
  failing = false
  await writer.append(frameOf('c'))
  await writer.close()
  expect(idsIn(segmentPath(dir, 1))).toEqual(['c'])
})

it('moves to a new segment once one is full, with every frame in exactly one segment', async () => {
  const frame = frameOf('x').bytes.length
  const { dir, writer, rotations } = newWriter({ segmentBytes: frame * 3, writesInFlight: 2 })
  const ids = Array.from({ length: 20 }, (_, i) => `f${i}`)
  const appends: Promise<void>[] = []
  for (const id of ids) {
    appends.push(writer.append(frameOf(id)))
    if (ids.indexOf(id) % 2 === 1) await nextTurn()
  }
  await Promise.all(appends)
  await writer.close()
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.seg'))
    .sort()
  expect(files.length).toBeGreaterThan(1)
  // Every segment but the last was full when the writer moved on (the last one may be full too).
  const seqs = files.map((name) => Number(name.slice(0, 12)))
  expect(rotations.length).toBeGreaterThanOrEqual(seqs.length - 1)
  expect(rotations).toEqual(seqs.slice(0, rotations.length))
  for (const seq of rotations) expect(statSync(segmentPath(dir, seq)).size).toBeGreaterThanOrEqual(frame * 3)
  expect(files.flatMap((name) => idsIn(path.join(dir, name)))).toEqual(ids)
})

it('creates each segment at its full size and the next one ahead, and removes that one unused at close', async () => {
  const { dir, writer } = newWriter({ segmentBytes: 64 << 10 })
  await writer.append(frameOf('a'))
  expect(statSync(segmentPath(dir, 1)).size).toBe(64 << 10)
  await waitFor(() => statSync(segmentPath(dir, 2), { throwIfNoEntry: false })?.size === 64 << 10, {
    what: 'segment 2 created at full size',
    intervalMs: 10,
  })
  const ahead = readFileSync(segmentPath(dir, 2))
  expect(ahead.subarray(0, SEGMENT_HEADER_BYTES).equals(segmentHeader())).toBe(true)
  expect(ahead.subarray(SEGMENT_HEADER_BYTES).every((byte) => byte === 0)).toBe(true)
  await writer.close()
  expect(readdirSync(dir)).toEqual(['000000000001.seg'])
  expect(idsIn(segmentPath(dir, 1))).toEqual(['a'])
})

it('creates the first segment when prepared, before any append, and leaves no file when nothing was written', async () => {
  const { dir, writer } = newWriter({ segmentBytes: 64 << 10 })
  writer.prepare()
  await waitFor(() => statSync(segmentPath(dir, 1), { throwIfNoEntry: false })?.size === 64 << 10, {
    what: 'segment 1 created at full size',
    intervalMs: 10,
  })
  await writer.close()
  expect(readdirSync(dir)).toEqual([])
})

it('finishes the writes on their way before it closes, and refuses appends after', async () => {
  const { dir, writer } = newWriter()
  const pending = writer.append(frameOf('a'))
  await writer.close()
  await pending
  await expect(writer.append(frameOf('b'))).rejects.toThrow(/closed/)
  expect(idsIn(segmentPath(dir, 1))).toEqual(['a'])
})
