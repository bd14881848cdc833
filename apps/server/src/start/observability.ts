import type { Config } from '@burrow/config'
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { monitorEventLoopBusy } from '../observability/eventLoopBusy'
import { monitorEventLoopDelayMax } from '../observability/eventLoopDelay'
import { monitorThreadCpu } from '../observability/threadCpu'
import { registerBuildInfo } from '../observability/serviceMetrics'
import type { Teardown } from './teardown'

/**
 * The main thread's metrics registry: Node.js's standard metrics, the event loop's monitors and
 * the build's identity. Each part of the service adds its own metrics to it as it starts.
 */
export function startObservability(config: Config, teardown: Teardown): Registry {
  const registry = new Registry()
  // Under their standard names (process_start_time_seconds, nodejs_heap_size_used_bytes, ...), which the usual Node.js dashboards read.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: config.EVENT_LOOP_SAMPLE_MS })
  // prom-client leaves its start time out of an aggregate (the capture threads' and this thread's): the process has one.
  registry.removeSingleMetric('process_start_time_seconds')
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    aggregator: 'first',
    registers: [registry],
  }).set(Math.round(Date.now() / 1000 - process.uptime()))
  // prom-client's maximum is reset at each scrape: replaced by one over a window, which reading does not change.
  registry.removeSingleMetric('nodejs_eventloop_lag_max_seconds')
  const loopDelay = monitorEventLoopDelayMax({
    registry,
    name: 'nodejs_eventloop_lag_max_seconds',
    help: "The longest delay of the main thread's event loop in the last minute",
    sampleMs: config.EVENT_LOOP_SAMPLE_MS,
  })
  const loopBusy = monitorEventLoopBusy({
    registry,
    name: 'burrow_eventloop_busy_max_seconds',
    help: "The longest CPU time the main thread's own work held its event loop in the last minute",
    sampleMs: config.EVENT_LOOP_SAMPLE_MS,
  })
  const cpu = monitorThreadCpu({
    registry,
    name: 'burrow_main_thread_cpu_seconds_total',
    help: 'CPU time the main thread has run (of process_cpu_seconds_total, which adds every thread)',
  })
  registerBuildInfo(registry)
  teardown.atTheEnd(async () => loopDelay.stop())
  if (loopBusy) teardown.atTheEnd(async () => loopBusy.stop())
  if (cpu) teardown.atTheEnd(async () => cpu.stop())
  return registry
}
