import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

/** What the main thread's storing of events measures: the spool's consumer and the event sink. */
export function createIngestionMetrics(registry: Registry) {
  const registers = [registry]
  return {
    eventsDeadLettered: new Counter({
      name: 'burrow_events_dead_lettered_total',
      help: 'Events written to the dead letter queue, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    eventsInserted: new Counter({ name: 'burrow_events_inserted_total', help: 'Event rows inserted into ClickHouse', registers }),
    batchSize: new Histogram({
      name: 'burrow_batch_size_rows',
      help: 'Rows per ClickHouse insert',
      buckets: [1, 10, 100, 1000, 5000, 10_000, 50_000, 100_000],
      registers,
    }),
    flushDuration: new Histogram({
      name: 'burrow_flush_duration_seconds',
      help: 'Time to insert one batch into ClickHouse, retries included',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    flushRetries: new Counter({ name: 'burrow_flush_retries_total', help: 'Insert attempts retried after an error', registers }),
    bufferDepth: new Gauge({ name: 'burrow_buffer_depth_rows', help: 'Rows acknowledged and not yet in ClickHouse', registers }),
    spoolBytes: new Gauge({ name: 'burrow_spool_bytes', help: 'Size of the on-disk spool of acknowledged rows', registers }),
  }
}

export type IngestionMetrics = ReturnType<typeof createIngestionMetrics>
