import { CAPTURE_REFUSALS, createCaptureMetrics } from '@burrow/capture'
import { createIngestionMetrics } from '@burrow/ingestion'
import { createSpoolMetrics } from '@burrow/spool'
import { Counter, Histogram, type Registry } from 'prom-client'

/**
 * The service's metrics, served at /_metrics. Every thread registers all of them, whatever it
 * runs, so that the main thread aggregates the same names from each (see startApp); the
 * spool's depth gauges read the main thread's lanes (`spoolSource`), a capture thread has none.
 */
export function createServerMetrics(registry: Registry, spoolSource: Parameters<typeof createIngestionMetrics>[1] = {}) {
  const metrics = {
    requests: new Counter({
      name: 'burrow_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['route', 'status'] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'burrow_http_request_duration_seconds',
      help: 'Time from a request read in full to its answer, by route (the private API by route pattern) and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    keyGuesses: new Counter({
      name: 'burrow_key_guesses_total',
      help: 'Invalid project or personal API keys by kind, and what became of them: counted, slowed (answered late) or refused (429)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    storeDelay: new Histogram({
      name: 'burrow_event_store_delay_seconds',
      help: "Time from events' acknowledgement (on disk, answered 200) to their storage in ClickHouse, per group of acknowledgements a tenth of BATCH_MAX_AGE_MS long",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers: [registry],
    }),
    apiThrottled: new Counter({
      name: 'burrow_api_throttled_total',
      help: 'Private API calls refused (429) by the rate limits of their key, by limit class',
      labelNames: ['throttle'] as const,
      registers: [registry],
    }),
    ...createCaptureMetrics(registry),
    ...createIngestionMetrics(registry, spoolSource),
    ...createSpoolMetrics(registry),
  }
  // Every known label is there from the start at 0: an alert on increase() or rate() needs a series that exists before the first event.
  for (const reason of CAPTURE_REFUSALS) metrics.captureRefused.inc({ reason }, 0)
  for (const stage of CONSUMER_STAGES) metrics.consumerFailures.inc({ stage }, 0)
  for (const kind of GUESSED_KEYS) for (const outcome of GUESS_OUTCOMES) metrics.keyGuesses.inc({ kind, outcome }, 0)
  for (const throttle of THROTTLES) metrics.apiThrottled.inc({ throttle }, 0)
  return metrics
}

/** The consumer's steps (burrow_consumer_failures_total{stage}). */
const CONSUMER_STAGES = ['read', 'prepare', 'insert', 'handoff', 'advance'] as const
const GUESSED_KEYS = ['personal', 'project'] as const
const GUESS_OUTCOMES = ['counted', 'slowed', 'refused'] as const
/** The private API's limit classes (burrow_api_throttled_total{throttle}). */
const THROTTLES = ['api', 'query'] as const

export type ServerMetrics = ReturnType<typeof createServerMetrics>
