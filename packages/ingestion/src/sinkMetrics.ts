import { Gauge, type Registry } from 'prom-client'

/**
 * How long storing events in ClickHouse has failed without a success: with
 * burrow_flush_retries_total (the failed attempts) and burrow_spool_oldest_event_age_seconds
 * (how old the oldest event not stored is), it tells a batch that keeps failing, which holds
 * every event behind it, from a backlog that is merely being worked through.
 */
export function registerSinkFailingGauge(registry: Registry, sink: { failingSeconds(): number }): void {
  new Gauge({
    name: 'burrow_flush_failing_seconds',
    help: 'How long storing events in ClickHouse has failed without a success (0 while it works)',
    aggregator: 'max',
    registers: [registry],
    collect() {
      this.set(sink.failingSeconds())
    },
  })
}
