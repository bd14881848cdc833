import type { CommittedFrame } from '@burrow/spool'
import type { CommittedFrameMessage, LaneEvent } from './protocol'

/**
 * How long a capture thread gathers its lane's commits before telling the main thread. Waking
 * another thread is costly on small virtual machines (tens of microseconds each time), and
 * the consumer needs the commits only by the batch age (hundreds of milliseconds).
 */
const REPORT_EVERY_MS = 10

/** Gathers a lane's commits and rotations and sends them to the main thread together, in order. */
export class LaneReports {
  private events: LaneEvent[] = []
  private bodies: Buffer[] = []
  private bytes = 0
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly send: (events: LaneEvent[], rows: ArrayBuffer) => void) {}

  commit(seq: number, end: number, frames: readonly CommittedFrame[]): void {
    const described: CommittedFrameMessage[] = frames.map(({ size, content }) => {
      const start = this.bytes
      this.bytes += content.body.length
      this.bodies.push(content.body)
      return {
        size,
        rows: content.rows,
        sightings: content.sightings,
        teamId: content.teamId,
        persons: content.persons,
        start,
        end: this.bytes,
      }
    })
    this.add({ kind: 'commit', seq, end, frames: described })
  }

  rotate(seq: number, size: number): void {
    this.add({ kind: 'rotate', seq, size })
  }

  /** Sends what was gathered now, the rows copied into one buffer that is moved, not copied again. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.events.length === 0) return
    const rows = new Uint8Array(this.bytes)
    let at = 0
    for (const body of this.bodies) {
      rows.set(body, at)
      at += body.length
    }
    const events = this.events
    this.events = []
    this.bodies = []
    this.bytes = 0
    this.send(events, rows.buffer)
  }

  private add(event: LaneEvent): void {
    this.events.push(event)
    this.timer ??= setTimeout(() => this.flush(), REPORT_EVERY_MS)
  }
}
