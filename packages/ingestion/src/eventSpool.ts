import { randomUUID } from 'node:crypto'
import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import {
  clearRestoredMark,
  listSegments,
  readFrame,
  readPosition,
  readRestoredMark,
  removeSegment,
  SegmentReader,
  segmentPath,
  SpoolAppender,
  SpoolBytes,
  SpoolWriter,
  writePosition,
  type CommittedFrame,
  type Frame,
  type FrameContent,
  type InsertIntent,
  type SegmentWriter,
  type Sighting,
  type SpoolMetrics,
  type SpoolPosition,
  type SpoolWriterOptions,
} from '@burrow/spool'
import { OutageLog, type LogFn } from '@burrow/cache'
import { countSegmentRows } from './backlogRows'
import { concatInSlices, yieldToEventLoop } from './eventLoop'
import { SinkGaveUp, type EventSink } from './eventSink'
import type { IngestionMetrics } from './metrics'

export interface EventSpoolOptions {
  dir: string
  sink: Pick<EventSink, 'insert' | 'stopRetrying'>
  metrics: Pick<IngestionMetrics, 'consumerFailures'> &
    SpoolMetrics & {
      /** Seconds from an acknowledgement (its commit to disk) to its rows stored in ClickHouse, per group of commits. */
      storeDelay?: { observe(seconds: number): void }
    }
  /** An insert happens at this many rows waiting, or when the oldest has waited maxAgeMs. */
  maxRows: number
  maxAgeMs: number
  /** Bound on the spool's files; appends beyond it are refused so that capture answers 503. */
  maxBytes: number
  segmentBytes: number
  /** Free space on the spool's file system above its reserve: without it, appends are refused as past maxBytes. */
  disk?: { hasRoom(): boolean }
  /** How many spool writes may be on their way to disk at once. */
  writesInFlight?: number
  /**
   * Bound on the bytes of frames kept in memory for the consumer (default 16 MiB). Beyond it
   * (ClickHouse is slow or down and a backlog builds up), frames are read back from disk.
   */
  keptBytes?: number
  log: LogFn
  /**
   * Called with a batch's frames before their rows are inserted; answers the frames to store,
   * and may rewrite their rows in place (person ids). A failure leaves the batch in the spool
   * and the consumer tries it again.
   */
  beforeInsert?: (frames: FrameContent[]) => Promise<FrameContent[]>
  /**
   * Called with a batch's frames once they are stored, before the position moves past them (the
   * hand-off to destinations). A failure leaves the batch in the spool: the consumer inserts it
   * again under the same token (ClickHouse drops the copy) and calls this again, so it must
   * take a batch twice without doing its work twice.
   */
  afterInsert?: (frames: FrameContent[]) => Promise<void>
  /** Called with the event names of each stored batch (for event definitions); best effort, a failure is logged. */
  onStored?: (sightings: Sighting[]) => Promise<void>
  /**
   * The writer of this spool's segments: by default one in this thread. A capture thread's
   * spool has a stand-in here that hears of the commits the thread makes.
   */
  createWriter?: (options: SpoolWriterOptions) => SegmentWriter
  /** The size of the spool's files, shared with the threads that append to it. */
  bytes?: SpoolBytes
}

interface Segment {
  /** Where its frames start (after the header of its format, if it has one). */
  start: number
  /** Where the bytes known to hold frames end: the committed length; for an earlier run's segment, up to a torn tail. */
  end: number
  /** What it adds to the spool's size: an earlier run's file, or the frames this run wrote to it. */
  bytes: number
  /** No more frames will be added. */
  closed: boolean
}

/** What a spool keeps for the next start when it stops before storing everything. */
export interface SpoolLeft {
  rows: number
  segments: number
  bytes: number
}

/** The step of consuming a batch that failed, as the failures metric labels it. */
type ConsumerStage = 'read' | 'prepare' | 'insert' | 'handoff' | 'advance'

interface Batch {
  frames: FrameContent[]
  rows: number
  /** Rows of segments written by this run (earlier runs' rows are not counted as waiting). */
  liveRows: number
  end: SpoolPosition
}

/** A batch read and prepared ahead of its turn; `read` settles once its frames are taken, `prepared` never fails (undefined instead). */
interface Ahead {
  read: Promise<void>
  prepared: Promise<{ batch: Batch; frames: FrameContent[] } | undefined>
}

