import { close, constants, open, write } from 'node:fs'
import { promisify } from 'node:util'
import type { IngestionMetrics } from '../metrics'
import { segmentPath, syncDirectory } from './segments'

const openFile = promisify(open)
const closeFile = promisify(close)

/** A segment is created (never reused) and every write returns only once its data is on disk. */
const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC

/** Writes `length` bytes of `data` from `offset` at `position`; resolves with the bytes written. */
function writeAt(fd: number, data: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    write(fd, data, offset, length, position, (err, written) => (err ? reject(err) : resolve(written)))
  })
}

interface PendingAppend {
  frame: Buffer
  rows: number
  resolve: () => void
  reject: (err: unknown) => void
}

export interface SpoolWriterOptions {
  dir: string
  /** The first segment this writer creates; older ones belong to earlier runs. */
  firstSeq: number
  segmentBytes: number
  metrics: Pick<IngestionMetrics, 'spoolCommitDuration' | 'spoolCommitAppends'>
  /** Told after each commit: the segment and how far it is now durable, and the rows added. */
  onCommit: (seq: number, committedBytes: number, rows: number) => void
  /** Told when a segment is complete and the writer moved to the next. */
  onRotate: (closedSeq: number, size: number) => void
}

/**
 * Appends frames to the active segment with group commit: frames that arrive while a write is
 * running wait for the next one, so a single synchronous write covers every request of those
 * few milliseconds. An append resolves only once its frame is on disk.
 *
 * The segment is opened with O_DSYNC, so each write returns once its data is durable, as a
 * write followed by fdatasync would, in one trip to the thread pool instead of two: under
 * load the event loop is busy, and each trip waits for it.
 */
export class SpoolWriter {
  private pending: PendingAppend[] = []
  private committing: Promise<void> | undefined
  private fd: number | undefined
  private seq: number
  private size = 0
  private closed = false

  constructor(private readonly options: SpoolWriterOptions) {
    this.seq = options.firstSeq
  }

  get activeSeq(): number {
    return this.seq
  }

  append(frame: Buffer, rows: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the spool is closed'))
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ frame, rows, resolve, reject })
      this.committing ??= this.commitLoop()
    })
  }

  /** Waits for every append so far to be durable, then closes the active segment. */
  async close(): Promise<void> {
    this.closed = true
    await this.committing
    await this.closeSegment()
  }

  private async commitLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const group = this.pending
        this.pending = []
        try {
          await this.commit(group)
          for (const append of group) append.resolve()
        } catch (err) {
          for (const append of group) append.reject(err)
        }
      }
    } finally {
      this.committing = undefined
    }
  }

  private async commit(group: PendingAppend[]): Promise<void> {
    const started = performance.now()
    const fd = await this.activeSegment()
    const data = group.length === 1 ? group[0]!.frame : Buffer.concat(group.map((a) => a.frame))
    let written = 0
    while (written < data.length) written += await writeAt(fd, data, written, data.length - written, this.size + written)
    this.options.metrics.spoolCommitDuration.observe((performance.now() - started) / 1000)
    this.options.metrics.spoolCommitAppends.observe(group.length)
    this.size += data.length
    this.options.onCommit(this.seq, this.size, group.reduce((n, a) => n + a.rows, 0))
    if (this.size >= this.options.segmentBytes) await this.rotate()
  }

  private async activeSegment(): Promise<number> {
    if (this.fd === undefined) {
      this.fd = await openFile(segmentPath(this.options.dir, this.seq), SEGMENT_FLAGS, 0o644)
      await syncDirectory(this.options.dir)
      this.size = 0
    }
    return this.fd
  }

  private async closeSegment(): Promise<void> {
    const fd = this.fd
    this.fd = undefined
    if (fd !== undefined) await closeFile(fd)
  }

  private async rotate(): Promise<void> {
    await this.closeSegment()
    this.options.onRotate(this.seq, this.size)
    this.seq += 1
    this.size = 0
  }
}
