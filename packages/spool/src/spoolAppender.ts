import type { Frame } from './frames'
import type { SpoolBytes } from './spoolBytes'

/** What capture needs of the spool. */
export interface SpoolAppend {
  /** Whether a frame of this size fits under the bound. */
  hasRoom(frameBytes: number): boolean
  /** Resolves once the frame is on disk, which is when capture may acknowledge it. */
  append(frame: Frame): Promise<void>
}

/** Appends to a writer under the spool's bound, counting the bytes in `bytes`. */
export class SpoolAppender implements SpoolAppend {
  private accepting = true

  constructor(
    private readonly writer: { append(frame: Frame): Promise<void> },
    private readonly bytes: SpoolBytes,
    private readonly maxBytes: number,
    /** The file system's free space above its reserve (DiskReserve); without it only the bound counts. */
    private readonly disk?: { hasRoom(): boolean },
  ) {}

  hasRoom(frameBytes: number): boolean {
    return this.accepting && this.bytes.value + frameBytes <= this.maxBytes && (this.disk?.hasRoom() ?? true)
  }

  append(frame: Frame): Promise<void> {
    if (!this.accepting) return Promise.reject(new Error('the spool is closed'))
    const size = frame.bytes.length
    this.bytes.add(size)
    return this.writer.append(frame).catch((err: unknown) => {
      this.bytes.add(-size)
      throw err
    })
  }

  /** Refuses every append from now on. */
  stop(): void {
    this.accepting = false
  }
}
