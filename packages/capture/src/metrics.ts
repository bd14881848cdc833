import { Counter, type Registry } from 'prom-client'

/** What capture counts, registered on its thread's registry. */
export function createCaptureMetrics(registry: Registry) {
  const registers = [registry]
  return {
    eventsAccepted: new Counter({ name: 'burrow_events_accepted_total', help: 'Events accepted for storage', registers }),
    eventsDropped: new Counter({
      name: 'burrow_events_dropped_total',
      help: 'Events dropped by a pipeline step, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
  }
}

export type CaptureMetrics = ReturnType<typeof createCaptureMetrics>
