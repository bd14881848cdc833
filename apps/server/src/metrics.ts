import { createCaptureMetrics } from '@burrow/capture'
import { createIngestionMetrics } from '@burrow/ingestion'
import { createSpoolMetrics } from '@burrow/spool'
import { Counter, type Registry } from 'prom-client'

/**
 * The service's metrics, served at /_metrics. Every thread registers all of them, whatever it
 * runs, so that the main thread aggregates the same names from each (see startApp).
 */
export function createServerMetrics(registry: Registry) {
  return {
    requests: new Counter({
      name: 'burrow_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['route', 'status'] as const,
      registers: [registry],
    }),
    ...createCaptureMetrics(registry),
    ...createIngestionMetrics(registry),
    ...createSpoolMetrics(registry),
  }
}

export type ServerMetrics = ReturnType<typeof createServerMetrics>
