import { close, constants, fdatasync, ftruncate, open, write } from 'node:fs'
import { rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import type { Frame, FrameContent } from './frames'
import type { SpoolMetrics } from './metrics'
import { FILE_MODE, SEGMENT_HEADER_BYTES, segmentHeader, segmentPath, syncDirectory } from './segments'

const openFile = promisify(open)
const closeFile = promisify(close)
const truncateFile = promisify(ftruncate)
const syncFileData = promisify(fdatasync)

/** A segment is created (never reused) and every write returns only once its data is on disk. */
const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC

/** Writes `length` bytes of `data` from `offset` at `position`; resolves with the bytes written. */
export type WriteAt = (fd: number, data: Buffer, offset: number, length: number, position: number) => Promise<number>

const writeAt: WriteAt = (fd, data, offset, length, position) =>
  new Promise((resolve, reject) => {
    write(fd, data, offset, length, position, (err, written) => (err ? reject(err) : resolve(written)))
  })

/** What a new segment is filled with, a chunk at a time: the first chunk starts with the header, the others are zeros. */
let firstChunk: Buffer | undefined
let zeros: Buffer | undefined
const ZERO_CHUNK_BYTES = 1 << 20

/**
 * Writes the header and zeros over the first `bytes` of a new segment, durably. Frames then
 * overwrite blocks the file already has, so that a synchronous write needs no journal commit of
 * the file's size and block map: it costs the disk and the thread pool about a third less than
 * an append. A zero length marks where the frames end (see readFrame).
 */
async function fillSegment(fd: number, bytes: number): Promise<void> {
  firstChunk ??= Buffer.concat([segmentHeader(), Buffer.alloc(ZERO_CHUNK_BYTES - SEGMENT_HEADER_BYTES)])
  zeros ??= Buffer.alloc(ZERO_CHUNK_BYTES)
  const total = Math.max(bytes, SEGMENT_HEADER_BYTES)
  for (let position = 0; position < total;) {
    const chunk = position < firstChunk.length ? firstChunk : zeros
    const offset = chunk === firstChunk ? position : 0
    position += await writeAt(fd, chunk, offset, Math.min(chunk.length - offset, total - position), position)
  }
}

/** A frame now durable. */
export interface CommittedFrame {
  /** The frame as written to the segment. */
  bytes: Buffer
  rows: number
  /**
   * What it holds. Where the frame was written in another thread, it is decoded from `bytes`
   * when asked, so that a consumer that reads it back from disk later does not decode it twice.
   */
  content(): FrameContent
}

interface PendingAppend {
  frame: Frame
  resolve: () => void
  reject: (err: unknown) => void
}

/** One write of a group of appends, from when it starts until it is acknowledged or refused. */
interface Commit {
  appends: PendingAppend[]
  /** The segment's length once this write and every one before it are durable. */
  end: number
  /** This write fills the segment: the next one goes to a new segment. */
  rotates: boolean
  state: 'writing' | 'written' | 'failed'
  error?: unknown
  started: number
}

export interface SpoolWriterOptions {
  dir: string
  /** The first segment this writer creates; older ones belong to earlier runs. */
  firstSeq: number
  segmentBytes: number
  /** How many writes may be on their way to disk at once (default 2). */
  writesInFlight?: number
  metrics: SpoolMetrics
  /**
   * Told after each commit, in order: the segment, how far it is now durable (a byte offset in
   * its file), and the commit's frames, which end there.
   */
  onCommit: (seq: number, committedBytes: number, frames: readonly CommittedFrame[]) => void
  /** Told when a segment is complete and the writer moved to the next. */
  onRotate: (closedSeq: number, size: number) => void
  log: (msg: string) => void
  /** The write itself; replaced only by tests that make the disk fail. */
  writeAt?: WriteAt
}

/** What a spool needs of the writer of its segments (which may run in another thread). */
export interface SegmentWriter {
  readonly activeSeq: number
  prepare(): void
  append(frame: Frame): Promise<void>
  close(): Promise<void>
}

/**
 * Appends frames to the active segment with group commit: the appends of one turn of the
 * event loop form one write, and a single synchronous write covers every request of those
 * few milliseconds. An append resolves only once its frame is on disk.
 *
 * The segment is opened with O_DSYNC, so each write returns once its data is durable, as a
 * write followed by fdatasync would, in one trip to the thread pool instead of two. Segments
 * are filled with zeros when created, and the next one is created while the active one
 * fills, so that a rotation does not wait for it.
 *
 * Several writes may be on their way at once, each at its own reserved offset, so that the
 * requests arriving during one write need not wait for it before theirs starts. They are
 * acknowledged in offset order: a frame is acknowledged only when every byte before it is
 * durable too, since a reader stops at the first gap. When a write fails, it and every write
 * after it are refused (their clients retry), and once none is left on its way the segment is
 * cut back to what was acknowledged, so that nothing refused is ever read back.
 */
export class SpoolWriter implements SegmentWriter {
  private pending: PendingAppend[] = []
  private readonly inFlight: Commit[] = []
  private scheduled = false
  private fd: Promise<number> | undefined
  /** The segment after the active one, created ahead of use. */
  private next: { seq: number; fd: Promise<number> } | undefined
  private readonly closing = new Set<Promise<void>>()
  private seq: number
  /** Bytes of the active segment written or being written, its header included. */
  private reserved = SEGMENT_HEADER_BYTES
  /** Bytes of the active segment that are durable and acknowledged. */
  private acked = SEGMENT_HEADER_BYTES
  /** A write failed: nothing is acknowledged until the segment is cut back to `acked`. */
  private failure: { error: unknown } | undefined
  private recovering = false
  private closed = false
  private idleWaiters: Array<() => void> = []
  private readonly maxInFlight: number
  private readonly writeAt: WriteAt

  constructor(private readonly options: SpoolWriterOptions) {
    this.seq = options.firstSeq
    this.maxInFlight = Math.max(1, options.writesInFlight ?? 2)
    this.writeAt = options.writeAt ?? writeAt
  }

  get activeSeq(): number {
    return this.seq
  }

  /**
   * Starts creating the active segment now rather than at the first append, which would wait
   * for its zeros. A failure is left to the first append, which tries again.
   */
  prepare(): void {
    if (!this.closed) void this.segmentFd().catch(() => undefined)
  }

  append(frame: Frame): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the spool is closed'))
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ frame, resolve, reject })
      this.schedule()
    })
  }

  /**
   * Waits for every append so far to be durable (or refused), then closes the active segment
   * and removes the segments that hold no frame: the one created ahead, and the active one if
   * nothing was written to it.
   */
  async close(): Promise<void> {
    this.closed = true
    while (!this.isIdle()) await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    await Promise.all(this.closing)
    await this.closeSegment()
    if (this.reserved === SEGMENT_HEADER_BYTES) await rm(segmentPath(this.options.dir, this.seq), { force: true })
    const unused = this.next
    this.next = undefined
    const fd = await unused?.fd.catch(() => undefined)
    if (unused && fd !== undefined) {
      await closeFile(fd)
      await rm(segmentPath(this.options.dir, unused.seq), { force: true })
    }
  }

  private isIdle(): boolean {
    return this.pending.length === 0 && this.inFlight.length === 0 && !this.recovering
  }

  /** Starts writing after the current turn of the event loop, so that its appends share one write. */
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.startWrites()
    })
  }

  private startWrites(): void {
    if (this.failure) {
      if (this.inFlight.length === 0 && !this.recovering) void this.recover()
      return
    }
    // A write that fills the segment is the last one on its way: the next goes to a new file.
    while (this.pending.length > 0 && this.inFlight.length < this.maxInFlight && !this.inFlight.at(-1)?.rotates) this.startWrite()
  }

  private startWrite(): void {
    const appends = this.pending
    this.pending = []
    const data = appends.length === 1 ? appends[0]!.frame.bytes : Buffer.concat(appends.map((a) => a.frame.bytes))
    const position = this.reserved
    this.reserved += data.length
    const commit: Commit = {
      appends,
      end: this.reserved,
      rotates: this.reserved >= this.options.segmentBytes,
      state: 'writing',
      started: performance.now(),
    }
    this.inFlight.push(commit)
    this.writeFully(data, position).then(
      () => {
        commit.state = 'written'
        this.settle()
      },
      (err: unknown) => {
        commit.state = 'failed'
        commit.error = err
        this.failure ??= { error: err }
        this.settle()
      },
    )
  }

  private async writeFully(data: Buffer, position: number): Promise<void> {
    const fd = await this.segmentFd()
    let written = 0
    while (written < data.length) written += await this.writeAt(fd, data, written, data.length - written, position + written)
  }

  /** Acknowledges or refuses the finished writes at the head of the queue, in order. */
  private settle(): void {
    while (this.inFlight.length > 0 && this.inFlight[0]!.state !== 'writing') {
      const commit = this.inFlight.shift()!
      if (commit.state === 'written' && !this.failure) this.acknowledge(commit)
      else for (const append of commit.appends) append.reject(commit.error ?? this.failure?.error)
    }
    this.startWrites()
    this.notifyIfIdle()
  }

  private acknowledge(commit: Commit): void {
    this.options.metrics.spoolCommitDuration.observe((performance.now() - commit.started) / 1000)
    this.options.metrics.spoolCommitAppends.observe(commit.appends.length)
    this.acked = commit.end
    this.options.onCommit(
      this.seq,
      commit.end,
      commit.appends.map(({ frame }) => ({ bytes: frame.bytes, rows: frame.content.rows, content: () => frame.content })),
    )
    for (const append of commit.appends) append.resolve()
    if (commit.rotates) this.rotate()
  }

  private rotate(): void {
    const done = this.closeSegment().catch((err: unknown) => this.options.log(`spool: closing segment failed: ${String(err)}`))
    this.closing.add(done)
    void done.finally(() => this.closing.delete(done))
    this.options.onRotate(this.seq, this.acked)
    this.seq += 1
    this.reserved = this.acked = SEGMENT_HEADER_BYTES
  }

  /**
   * After a failed write, once no write is on its way: cuts the segment back to what was
   * acknowledged, and writing resumes from there. If that fails too, the disk is unusable for
   * now: the appends waiting are refused and the next append tries again.
   */
  private async recover(): Promise<void> {
    this.recovering = true
    try {
      const fd = await this.segmentFd()
      await truncateFile(fd, this.acked)
      await syncFileData(fd)
      this.reserved = this.acked
      this.options.log(`spool: a write failed (${String(this.failure?.error)}); segment ${this.seq} cut back to ${this.acked} bytes`)
      this.failure = undefined
    } catch (err) {
      this.options.log(`spool: recovering from a failed write failed: ${String(err)}`)
      const refused = this.pending
      this.pending = []
      for (const append of refused) append.reject(err)
    } finally {
      this.recovering = false
    }
    this.startWrites()
    this.notifyIfIdle()
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }

  /**
   * The active segment's descriptor: the one created ahead if there is one, else the file is
   * created on first use. Either way the segment after it starts being created.
   */
  private segmentFd(): Promise<number> {
    if (!this.fd) {
      const ahead = this.next?.seq === this.seq ? this.next.fd : undefined
      if (ahead) this.next = undefined
      const opening = ahead ?? this.openSegment(this.seq)
      this.fd = opening
      // A failed open is tried again by the next write.
      opening.catch(() => {
        if (this.fd === opening) this.fd = undefined
      })
    }
    if (!this.next && !this.closed) {
      const next = { seq: this.seq + 1, fd: this.openSegment(this.seq + 1) }
      this.next = next
      // Created again when it is needed.
      next.fd.catch(() => {
        if (this.next === next) this.next = undefined
      })
    }
    return this.fd
  }

  private async openSegment(seq: number): Promise<number> {
    const file = segmentPath(this.options.dir, seq)
    const fd = await openFile(file, SEGMENT_FLAGS, FILE_MODE)
    try {
      await fillSegment(fd, this.options.segmentBytes)
      await syncDirectory(this.options.dir)
    } catch (err) {
      // Not known to survive a crash: remove it, so that the next try creates it afresh.
      await closeFile(fd).catch(() => undefined)
      await rm(file, { force: true })
      throw err
    }
    return fd
  }

  private async closeSegment(): Promise<void> {
    const opening = this.fd
    this.fd = undefined
    // A segment that could not be opened has nothing to close.
    const fd = await opening?.catch(() => undefined)
    if (fd !== undefined) await closeFile(fd)
  }
}