/** Bytes read from a segment at a time when looking for frames. */
const READ_CHUNK = 1 << 20
/** Bound on one insert's body besides maxRows. */
const MAX_BATCH_BYTES = 32 << 20
/** Frames parsed between yields to the event loop, so that reading a batch never stalls capture. */
const FRAMES_PER_SLICE = 256
/** Frames taken from memory between yields: taking one costs far less than parsing one. */
const KEPT_FRAMES_PER_SLICE = 4096
const DEFAULT_KEPT_BYTES = 16 << 20
/** How long a stop waits past its timeout for the consumer's step under way before leaving it. */
const ABANDON_AFTER_MS = 200

/** A frame this process wrote and acknowledged, kept so that the consumer need not read it back and parse it. */
interface KeptFrame {
  seq: number
  offset: number
  bytes: number
  content: FrameContent
}

const isBefore = (frame: KeptFrame, position: SpoolPosition) =>
  frame.seq < position.seq || (frame.seq === position.seq && frame.offset < position.offset)

/**
 * The durable queue between capture and ClickHouse. Capture appends a request's rows and
 * answers only once they are fsync'd; a single consumer reads the segments in order, inserts
 * them in batches and deletes each segment once all its rows are stored. The frames this
 * process wrote are also kept in memory up to a bound, so the consumer takes them from there
 * rather than reading them back and parsing them; the disk copy is what a restart, or a
 * backlog beyond the bound, reads. Before a batch is inserted, its extent and a token are
 * recorded (synced); after a crash the next start resumes from the last recorded position, so
 * nothing acknowledged is lost, and inserts that batch again exactly, under the same token, so
 * that ClickHouse drops it if it was stored before the crash: each row is stored once.
 */
/** Runs `work` while none of the spools stores anything (see EventSpool.whilePaused). */
export function whileAllPaused<T>(spools: readonly EventSpool[], work: () => Promise<T>, timeoutMs: number): Promise<T> {
  const [first, ...rest] = spools
  if (!first) return work()
  return first.whilePaused(() => whileAllPaused(rest, work, timeoutMs), timeoutMs)
}

export class EventSpool {
  private readonly segments = new Map<number, Segment>()
  private readonly writer: SegmentWriter
  private readonly appender: SpoolAppender
  private readonly bytes: SpoolBytes
  private position: SpoolPosition
  private committedRows = 0
  private consumedRows = 0
  /** (rows committed so far, when): tells how long the oldest waiting row has waited. */
  private commits: Array<{ rows: number; at: number }> = []
  private wake: (() => void) | undefined
  private readonly timer: NodeJS.Timeout
  private consumer: Promise<void>
  private draining = false
  private giveUp = false
  private reader: SegmentReader | undefined
  /** Segments from this number on are written by this run; lower ones by an earlier run. */
  private readonly writerFirstSeq: number
  /** Frames acknowledged and not yet stored, in file order from `keptHead` on (with gaps where the bound was reached). */
  private kept: KeptFrame[] = []
  private keptHead = 0
  private keptBytes = 0
  /** Rows an earlier run left, counted in the background at open (0 until counted), and those of them stored since. */
  private earlierRows = 0
  private earlierStored = 0
  /** When the oldest of an earlier run's remaining segments was last written: its rows are at least this old. */
  private earlierSince: number | undefined
  private readonly outage: OutageLog
  /** Ends a back-off wait at once when the spool gives up (shutdown). */
  private interruptWait: (() => void) | undefined
  /** The batch recorded as being inserted: it is read again exactly, and inserted under the same token, until it is stored. */
  private inserting: InsertIntent | undefined
  /**
   * The token of the batch an earlier run was inserting when it stopped. An upgrade in between
   * may have rebuilt the events table, which then no longer remembers the token, so that batch's
   * insert leaves out the events already stored.
   */
  private readonly resumedToken: string | undefined
  /**
   * Segments below this number were restored from a backup of an instance that stores into a
   * ClickHouse server: their events may be stored already, so their batches leave those out.
   */
  private restoredBefore: number | undefined
  /** While set, the consumer stores nothing more: it waits here once its batch under way is stored and recorded. */
  private gate: { opened: Promise<void>; reached: () => void } | undefined

