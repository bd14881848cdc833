/**
 * The largest value recorded in the last `windowMs`, kept in slots so that reading it changes
 * nothing: two scrapers (a Prometheus pair) see the same maximum, and a scrape that comes late
 * does not see one that was reset by another.
 */
export class WindowedMax {
  private readonly slots: Float64Array
  private readonly slotStarts: Float64Array
  private readonly slotMs: number

  constructor(
    readonly windowMs: number,
    slotCount = 12,
    private readonly now: () => number = Date.now,
  ) {
    this.slotMs = windowMs / slotCount
    this.slots = new Float64Array(slotCount)
    this.slotStarts = new Float64Array(slotCount).fill(-Infinity)
  }

  record(value: number): void {
    const start = Math.floor(this.now() / this.slotMs) * this.slotMs
    const i = Math.floor(start / this.slotMs) % this.slots.length
    if (this.slotStarts[i] !== start) {
      this.slotStarts[i] = start
      this.slots[i] = value
    } else if (value > this.slots[i]!) this.slots[i] = value
  }

  /** The maximum over the window; 0 when nothing was recorded in it. */
  read(): number {
    const oldest = this.now() - this.windowMs
    let max = 0
    for (let i = 0; i < this.slots.length; i++) if (this.slotStarts[i]! > oldest && this.slots[i]! > max) max = this.slots[i]!
    return max
  }
}
