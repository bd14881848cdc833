import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createSpoolMetrics, encodeFrame, SpoolFormatError, SpoolWriter, type Frame, type FrameContent } from '@burrow/spool'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeEach, expect, it, vi } from 'vitest'
import { SinkGaveUp } from './eventSink'
import { EventSpool, type EventSpoolOptions } from './eventSpool'
import { createIngestionMetrics } from './metrics'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-event-spool-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0
const newDir = () => path.join(root, `spool-${++dirs}`)

// The consumer's waits (batch age, retry back-off, shutdown timeout) run on these fake timers;
// setImmediate stays real, as does the disk, for the writer's group commit and the consumer's yields.
beforeEach(() => vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] }))
afterEach(() => vi.useRealTimers())

/**
 * Lets the consumer finish what the last timer started: reads of kept frames need no disk, but
 * recording a batch before its insert is a synced write, so real time passes too.
 */
async function settle(): Promise<void> {
  const until = performance.now() + 100
  while (performance.now() < until) await new Promise((resolve) => setImmediate(resolve))
}

/** Turns the event loop, in real time (the disk's work goes on), until `done` or 5 s have passed. */
async function turnUntil(done: () => boolean): Promise<void> {
  const until = performance.now() + 5_000
  while (!done() && performance.now() < until) await new Promise((resolve) => setImmediate(resolve))
}

/** Waits, on real turns of the event loop (the disk's work goes on), until `count` fake timers are set. */
async function untilTimers(count: number): Promise<void> {
  await turnUntil(() => vi.getTimerCount() >= count)
  expect(vi.getTimerCount()).toBe(count)
}

/** A sink that records the row ids of each insert, or fails the inserts it is told to. */
class RecordingSink {
  readonly inserts: string[][] = []
  tries = 0
  failNext = 0
  /** Holds every insert until stopRetrying, then fails it, as the real sink does while ClickHouse is away. */
  unavailable = false
  private readonly stopped: Array<() => void> = []
  private gaveUp = false
  /** While set, each insert waits for release() (a slow ClickHouse). */
  private held: Array<() => void> | undefined

  hold(): void {
    this.held ??= []
  }

  release(): void {
    const held = this.held ?? []
    this.held = undefined
    for (const go of held) go()
  }

  async insert(body: Buffer, rows: number): Promise<void> {
    this.tries++
    const held = this.held
    if (held) await new Promise<void>((resolve) => held.push(resolve))
    if (this.unavailable) {
      if (!this.gaveUp) await new Promise<void>((resolve) => this.stopped.push(resolve))
      throw new SinkGaveUp(new Error('ClickHouse is unavailable'))
    }
    if (this.failNext > 0) {
      this.failNext--
      throw new Error('ClickHouse is unavailable')
    }
    const ids = body
      .toString()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id)
    expect(ids).toHaveLength(rows)
    this.inserts.push(ids)
  }

  stopRetrying(): void {
    this.gaveUp = true
    for (const stop of this.stopped.splice(0)) stop()
  }
}

const frameOf = (id: string): Frame => encodeFrame([`{"id":"${id}"}\n`], [[1, 'e', 0]], 1, [id])

function options(dir: string, sink: RecordingSink, over: Partial<EventSpoolOptions> = {}): EventSpoolOptions {
  const registry = new Registry()
  return {
    dir,
    sink,
    metrics: { ...createIngestionMetrics(registry), ...createSpoolMetrics(registry) },
    maxRows: 100,
    maxAgeMs: 1000,
    maxBytes: 1 << 20,
    segmentBytes: 64 << 10,
    log: () => {},
    ...over,
  }
}

it('holds fewer than maxRows rows until the oldest has waited maxAgeMs, then inserts them in one batch', async () => {
  const sink = new RecordingSink()
  const spool = await EventSpool.open(options(newDir(), sink, { maxRows: 100, maxAgeMs: 1000 }))
  for (const id of ['a', 'b', 'c']) await spool.append(frameOf(id))
  await vi.advanceTimersByTimeAsync(999)
  await settle()
  expect(sink.inserts).toEqual([])
  await vi.advanceTimersByTimeAsync(1)
  await turnUntil(() => sink.inserts.length > 0)
  expect(sink.inserts).toEqual([['a', 'b', 'c']])
  await spool.close(5_000)
})

it('inserts as soon as maxRows rows wait, whatever their age', async () => {
  const sink = new RecordingSink()
  const spool = await EventSpool.open(options(newDir(), sink, { maxRows: 3, maxAgeMs: 60_000 }))
  for (const id of ['a', 'b']) await spool.append(frameOf(id))
  await settle()
  expect(sink.inserts).toEqual([])
  await spool.append(frameOf('c'))
  await turnUntil(() => sink.inserts.length > 0)
  expect(sink.inserts).toEqual([['a', 'b', 'c']])
  await spool.close(5_000)
})

