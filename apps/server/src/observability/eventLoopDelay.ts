import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Gauge, type Registry } from 'prom-client'
import { MAX_WINDOW_MS } from './eventLoopBusy'
import { WindowedMax } from './windowedMax'

export interface EventLoopDelayMaxOptions {
  registry: Registry
  name: string
  help: string
  /** The delay histogram's resolution in ms (EVENT_LOOP_SAMPLE_MS). */
  sampleMs: number
  windowMs?: number
}

/** How often the delay histogram's maximum is moved into the window and the histogram started afresh. */
const FOLD_MS = 1_000

/**
 * The longest event-loop delay (wall time) over the last minute. prom-client's own
 * `nodejs_eventloop_lag_max_seconds` is reset at each scrape, so two scrapers each see part of
 * it and a stall between them may be seen by neither: this one is read without resetting.
 */
export function monitorEventLoopDelayMax(options: EventLoopDelayMaxOptions): { stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: options.sampleMs })
  histogram.enable()
  const max = new WindowedMax(options.windowMs ?? MAX_WINDOW_MS)
  const fold = () => {
    if (histogram.count > 0) max.record(histogram.max)
    histogram.reset()
  }
  const timer = setInterval(fold, FOLD_MS)
  timer.unref()
  new Gauge({
    name: options.name,
    help: options.help,
    aggregator: 'max',
    registers: [options.registry],
    collect() {
      fold()
      this.set(max.read() / 1e9)
    },
  })
  return {
    stop() {
      clearInterval(timer)
      histogram.disable()
      options.registry.removeSingleMetric(options.name)
    },
  }
}
