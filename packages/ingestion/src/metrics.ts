import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

/** The ingestion metrics, registered on the server's registry (served at /_metrics). */
export function createIngestionMetrics(registry: Registry) {
  const registers = [registry]
  return {
    requests: new Counter({
      name: 'burrow_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['route', 'status'] as const,
      registers,
    }),
    eventsAccepted: new Counter({ name: 'burrow_events_accepted_total', help: 'Events accepted for storage', registers }),
    eventsDropped: new Counter({
      name: 'burrow_events_dropped_total',
      help: 'Events dropped by a pipeline step, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
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
    spoolCommitDuration: new Histogram({
      name: 'burrow_spool_commit_seconds',
      help: 'Time from the start of a spool group commit to its acknowledgement (its data and all before it durable)',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers,
    }),
    spoolCommitAppends: new Histogram({
      name: 'burrow_spool_commit_appends',
      help: 'Requests made durable by one group commit of the spool',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers,
    }),
    spoolBytes: new Gauge({ name: 'burrow_spool_bytes', help: 'Size of the on-disk spool of acknowledged rows', registers }),
  }
}

export type IngestionMetrics = ReturnType<typeof createIngestionMetrics>