it('decodes only the committed frames it keeps in memory, and reads the others back from disk', async () => {
  const sink = new RecordingSink()
  const frameBytes = frameOf('a').bytes.length
  const decoded: string[] = []
  const spool = await EventSpool.open(
    options(newDir(), sink, {
      maxRows: 6,
      maxAgeMs: 60_000,
      keptBytes: 2 * frameBytes,
      // The writer's commits as a capture thread's reach the main thread: each frame decoded when asked.
      createWriter: (writerOptions) =>
        new SpoolWriter({
          ...writerOptions,
          onCommit: (seq, end, frames) =>
            writerOptions.onCommit(
              seq,
              end,
              frames.map((frame) => ({
                ...frame,
                content: () => {
                  const content = frame.content()
                  decoded.push(content.body.toString().trim())
                  return content
                },
              })),
            ),
        }),
    }),
  )
  const ids = ['a', 'b', 'c', 'd', 'e', 'f']
  await Promise.all(ids.map((id) => spool.append(frameOf(id))))
  await turnUntil(() => sink.inserts.length > 0)
  expect(decoded).toEqual(['{"id":"a"}', '{"id":"b"}'])
  expect(sink.inserts).toEqual([ids])
  await spool.close(5_000)
})

it('tries a batch that failed again after a back-off, and stores it once', async () => {
  const sink = new RecordingSink()
  sink.failNext = 1
  const logged: string[] = []
  const spool = await EventSpool.open(options(newDir(), sink, { maxRows: 1, log: (msg) => logged.push(msg) }))
  await spool.append(frameOf('a'))
  await settle()
  expect(sink.tries).toBe(1)
  expect(logged.at(-1)).toMatch(/storing events failed$/)
  await vi.advanceTimersByTimeAsync(199)
  await settle()
  expect(sink.tries).toBe(1)
  await vi.advanceTimersByTimeAsync(1)
  await settle()
  expect(sink.tries).toBe(2)
  expect(sink.inserts).toEqual([['a']])
  await spool.close(5_000)
})

it('stores nothing while paused, takes what was acknowledged meanwhile, and stores it once resumed', async () => {
  const sink = new RecordingSink()
  const dir = newDir()
  const spool = await EventSpool.open(options(dir, sink, { maxRows: 1 }))
  await spool.append(frameOf('a'))
  // Its insert follows a synced write, which a loaded disk may take well over 100 ms to make.
  await turnUntil(() => sink.inserts.length === 1)
  expect(sink.inserts).toEqual([['a']])
  let seenInside: string[][] = []
  await spool.whilePaused(async () => {
    await spool.append(frameOf('b'))
    await spool.append(frameOf('c'))
    await settle()
    seenInside = sink.inserts.map((ids) => [...ids])
    // What a backup copies now: the position after 'a', and the segment holding 'b' and 'c'.
    expect(readFileSync(path.join(dir, 'position.json'), 'utf8')).not.toContain('inserting')
  }, 5_000)
  expect(seenInside).toEqual([['a']])
  await turnUntil(() => sink.inserts.flat().length === 3)
  expect(sink.inserts.flat()).toEqual(['a', 'b', 'c'])
  await spool.close(5_000)
})

it('is paused only once the batch under way is stored, however long that takes within the wait', async () => {
  const sink = new RecordingSink()
  sink.failNext = 1
  const spool = await EventSpool.open(options(newDir(), sink, { maxRows: 1 }))
  await spool.append(frameOf('a'))
  await settle()
  expect(sink.tries).toBe(1)
  // The failed batch is recorded as under way: the pause waits for its retry to store it.
  let insertsInside: string[][] = []
  const paused = spool.whilePaused(async () => {
    insertsInside = sink.inserts.map((ids) => [...ids])
  }, 5_000)
  await vi.advanceTimersByTimeAsync(200)
  await settle()
  await paused
  expect(insertsInside).toEqual([['a']])
  await spool.close(5_000)
})

it('stops waiting for the sink once its shutdown timeout passes, and the next start stores what was left', async () => {
  const dir = newDir()
  const down = new RecordingSink()
  down.unavailable = true
  const spool = await EventSpool.open(options(dir, down, { maxRows: 1 }))
  await spool.append(frameOf('a'))
  let closed = false
  const closing = spool.close(5_000).then(() => (closed = true))
  // The batch-age interval, and the shutdown timeout, set once the writer has closed.
  await untilTimers(2)
  await vi.advanceTimersByTimeAsync(4_999)
  await settle()
  expect(closed).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  await closing
  expect(down.inserts).toEqual([])
  expect(readdirSync(dir).filter((name) => name.endsWith('.seg'))).toHaveLength(1)

  const up = new RecordingSink()
  const next = await EventSpool.open(options(dir, up))
  await next.close(5_000)
  expect(up.inserts).toEqual([['a']])
  expect(readdirSync(dir)).toEqual([])
})