  private constructor(
    private readonly options: EventSpoolOptions,
    previous: Array<{ seq: number; size: number; framesStart: number }>,
    start: SpoolPosition,
    firstSeq: number,
    inserting: InsertIntent | undefined,
    restoredBefore: number | undefined,
  ) {
    this.bytes = options.bytes ?? new SpoolBytes()
    this.outage = new OutageLog(`spool ${options.dir}: storing events`, options.log)
    for (const { seq, size, framesStart } of previous) {
      this.segments.set(seq, { start: framesStart, end: size, bytes: size, closed: true })
      this.bytes.add(size)
    }
    this.position = start
    this.inserting = inserting
    this.resumedToken = inserting?.token
    this.restoredBefore = restoredBefore
    this.writerFirstSeq = firstSeq
    this.writer = (options.createWriter ?? ((writerOptions) => new SpoolWriter(writerOptions)))({
      dir: options.dir,
      firstSeq,
      segmentBytes: options.segmentBytes,
      writesInFlight: options.writesInFlight,
      metrics: options.metrics,
      log: options.log,
      onCommit: (seq, committed, frames) => {
        let first = committed
        for (const frame of frames) first -= frame.bytes.length
        this.keep(seq, first, frames)
        let segment = this.segments.get(seq)
        // A segment's first commit starts where its frames do.
        if (!segment) this.segments.set(seq, (segment = { start: first, end: committed, bytes: 0, closed: false }))
        segment.end = committed
        segment.bytes = committed - segment.start
        this.committedRows += frames.reduce((rows, frame) => rows + frame.rows, 0)
        // Commits close together share an entry, so that a long outage keeps this list short.
        const now = Date.now()
        const last = this.commits.at(-1)
        if (last && now - last.at < this.options.maxAgeMs / 10) last.rows = this.committedRows
        else this.commits.push({ rows: this.committedRows, at: now })
        if (this.waitingRows() >= this.options.maxRows) this.notify()
      },
      onRotate: (seq) => {
        const segment = this.segments.get(seq)
        if (segment) segment.closed = true
      },
    })
    this.appender = new SpoolAppender(this.writer, this.bytes, options.maxBytes, options.disk)
    this.writer.prepare()
    this.timer = setInterval(() => this.notify(), Math.max(5, Math.floor(options.maxAgeMs / 4)))
    this.timer.unref()
    this.consumer = this.consume()
  }

  /** Opens the spool in `dir`, resuming the rows an earlier run left there. */
  static async open(options: EventSpoolOptions): Promise<EventSpool> {
    const found = await listSegments(options.dir)
    const saved = await readPosition(options.dir)
    const lastSeq = Math.max(found.at(-1)?.seq ?? 0, saved?.seq ?? 0)
    const remaining = found.filter((s) => !saved || s.seq >= saved.seq)
    for (const done of found.filter((s) => saved && s.seq < saved.seq)) await removeSegment(options.dir, done.seq)
    // Every segment left is of a format this release reads, or the spool does not open.
    const previous = []
    for (const segment of remaining) previous.push({ ...segment, framesStart: await framesStartOf(options.dir, segment.seq) })
    const resumesSaved = saved !== undefined && remaining[0]?.seq === saved.seq
    const start = resumesSaved ? { seq: saved.seq, offset: saved.offset } : { seq: remaining[0]?.seq ?? lastSeq + 1, offset: 0 }
    if (remaining.length > 0) options.log(`spool: resuming ${remaining.length} segment(s) from an earlier run`)
    // The batch an earlier run was inserting when it stopped goes in again first, exactly as it was.
    const inserting = resumesSaved ? saved.inserting : undefined
    // A restore's mark holds until the segments it copied are stored.
    const restored = await readRestoredMark(options.dir)
    const restoredBefore = restored !== undefined && remaining.some((s) => s.seq < restored) ? restored : undefined
    if (restored !== undefined && restoredBefore === undefined) await clearRestoredMark(options.dir)
    const spool = new EventSpool(options, previous, start, lastSeq + 1, inserting, restoredBefore)
    if (remaining.length > 0) void spool.countEarlierRows(previous, start)
    return spool
  }

