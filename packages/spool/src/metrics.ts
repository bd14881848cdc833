import { Histogram, type Registry } from 'prom-client'

/** What the spool's writer measures, registered on its thread's registry. */
export function createSpoolMetrics(registry: Registry) {
  const registers = [registry]
  return {
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
  }
}

export type SpoolMetrics = ReturnType<typeof createSpoolMetrics>
