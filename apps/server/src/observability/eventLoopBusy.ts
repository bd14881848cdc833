import { Gauge, type Registry } from 'prom-client'
import { openThreadCpu } from './threadCpu'
import { WindowedMax } from './windowedMax'

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
 * CPU clock (see openThreadCpu); where that cannot be read it registers nothing and answers
 * undefined.
 */
export function monitorEventLoopBusy(options: EventLoopBusyOptions): { stop(): void } | undefined {
  const clock = openThreadCpu()
  if (!clock) return undefined
  let last = clock.readNs()
  const max = new WindowedMax(options.windowMs ?? MAX_WINDOW_MS)
  const timer = setInterval(() => {
    const now = clock.readNs()
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
      clock.close()
    },
  }
}
