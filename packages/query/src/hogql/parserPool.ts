import { Worker } from 'node:worker_threads'
import type { ParseKind, ParserThreadData, ParserThreadMessage } from './parserProtocol'

/**
 * What a thread runs. The built server (dist/) has the thread as a module of its own beside this
 * one (apps/server/scripts/build.mjs); from the TypeScript sources (tests, development) a
 * bootstrap first registers the loader, which a worker does not inherit, then imports the module.
 */
const THREAD = import.meta.url.endsWith('.ts')
  ? { script: new URL('./parserBootstrap.mjs', import.meta.url), entry: new URL('./parserThread.ts', import.meta.url).href }
  : { script: new URL('./hogqlParserThread.mjs', import.meta.url), entry: undefined }

export interface ParserPoolOptions {
  /** Threads, each parsing one text at a time. */
  threads?: number
  /** How long one parse may take before its thread is ended and replaced. */
  deadlineMs?: number
  /** How long a new thread may take to load the parser. */
  startMs?: number
  /** See ParserThreadData. */
  maxParserBytes?: number
}

/** The parser's JSON, or why there is none. */
export type ParseOutcome = { json: string } | { failed: 'threw' | 'deadline' | 'exited'; message: string }

interface Job {
  kind: ParseKind
  text: string
  done: (outcome: ParseOutcome) => void
}

interface Slot {
  worker: Worker
  state: 'starting' | 'idle' | 'busy'
  job: Job | undefined
  timer: NodeJS.Timeout | undefined
  /** The worker's last uncaught error, for the message of the parse it ends. */
  error: string | undefined
}

/**
 * Parses HogQL on worker threads, so that a parse that spins, traps or kills its thread never
 * holds or ends the thread that serves every tenant (HTTP, capture, health). A parse past its
 * deadline has its thread terminated; a thread that dies fails its parse; either is replaced at
 * once. A thread that dies before it is ready fails the waiting parses and is not replaced until
 * the next parse asks for one, so that a thread that cannot start is not restarted in a loop.
 *
 * One thread by default: parses of ordinary queries take milliseconds, and on the two cores the
 * service runs on, a second thread would let hostile parses take both from capture and the API.
 */
export class ParserPool {
  private readonly threads: number
  private readonly deadlineMs: number
  private readonly startMs: number
  private readonly maxParserBytes: number
  private readonly slots: Slot[] = []
  private readonly queue: Job[] = []
  private nextId = 0
  private closed = false
  /** Threads started so far, replacements included. */
  started = 0

  constructor(options: ParserPoolOptions = {}) {
    this.threads = options.threads ?? 1
    this.deadlineMs = options.deadlineMs ?? 5_000
    this.startMs = options.startMs ?? 60_000
    this.maxParserBytes = options.maxParserBytes ?? 128 * 1024 * 1024
  }

  parse(kind: ParseKind, text: string): Promise<ParseOutcome> {
    if (this.closed) return Promise.resolve({ failed: 'exited', message: 'the parser pool is closed' })
    return new Promise((done) => {
      this.queue.push({ kind, text, done })
      this.pump()
    })
  }

  /** Ends the threads; parses still waiting fail. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.done({ failed: 'exited', message: 'the parser pool is closed' })
    const slots = this.slots.splice(0)
    for (const slot of slots) {
      clearTimeout(slot.timer)
      slot.job?.done({ failed: 'exited', message: 'the parser pool is closed' })
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()))
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.state === 'idle')
      if (!slot) break
      this.dispatch(slot, this.queue.shift()!)
    }
    if (this.queue.length > this.slots.filter((s) => s.state === 'starting').length && this.slots.length < this.threads) this.spawn()
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.state = 'busy'
    slot.job = job
    slot.timer = setTimeout(() => {
      this.fail(slot, { failed: 'deadline', message: `the parse took over ${this.deadlineMs} ms` })
      void slot.worker.terminate()
    }, this.deadlineMs)
    slot.worker.postMessage({ id: this.nextId++, kind: job.kind, text: job.text })
  }

  private spawn(): void {
    this.started++
    const data: ParserThreadData = { entry: THREAD.entry, maxParserBytes: this.maxParserBytes }
    const worker = new Worker(THREAD.script, {
      workerData: data,
      execArgv: [],
      // The JSON of a tree lives on the thread's heap; a parse that would need more is a crash, not the process's memory.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    })
    const slot: Slot = { worker, state: 'starting', job: undefined, timer: undefined, error: undefined }
    slot.timer = setTimeout(() => {
      this.fail(slot, { failed: 'exited', message: `the parser thread did not start within ${this.startMs} ms` })
      void worker.terminate()
    }, this.startMs)
    this.slots.push(slot)
    worker.on('message', (message: ParserThreadMessage) => {
      if (!this.slots.includes(slot)) return
      clearTimeout(slot.timer)
      if ('ready' in message) {
        slot.state = 'idle'
      } else {
        const job = slot.job
        slot.state = 'idle'
        slot.job = undefined
        job?.done('json' in message ? { json: message.json } : { failed: 'threw', message: message.threw })
      }
      this.pump()
    })
    worker.on('error', (err) => (slot.error = `${err.name}: ${err.message}`))
    worker.on('exit', (code) => this.fail(slot, { failed: 'exited', message: slot.error ?? `the parser thread exited with code ${code}` }))
    // The pool never keeps a process alive by itself: a parse or a start does, through its timer.
    // (Unref'd before its listeners are added, a worker's port would be ref'd again by them.)
    worker.unref()
  }

  /** Takes a slot out of the pool, failing its parse (or, if it never started, every waiting parse). */
  private fail(slot: Slot, outcome: ParseOutcome & { failed: string }): void {
    const at = this.slots.indexOf(slot)
    if (at < 0 || this.closed) return
    this.slots.splice(at, 1)
    clearTimeout(slot.timer)
    if (slot.state === 'starting') {
      for (const job of this.queue.splice(0)) job.done(outcome)
      return
    }
    // A thread lost in a parse is replaced now; one lost while idle, when a parse next needs it.
    if (slot.job) {
      slot.job.done(outcome)
      this.spawn()
    }
    this.pump()
  }
}
