import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { personWriteCounts } from './persons/personWriteCounts'

/** What the depth gauges read of each spool lane (the main thread's; a capture thread has none). */
export interface SpoolDepth {
  backlogRows(): number
  oldestWaitingMs(): number
}

export interface SpoolSource {
  spools?: () => readonly SpoolDepth[]
  /** The size of the spool's files, every lane's. */
  spoolBytes?: () => number
}

/** What the main thread's storing of events measures: the spool's consumer and the event sink. */
export function createIngestionMetrics(registry: Registry, source: SpoolSource = {}) {
  const registers = [registry]
  const spools = () => source.spools?.() ?? []
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
    flushRetries: new Counter({ name: 'burrow_flush_retries_total', help: 'ClickHouse inserts retried after an error', registers }),
    consumerFailures: new Counter({
      name: 'burrow_consumer_failures_total',
      help: 'Batches the spool consumer failed to store and will try again, by the step that failed (read, prepare: PostgreSQL for persons, insert, advance)',
      labelNames: ['stage'] as const,
      registers,
    }),
    bufferDepth: new Gauge({
      name: 'burrow_buffer_depth_rows',
      help: "Rows acknowledged and not yet in ClickHouse, an earlier run's backlog included",
      registers,
      collect() {
        this.set(spools().reduce((rows, spool) => rows + spool.backlogRows(), 0))
      },
    }),
    oldestWaiting: new Gauge({
      name: 'burrow_spool_oldest_event_age_seconds',
      help: 'How long the oldest acknowledged row not yet in ClickHouse has waited',
      aggregator: 'max',
      registers,
      collect() {
        this.set(spools().reduce((max, spool) => Math.max(max, spool.oldestWaitingMs()), 0) / 1000)
      },
    }),
    personWrites: new Counter({
      name: 'burrow_person_writes_total',
      help: 'Person rows ingestion wrote to PostgreSQL: created, updated, merged or merged away',
      registers,
      collect() {
        this.reset()
        this.inc(personWriteCounts.written)
      },
    }),
    personUpdates: new Counter({
      name: 'burrow_person_updates_total',
      help: 'Persons whose property changes of a batch were settled from what this server remembers of them, without a round trip (memory), or took a PostgreSQL statement, to read or to write them (postgres)',
      labelNames: ['settled_by'] as const,
      registers,
      collect() {
        this.reset()
        this.inc({ settled_by: 'memory' }, personWriteCounts.settledInMemory)
        this.inc({ settled_by: 'postgres' }, personWriteCounts.sentToPostgres)
      },
    }),
    spoolBytes: new Gauge({
      name: 'burrow_spool_bytes',
      help: 'Size of the on-disk spool of acknowledged rows',
      registers,
      collect() {
        this.set(source.spoolBytes?.() ?? 0)
      },
    }),
  }
}

export type IngestionMetrics = ReturnType<typeof createIngestionMetrics>