it('counts each failed attempt by the step that failed: a PostgreSQL outage during persons shows as prepare failures', async () => {
  const registry = new Registry()
  const metrics = { ...createIngestionMetrics(registry), ...createSpoolMetrics(registry) }
  let postgresDown = 2
  const sink = new RecordingSink()
  const logged: Array<{ msg: string; err: unknown }> = []
  const spool = await EventSpool.open({
    ...options(newDir(), sink, { maxRows: 1, log: (msg, err) => logged.push({ msg, err }) }),
    metrics,
    beforeInsert: async (frames) => {
      if (postgresDown-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
      return frames
    },
  })
  await spool.append(frameOf('a'))
  await settle()
  await vi.advanceTimersByTimeAsync(200)
  await settle()
  await vi.advanceTimersByTimeAsync(400)
  await turnUntil(() => logged.length >= 2)
  expect(sink.inserts).toEqual([['a']])
  const failures = (await registry.getSingleMetric('burrow_consumer_failures_total')!.get()).values
  expect(failures).toEqual([{ value: 2, labels: { stage: 'prepare' } }])
  // The outage is logged when it starts, with its error apart, and once when it ends.
  expect(logged.map((l) => l.msg.replace(/^spool \S+: /, ''))).toEqual([
    'storing events failed',
    expect.stringMatching(/^storing events recovered after 0\.6 s and 2 failure\(s\)$/),
  ])
  expect((logged[0]!.err as Error).message).toBe('connect ECONNREFUSED 127.0.0.1:5432')
  await spool.close(5_000)
})

/**
 * A beforeInsert that records the ids of each batch it prepares and how many it prepared at once;
 * it fails the calls `fail` names, and holds the calls `hold` names until release().
 */
function recordingPreparer(options: { fail?: (call: number) => boolean; hold?: (call: number) => boolean } = {}) {
  const calls: string[][] = []
  let running = 0
  let mostAtOnce = 0
  const held: Array<() => void> = []
  const beforeInsert = async (frames: FrameContent[]) => {
    const ids = frames.map((f) => (JSON.parse(f.body.toString()) as { id: string }).id)
    calls.push(ids)
    const call = calls.length
    mostAtOnce = Math.max(mostAtOnce, ++running)
    try {
      await new Promise((resolve) => setImmediate(resolve))
      if (options.hold?.(call)) await new Promise<void>((resolve) => held.push(resolve))
      if (options.fail?.(call)) throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
      return frames
    } finally {
      running--
    }
  }
  const release = () => {
    for (const go of held.splice(0)) go()
  }
  return { calls, beforeInsert, release, mostAtOnce: () => mostAtOnce }
}

/** The backlog of spoolWithBacklog, as the batches it is stored in. */
const BACKLOG = [
  ['a', 'b'],
  ['c', 'd'],
  ['e', 'f'],
]

/** A spool with a backlog of three full batches (maxRows 2) whose first insert is held. */
async function spoolWithBacklog(sink: RecordingSink, preparer: ReturnType<typeof recordingPreparer>, dir = newDir()) {
  sink.hold()
  const spool = await EventSpool.open(options(dir, sink, { maxRows: 2, beforeInsert: preparer.beforeInsert }))
  await Promise.all(BACKLOG.flat().map((id) => spool.append(frameOf(id))))
  await turnUntil(() => sink.tries === 1)
  await settle()
  return spool
}

it('under a backlog, prepares the next batch while one is inserted, one preparation at a time, and stores each row once in order', async () => {
  const sink = new RecordingSink()
  const preparer = recordingPreparer()
  const spool = await spoolWithBacklog(sink, preparer)
  // The first insert is held; the batch after it is prepared meanwhile, not the one after that.
  expect(sink.inserts).toEqual([])
  expect(preparer.calls).toEqual([
    ['a', 'b'],
    ['c', 'd'],
  ])
  sink.release()
  await turnUntil(() => sink.inserts.length === 3)
  expect(sink.inserts).toEqual(BACKLOG)
  expect(preparer.calls).toEqual(sink.inserts)
  expect(preparer.mostAtOnce()).toBe(1)
  await spool.close(5_000)
})

it('drops the batch prepared ahead when the insert before it fails, then stores each row once', async () => {
  const sink = new RecordingSink()
  // The batch ahead is still being prepared when the insert before it fails.
  const preparer = recordingPreparer({ hold: (call) => call === 2 })
  const spool = await spoolWithBacklog(sink, preparer)
  sink.failNext = 1
  sink.release()
  await settle()
  // The failed batch is tried again only once the one ahead has been dropped: never two preparations at once.
  await vi.advanceTimersByTimeAsync(200)
  await settle()
  preparer.release()
  await settle()
  await vi.advanceTimersByTimeAsync(200)
  await turnUntil(() => sink.inserts.length === 3)
  expect(sink.inserts).toEqual(BACKLOG)
  // The failed batch and the one prepared ahead of its turn are prepared again, in order.
  expect(preparer.calls.slice(0, 3)).toEqual([
    ['a', 'b'],
    ['c', 'd'],
    ['a', 'b'],
  ])
  expect(preparer.mostAtOnce()).toBe(1)
  await spool.close(5_000)
})

it('prepares a batch again when its preparation ahead of its turn failed, and stores it once', async () => {
  const sink = new RecordingSink()
  const preparer = recordingPreparer({ fail: (call) => call === 2 })
  const spool = await spoolWithBacklog(sink, preparer)
  sink.release()
  await turnUntil(() => sink.inserts.length === 3)
  expect(sink.inserts.flat()).toEqual(BACKLOG.flat())
  expect(preparer.calls.filter((ids) => ids[0] === 'c')).toHaveLength(2)
  await spool.close(5_000)
})

it('stores nothing of a batch prepared ahead while paused: the pause comes once the batch under way is stored', async () => {
  const sink = new RecordingSink()
  const preparer = recordingPreparer()
  const dir = newDir()
  const spool = await spoolWithBacklog(sink, preparer, dir)
  let insertsInside: string[][] = []
  const paused = spool.whilePaused(async () => {
    await settle()
    insertsInside = sink.inserts.map((ids) => [...ids])
    expect(readFileSync(path.join(dir, 'position.json'), 'utf8')).not.toContain('inserting')
  }, 5_000)
  sink.release()
  await paused
  expect(insertsInside).toEqual([['a', 'b']])
  await turnUntil(() => sink.inserts.length === 3)
  expect(sink.inserts.flat()).toEqual(BACKLOG.flat())
  await spool.close(5_000)
})

it('says how many acknowledged rows it leaves for the next start, which counts them in its depth and their age', async () => {
  const dir = newDir()
  const down = new RecordingSink()
  down.unavailable = true
  const spool = await EventSpool.open(options(dir, down, { maxRows: 100 }))
  for (const id of ['a', 'b', 'c']) await spool.append(frameOf(id))
  await vi.advanceTimersByTimeAsync(3_000)
  expect(spool.backlogRows()).toBe(3)
  expect(spool.oldestWaitingMs()).toBeGreaterThanOrEqual(3_000)
  const closing = spool.close(1_000)
  await untilTimers(2)
  await vi.advanceTimersByTimeAsync(1_000)
  expect(await closing).toMatchObject({ rows: 3, segments: 1 })

  // The next start has a sink of its own, as a new process does.
  const stillDown = new RecordingSink()
  stillDown.unavailable = true
  const next = await EventSpool.open(options(dir, stillDown, { maxRows: 100 }))
  await turnUntil(() => next.backlogRows() >= 3)
  expect(next.backlogRows()).toBe(3)
  await vi.advanceTimersByTimeAsync(2_000)
  expect(next.oldestWaitingMs()).toBeGreaterThanOrEqual(2_000)
  const closingNext = next.close(1_000)
  await untilTimers(2)
  await vi.advanceTimersByTimeAsync(1_000)
  expect(await closingNext).toMatchObject({ rows: 3, segments: 1 })
})

it('stores the frames of a segment of format 1 (no header) that an earlier release left, then its own', async () => {
  const dir = newDir()
  mkdirSync(dir)
  const left = ['old-1', 'old-2'].map((id) => frameOf(id).bytes)
  writeFileSync(path.join(dir, '000000000001.seg'), Buffer.concat([...left, Buffer.alloc(4096)]))
  const sink = new RecordingSink()
  const spool = await EventSpool.open(options(dir, sink))
  await spool.append(frameOf('new-1'))
  await spool.close(5_000)
  expect(sink.inserts.flat()).toEqual(['old-1', 'old-2', 'new-1'])
  expect(readdirSync(dir)).toEqual([])
})

it('does not open over a segment of a newer format, and leaves it in place', async () => {
  const dir = newDir()
  mkdirSync(dir)
  const newer = Buffer.alloc(4096)
  newer.write('BRWSPOOL', 'latin1')
  newer.writeUInt32LE(3, 8)
  const file = path.join(dir, '000000000001.seg')
  writeFileSync(file, newer)
  await expect(EventSpool.open(options(dir, new RecordingSink()))).rejects.toThrow(SpoolFormatError)
  expect(existsSync(file)).toBe(true)
})
