import { open, type FileHandle } from 'node:fs/promises'
import { segmentPath, syncDirectory } from './segments'

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
  /** Told after each commit: the segment and how far it is now durable, and the rows added. */
  onCommit: (seq: number, committedBytes: number, rows: number) => void
  /** Told when a segment is complete and the writer moved to the next. */
  onRotate: (closedSeq: number, size: number) => void
}

/**
 * Appends frames to the active segment with group commit: frames that arrive while an fsync
 * is running wait for the next one, so a single write and fdatasync covers every request of
 * those few milliseconds. An append resolves only once its frame is on disk.
 */
export class SpoolWriter {
  private pending: PendingAppend[] = []
  private committing: Promise<void> | undefined
  private handle: FileHandle | undefined
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
    await this.handle?.close()
    this.handle = undefined
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
    const handle = await this.activeHandle()
    const data = group.length === 1 ? group[0]!.frame : Buffer.concat(group.map((a) => a.frame))
    let written = 0
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, this.size + written)
      written += bytesWritten
    }
    await handle.datasync()
    this.size += data.length
    this.options.onCommit(this.seq, this.size, group.reduce((n, a) => n + a.rows, 0))
    if (this.size >= this.options.segmentBytes) await this.rotate()
  }

  private async activeHandle(): Promise<FileHandle> {
    if (!this.handle) {
      this.handle = await open(segmentPath(this.options.dir, this.seq), 'wx')
      await syncDirectory(this.options.dir)
      this.size = 0
    }
    return this.handle
  }

  private async rotate(): Promise<void> {
    await this.handle?.close()
    this.handle = undefined
    this.options.onRotate(this.seq, this.size)
    this.seq += 1
    this.size = 0
  }
}