  /** Counts an earlier run's rows from the position on, for the depth metrics, without holding up the start. */
  private async countEarlierRows(previous: Array<{ seq: number; size: number }>, start: SpoolPosition): Promise<void> {
    try {
      const oldest = previous[0]
      if (oldest) this.earlierSince = (await stat(segmentPath(this.options.dir, oldest.seq))).mtimeMs
      for (const { seq, size } of previous) {
        if (this.giveUp) return
        this.earlierRows += await countSegmentRows(this.options.dir, seq, seq === start.seq ? start.offset : 0, size)
      }
    } catch (err) {
      // Segments stored (and removed) meanwhile are simply not counted.
      if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') this.options.log('spool: could not count the rows an earlier run left', err)
    }
  }

  /** Whether a frame of this size fits under the bound. */
  hasRoom(frameBytes: number): boolean {
    return this.appender.hasRoom(frameBytes)
  }

  /** Appends a request's frame; resolves once it is on disk, which is when capture may acknowledge it. */
  append(frame: Frame): Promise<void> {
    return this.appender.append(frame)
  }

  /** Rows acknowledged and not yet stored in ClickHouse by this run. */
  waitingRows(): number {
    return this.committedRows - this.consumedRows
  }

  /** Rows acknowledged and not yet stored, an earlier run's backlog included (once counted). */
  backlogRows(): number {
    return this.waitingRows() + Math.max(0, this.earlierRows - this.earlierStored)
  }

  /** How long the oldest acknowledged row not yet stored has waited, in ms (0 when none waits). */
  oldestWaitingMs(now = Date.now()): number {
    if (this.earlierSince !== undefined && this.hasEarlierRunSegments()) return Math.max(0, now - this.earlierSince)
    const oldest = this.commits.find((c) => c.rows > this.consumedRows)
    return oldest ? now - oldest.at : 0
  }

  get spoolBytes(): number {
    return this.bytes.value
  }

  /**
   * Stops accepting, stores everything acknowledged, and removes the segments. If ClickHouse
   * does not take the rows within `timeoutMs`, stops anyway: they stay on disk for the next start.
   */
  async close(timeoutMs: number): Promise<SpoolLeft> {
    this.appender.stop()
    await this.writer.close()
    const active = this.segments.get(this.writer.activeSeq)
    if (active) active.closed = true
    this.draining = true
    this.notify()
    let abandon: (() => void) | undefined
    const abandoned = new Promise<void>((resolve) => (abandon = resolve))
    const timeout = setTimeout(() => {
      this.giveUp = true
      this.options.sink.stopRetrying()
      this.notify()
      this.interruptWait?.()
      // A batch stuck in a step that waits on a dependency (PostgreSQL cut off, its connection
      // attempt pending) is left behind: its rows stay in the spool, unrecorded, for the next start.
      setTimeout(() => abandon?.(), ABANDON_AFTER_MS).unref()
    }, timeoutMs)
    try {
      await Promise.race([this.consumer, abandoned])
    } finally {
      clearTimeout(timeout)
      clearInterval(this.timer)
      await this.reader?.close()
      this.reader = undefined
    }
    // The last batch may have been stored before its segment was closed.
    if (!this.giveUp) await this.removeFinishedSegments()
    const left: SpoolLeft = { rows: this.backlogRows(), segments: this.segments.size, bytes: 0 }
    for (const segment of this.segments.values()) left.bytes += segment.bytes
    if (this.segments.size === 0) await rm(path.join(this.options.dir, 'position.json'), { force: true })
    return left
  }

  private notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  private shouldInsert(): boolean {
    if (this.hasEarlierRunSegments()) return true
    const waiting = this.waitingRows()
    if (waiting <= 0) return this.draining && this.hasUnreadBytes()
    if (this.draining || waiting >= this.options.maxRows) return true
    const oldest = this.commits.find((c) => c.rows > this.consumedRows)
    return oldest !== undefined && Date.now() - oldest.at >= this.options.maxAgeMs
  }

  private hasEarlierRunSegments(): boolean {
    for (const seq of this.segments.keys()) if (seq < this.writerFirstSeq) return true
    return false
  }

  private hasUnreadBytes(): boolean {
    const segment = this.segments.get(this.position.seq)
    return (segment !== undefined && this.position.offset < segment.end) || [...this.segments.keys()].some((seq) => seq > this.position.seq)
  }

