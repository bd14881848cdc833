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
    captureRefused: new Counter({
      name: 'burrow_capture_refused_total',
      help: 'Capture requests refused before their events were acknowledged, by reason: spool_full, disk_full (below the reserve), spool_write_failed (503), draining (503, stopping), quota (429)',
      labelNames: ['reason'] as const,
      registers,
    }),
  }
}

/** Why capture refuses a request whose events it would otherwise take; clients retry each. */
export const CAPTURE_REFUSALS = ['spool_full', 'disk_full', 'spool_write_failed', 'draining', 'quota'] as const
export type CaptureRefusal = (typeof CAPTURE_REFUSALS)[number]

export type CaptureMetrics = ReturnType<typeof createCaptureMetrics>
