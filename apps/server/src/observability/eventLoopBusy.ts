import { closeSync, openSync, readSync } from 'node:fs'
import { Gauge, type Registry } from 'prom-client'
import { WindowedMax } from './windowedMax'

/** The first field of Linux's schedstat: the CPU time the thread has run, in ns. */
function readRunNs(fd: number, buf: Buffer): number {
  const n = readSync(fd, buf, 0, buf.length, 0)
  const end = buf.indexOf(0x20)
  return Number(buf.toString('latin1', 0, end < 0 || end > n ? n : end))
}

export interface EventLoopBusyOptions {
  registry: Registry
  name: string
  help: string
  /** How often the loop's timers are asked to run, in ms (EVENT_LOOP_SAMPLE_MS). */
  sampleMs: number
  /** The gauge is the maximum over this window (default: a minute), whoever scrapes it and how often. */
  windowMs?: number
}

export const MAX_WINDOW_MS = 60_000

/**
 * The longest CPU time the calling thread spent between two runs of a timer that asks to run
 * every `sampleMs`: how long its own work (callbacks, garbage collection) held its event loop.
 * The delay metrics count wall time, which on a machine with more busy threads than cores also
 * holds the time the thread waited for a core; this tells the two apart. It reads the thread's
 * CPU time from /proc/thread-self/schedstat (about 2 µs a read); where that does not exist it
 * registers nothing and answers undefined.
 */
export function monitorEventLoopBusy(options: EventLoopBusyOptions): { stop(): void } | undefined {
  let fd: number
  try {
    // Opened by this thread, the file keeps describing this thread.
    fd = openSync('/proc/thread-self/schedstat', 'r')
  } catch {
    return undefined
  }
  const buf = Buffer.alloc(64)
  let last = readRunNs(fd, buf)
  const max = new WindowedMax(options.windowMs ?? MAX_WINDOW_MS)
  const timer = setInterval(() => {
    const now = readRunNs(fd, buf)
    max.record(now - last)
    last = now
  }, options.sampleMs)
  timer.unref()
  new Gauge({
    name: options.name,
    help: options.help,
    aggregator: 'max',
    registers: [options.registry],
    collect() {
      this.set(max.read() / 1e9)
    },
  })
  return {
    stop() {
      clearInterval(timer)
      options.registry.removeSingleMetric(options.name)
      closeSync(fd)
    },
  }
}
