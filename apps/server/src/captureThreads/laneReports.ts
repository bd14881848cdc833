import { writtenFrameContent, type CommittedFrame } from '@burrow/spool'
import type { CommittedFrameMessage, LaneEvent } from './protocol'

/** The frames of a commit a thread reported, as the main thread's spool takes them: decoded only when asked. */
export function committedFrames(frames: readonly CommittedFrameMessage[], written: ArrayBuffer): CommittedFrame[] {
  return frames.map(({ rows, start, end }) => {
    const bytes = Buffer.from(written, start, end - start)
    return { bytes, rows, content: () => writtenFrameContent(bytes) }
  })
}

/**
 * How long a capture thread gathers its lane's commits before telling the main thread. Waking
 * another thread is costly on small virtual machines (tens of microseconds each time), and
 * the consumer needs the commits only by the batch age (hundreds of milliseconds).
 */
const REPORT_EVERY_MS = 10

/** Gathers a lane's commits and rotations and sends them to the main thread together, in order. */
export class LaneReports {
  private events: LaneEvent[] = []
  private frames: Buffer[] = []
  private bytes = 0
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly send: (events: LaneEvent[], frames: ArrayBuffer) => void) {}

  commit(seq: number, end: number, frames: readonly CommittedFrame[]): void {
    const described: CommittedFrameMessage[] = frames.map(({ bytes, rows }) => {
      const start = this.bytes
      this.bytes += bytes.length
      this.frames.push(bytes)
      return { rows, start, end: this.bytes }
    })
    this.add({ kind: 'commit', seq, end, frames: described })
  }

  rotate(seq: number, size: number): void {
    this.add({ kind: 'rotate', seq, size })
  }

  /** Sends what was gathered now, the frames copied into one buffer that is moved, not copied again. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.events.length === 0) return
    const frames = new Uint8Array(this.bytes)
    let at = 0
    for (const bytes of this.frames) {
      frames.set(bytes, at)
      at += bytes.length
    }
    const events = this.events
    this.events = []
    this.frames = []
    this.bytes = 0
    this.send(events, frames.buffer)
  }

  private add(event: LaneEvent): void {
    this.events.push(event)
    this.timer ??= setTimeout(() => this.flush(), REPORT_EVERY_MS)
  }
}