  /**
   * Runs `work` while this spool's consumer stores nothing: the batch under way is stored and
   * its position recorded first, and capture goes on appending meanwhile. What ClickHouse holds
   * then ends exactly where the spool's position begins (a backup copies both, and a restore
   * stores no row twice). Waits at most `timeoutMs` for the batch under way.
   */
  async whilePaused<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
    while (this.gate) await this.gate.opened
    let open!: () => void
    let reached!: () => void
    const atGate = new Promise<void>((resolve) => (reached = resolve))
    this.gate = { opened: new Promise<void>((resolve) => (open = resolve)), reached }
    this.notify()
    this.interruptWait?.()
    let timer: NodeJS.Timeout | undefined
    try {
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the spool ${this.options.dir} did not store its batch under way within ${timeoutMs} ms`)),
          timeoutMs,
        )
      })
      // A consumer that has ended (a closed spool) stores nothing more either.
      await Promise.race([atGate, this.consumer, timedOut])
      return await work()
    } finally {
      clearTimeout(timer)
      this.gate = undefined
      open()
    }
  }

  private async consume(): Promise<void> {
    let failures = 0
    // The next batch, read and prepared while the one before it was inserted (under a backlog only).
    let ahead: Ahead | undefined
    for (;;) {
      const prepared = ahead && (await ahead.prepared)
      ahead = undefined
      if (this.giveUp) return
      // Paused only between batches: a batch recorded as being inserted is stored first. A batch
      // prepared ahead is not recorded yet; it is prepared again after the pause.
      if (this.gate && !this.inserting) {
        const gate = this.gate
        gate.reached()
        await gate.opened
        continue
      }
      if (!prepared && !this.shouldInsert()) {
        if (this.draining) return
        await new Promise<void>((resolve) => (this.wake = resolve))
        continue
      }
      let stage: ConsumerStage = 'read'
      try {
        let batch: Batch
        let frames: FrameContent[]
        if (prepared) ({ batch, frames } = prepared)
        else {
          batch = await this.readBatch(this.position, this.inserting?.end)
          stage = 'prepare'
          frames = await this.prepare(batch)
        }
        if (batch.rows > 0 && !this.inserting) {
          stage = 'read'
          this.inserting = { end: batch.end, token: randomUUID() }
          await writePosition(this.options.dir, { ...this.position, inserting: this.inserting }, { sync: true })
        }
        const rows = frames.reduce((sum, f) => sum + f.rows, 0)
        if (rows > 0 && this.inserting) {
          stage = 'insert'
          const body = await concatInSlices(frames.map((f) => f.body))
          ahead = this.prepareAhead(batch)
          const { token } = this.inserting
          const restored = this.restoredBefore !== undefined && this.position.seq < this.restoredBefore
          await this.options.sink.insert(body, rows, token, { resumed: token === this.resumedToken || restored })
          stage = 'handoff'
          await this.options.afterInsert?.(frames)
          const sightings = frames.flatMap((f) => f.sightings)
          await this.options.onStored?.(sightings).catch((err) => this.options.log('after-store hook failed', err))
        }
        stage = 'advance'
        // The batch ahead holds its place in the kept frames until it is read; moving on forgets those before it.
        await ahead?.read
        await this.advance(batch)
        failures = 0
        this.outage.succeeded()
      } catch (err) {
        // A batch prepared ahead of one that failed is dropped: that one is read and stored again first.
        await ahead?.prepared
        ahead = undefined
        if (err instanceof SinkGaveUp || this.giveUp) return
        // Backs off while a dependency (PostgreSQL for persons, the disk) stays unavailable.
        this.options.metrics.consumerFailures.inc({ stage })
        this.outage.failed(err)
        const delay = Math.min(200 * 2 ** failures++, 5_000)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay)
          this.interruptWait = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.interruptWait = undefined
      }
    }
  }

  /** A batch's frames as they are to be stored (see EventSpoolOptions.beforeInsert). */
  private prepare(batch: Batch): Promise<FrameContent[]> {
    return batch.rows > 0 && this.options.beforeInsert ? this.options.beforeInsert(batch.frames) : Promise.resolve(batch.frames)
  }

  /**
   * While `current` is being inserted, reads and prepares the batch after it, when a full one is
   * already waiting (or an earlier run left more): the event loop's work on one batch then
   * overlaps ClickHouse's on the other. Nothing of it is recorded until `current` is stored; if
   * anything fails, it is dropped (undefined) and that batch is read and prepared again.
   */
  private prepareAhead(current: Batch): Ahead | undefined {
    const backlog = this.waitingRows() - current.liveRows >= this.options.maxRows || current.end.seq < this.writerFirstSeq
    if (!backlog || this.gate || this.draining) return undefined
    const read = this.readBatch(current.end)
    const prepared = read.then(async (batch) => (batch.rows > 0 ? { batch, frames: await this.prepare(batch) } : undefined))
    return {
      read: read.then(
        () => undefined,
        () => undefined,
      ),
      prepared: prepared.catch(() => undefined),
    }
  }

  /**
   * Keeps the frames of a commit, the first of them at `offset`, while the bound allows. One
   * beyond it is not decoded here: the consumer reads it back from disk when it gets there.
   */
  private keep(seq: number, offset: number, frames: readonly CommittedFrame[]): void {
    for (const frame of frames) {
      const bytes = frame.bytes.length
      if (this.keptBytes + bytes <= (this.options.keptBytes ?? DEFAULT_KEPT_BYTES)) {
        this.kept.push({ seq, offset, bytes, content: frame.content() })
        this.keptBytes += bytes
      }
      offset += bytes
    }
  }

  /** Forgets the kept frames before the position (stored). */
  private forgetKept(): void {
    while (this.keptHead < this.kept.length && isBefore(this.kept[this.keptHead]!, this.position)) {
      this.keptBytes -= this.kept[this.keptHead]!.bytes
      this.keptHead++
    }
    if (this.keptHead >= 1024 && this.keptHead * 2 >= this.kept.length) {
      this.kept = this.kept.slice(this.keptHead)
      this.keptHead = 0
    }
  }

  /**
   * Frames from `from` on, up to the batch bounds, across segment ends: the kept ones
   * from memory, the others (an earlier run's, those beyond the memory bound) from disk.
   * With `until`, exactly the frames up to there (a recorded batch, read again whatever the bounds are now).
   */
  private async readBatch(from: SpoolPosition, until?: SpoolPosition): Promise<Batch> {
    const batch: Batch = { frames: [], rows: 0, liveRows: 0, end: { ...from } }
    let bytes = 0
    let k = this.keptHead
    let taken = 0
    const more = until
      ? () => batch.end.seq < until.seq || (batch.end.seq === until.seq && batch.end.offset < until.offset)
      : () => batch.rows < this.options.maxRows && bytes < MAX_BATCH_BYTES
    while (more()) {
      const segment = this.segments.get(batch.end.seq)
      if (segment && batch.end.offset < segment.start) batch.end = { seq: batch.end.seq, offset: segment.start }
      if (!segment || batch.end.offset >= segment.end) {
        const next = [...this.segments.keys()].filter((seq) => seq > batch.end.seq).sort((a, b) => a - b)[0]
        if ((segment && !segment.closed) || next === undefined) break
        batch.end = { seq: next, offset: 0 }
        continue
      }
      while (k < this.kept.length && isBefore(this.kept[k]!, batch.end)) k++
      const kept = this.kept[k]
      if (kept?.seq === batch.end.seq && kept.offset === batch.end.offset) {
        this.take(batch, kept.content, batch.end.seq)
        bytes += kept.bytes
        batch.end = { seq: batch.end.seq, offset: batch.end.offset + kept.bytes }
        if (++taken % KEPT_FRAMES_PER_SLICE === 0) await yieldToEventLoop()
        continue
      }
      // Read from disk up to the next kept frame of this segment (or the recorded batch's end).
      let upTo = kept?.seq === batch.end.seq ? kept.offset : segment.end
      if (until?.seq === batch.end.seq) upTo = Math.min(upTo, until.offset)
      const chunk = await this.readAt(batch.end.seq, batch.end.offset, Math.min(upTo - batch.end.offset, READ_CHUNK))
      const verify = batch.end.seq < this.writerFirstSeq
      let at = 0
      for (let frames = 1; at < chunk.length && (until !== undefined || batch.rows < this.options.maxRows); frames++) {
        if (frames % FRAMES_PER_SLICE === 0) await yieldToEventLoop()
        const frame = readFrame(chunk.subarray(at), verify)
        if (frame.kind === 'incomplete') {
          if (batch.end.offset + at + frame.needed > segment.end) {
            this.endOfFrames(batch.end.seq, segment, batch.end.offset + at, 'a frame runs past the end of the segment')
          } else if (at === 0) {
            // A frame larger than the chunk: read exactly it.
            const whole = await this.readAt(batch.end.seq, batch.end.offset, frame.needed)
            const read = readFrame(whole, verify)
            if (read.kind !== 'frame') this.endOfFrames(batch.end.seq, segment, batch.end.offset, 'an unreadable frame')
            else {
              this.take(batch, read.content, batch.end.seq)
              bytes += read.bytes
              at = read.bytes
            }
          }
          break
        }
        if (frame.kind === 'corrupt' || frame.kind === 'end') {
          this.endOfFrames(batch.end.seq, segment, batch.end.offset + at, frame.kind === 'corrupt' ? frame.reason : undefined)
          break
        }
        this.take(batch, frame.content, batch.end.seq)
        bytes += frame.bytes
        at += frame.bytes
      }
      if (at > 0) batch.end = { seq: batch.end.seq, offset: batch.end.offset + at }
    }
    return batch
  }

  private take(batch: Batch, content: FrameContent, seq: number): void {
    batch.frames.push(content)
    batch.rows += content.rows
    if (seq >= this.writerFirstSeq) batch.liveRows += content.rows
  }

  /**
   * Where an earlier run's segment ends: at the zeros it was created with, or at a frame torn
   * by a crash mid-write (`torn` says how). This run's segments are read only up to what was
   * acknowledged, so neither can occur there.
   */
  private endOfFrames(seq: number, segment: Segment, offset: number, torn: string | undefined): void {
    if (!segment.closed || seq >= this.writerFirstSeq)
      throw new Error(`spool segment ${seq} is unreadable at ${offset}: ${torn ?? 'no frame'}`)
    if (torn) this.options.log(`spool: segment ${seq} ends in a torn frame at byte ${offset} (${torn}); it was never acknowledged`)
    segment.end = offset
  }

  private async readAt(seq: number, offset: number, length: number): Promise<Buffer> {
    if (this.reader?.seq !== seq) {
      const previous = this.reader
      this.reader = undefined
      await previous?.close()
      this.reader = await SegmentReader.open(this.options.dir, seq)
    }
    return this.reader.read(offset, length)
  }

  /**
   * Moves the position past a stored batch and removes the segments it finished: the position
   * is recorded first, so that no recorded position or intent points into a removed segment.
   */
  private async advance(batch: Batch): Promise<void> {
    this.position = batch.end
    this.inserting = undefined
    this.forgetKept()
    this.consumedRows += batch.liveRows
    this.earlierStored += batch.rows - batch.liveRows
    const storedAt = Date.now()
    while (this.commits.length > 0 && this.commits[0]!.rows <= this.consumedRows) {
      const commit = this.commits.shift()!
      this.options.metrics.storeDelay?.observe((storedAt - commit.at) / 1000)
    }
    await writePosition(this.options.dir, this.position)
    await this.removeFinishedSegments()
    const restoredBefore = this.restoredBefore
    if (restoredBefore !== undefined && ![...this.segments.keys()].some((seq) => seq < restoredBefore)) {
      this.restoredBefore = undefined
      await clearRestoredMark(this.options.dir)
    }
  }

  /** Deletes the segments whose rows are all stored. */
  private async removeFinishedSegments(): Promise<void> {
    for (const [seq, segment] of [...this.segments]) {
      const finished = seq < this.position.seq || (seq === this.position.seq && segment.closed && this.position.offset >= segment.end)
      if (!finished) continue
      if (this.reader?.seq === seq) {
        await this.reader.close()
        this.reader = undefined
      }
      await removeSegment(this.options.dir, seq)
      this.segments.delete(seq)
      this.bytes.add(-segment.bytes)
    }
  }
}

/** Where the frames of a segment start, from its header (SpoolFormatError for a format this release cannot read). */
async function framesStartOf(dir: string, seq: number): Promise<number> {
  const reader = await SegmentReader.open(dir, seq)
  try {
    return reader.framesStart
  } finally {
    await reader.close()
  }
}
